"""OCR throughput of the table stage's engine: pages/s with 1 and 2 workers, and per worker.

Run from the repo root:  .cache/venv/bin/python bench/ocr_throughput.py [--repeats 3] [--dpi 200]

Pages: every page of the real scan ``corpus/real/hk_legco_sub_710-11_scanned_zh.pdf`` (14 pages,
no text layer), rendered once with pypdfium2 at ``--dpi`` (the stage's ``OCR_DPI``, 200) before
the clock starts. Engine: ``services.tables.ocr.TesseractEngine`` exactly as the stage runs it
(Tesseract CLI, ``chi_tra+eng``, ``--psm 6``, ``OMP_THREAD_LIMIT=1``: one core per page).

A "worker" is one page at a time, as one table-stage replica (``VISION_WORKERS``) takes them:
N workers are N pages in flight (a thread pool of N, each waiting on its own Tesseract process).
For each N the whole document is read ``--repeats`` times; the figure is the median wall time.
Printed: pages/s, pages/s per worker, and the 2-worker figure as a ratio of the 1-worker one
measured in the same run (speed varies 2-3x between machines and hours; quote the ratio).
"""
from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

from _common import CORPUS

from PIL import Image

from services.tables.ocr import TesseractEngine
from services.tables.render import render_image

SCAN = CORPUS / "real" / "hk_legco_sub_710-11_scanned_zh.pdf"


def pages(dpi: int) -> list[Image.Image]:
    """Every page of ``SCAN`` as an image at ``dpi``."""
    import pypdfium2 as pdfium

    data = SCAN.read_bytes()
    count = len(pdfium.PdfDocument(data))
    return [render_image(data, page=n, dpi=dpi) for n in range(1, count + 1)]


def read_all(engine: TesseractEngine, images: list[Image.Image], workers: int) -> tuple[float, int]:
    """Seconds (wall) to OCR ``images`` with ``workers`` pages in flight, and characters read."""
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(engine.read, images))
    return time.perf_counter() - start, sum(len(r.text) for r in results)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dpi", type=int, default=200)
    args = ap.parse_args()
    engine = TesseractEngine()
    if not engine.available():
        raise SystemExit("tesseract with chi_tra+eng is not installed (scripts/deps.sh ocr)")
    images = pages(args.dpi)
    print(f"{SCAN.name}: {len(images)} pages at {args.dpi} DPI; {args.repeats} runs per worker count (median)")
    rates: dict[int, float] = {}
    for workers in (1, 2):
        runs = [read_all(engine, images, workers) for _ in range(args.repeats)]
        wall = statistics.median(s for s, _ in runs)
        rates[workers] = len(images) / wall
        print(f"{workers} worker{'s' if workers > 1 else ' '}: {wall:6.1f} s  {rates[workers]:.3f} pages/s  "
              f"{rates[workers] / workers:.3f} pages/s per worker  ({runs[0][1]:,} characters)  "
              f"runs: {', '.join(f'{s:.1f}' for s, _ in runs)} s")
    print(f"2 workers / 1 worker: {rates[2] / rates[1]:.2f}x")


if __name__ == "__main__":
    main()

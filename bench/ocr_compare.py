"""Compare two local OCR engines on Traditional Chinese pages: accuracy and seconds per page.

Run from the repo root:  .cache/venv/bin/python bench/ocr_compare.py [--pages N] [--dpi 200]

Engines (both read their models from a package, nothing is downloaded at run time):
  * tesseract  - Debian's ``tesseract-ocr`` 5 with ``tesseract-ocr-chi-tra`` + ``-eng``, run as
                 the CLI (``-l chi_tra+eng --psm 6``, one core), one process per page plus one
                 for the page's low-confidence lines straightened: the service's engine
                 (``services.tables.ocr``);
  * tesseract-1pass - the same without the second pass (``reread_below=0``: the engine before
                 it had one), to compare in one run; not in the default set;
  * rapidocr   - ``rapidocr-onnxruntime`` 1.4.4 (PyPI; its wheel bundles the PP-OCRv4 det/rec
                 ONNX models), in-process; not a project dependency: ``pip install
                 rapidocr-onnxruntime==1.4.4`` into the venv to compare (skipped without it).

Scans: text pages of ``corpus/fixtures/*.pdf`` (pages without table rules,
``render.may_hold_table`` false, at least 200 characters) rendered with pypdfium2 at ``--dpi``,
turned to grey, with Gaussian noise (sigma 12), a 0.4 degree skew and JPEG quality 70, like a
office scan. Reference: the page's own text layer (pypdfium2).

Character accuracy = 1 - edit distance / reference length, both sides NFKC-normalised (full-
and half-width punctuation equal) with all whitespace removed; floored at 0. Seconds per page:
OCR only (not the rendering), wall clock, on the shared 2-core machine; the engines read each
page in turn, so their seconds are measured under the same load. ``cpu s``: CPU seconds (user +
system) of the bench and its tesseract processes over the same call, which varies less with the
load (rapidocr's include its in-process threads).

The real scan ``corpus/real/hk_legco_sub_710-11_scanned_zh.pdf`` has no text layer to compare
with: for it the bench prints each engine's characters per page, mean confidence and the two
engines' agreement (the first engine's output scored with ``char_accuracy`` against the
second's; 1.0 = the same text). ``--engines tesseract-1pass,tesseract --real-pages 14`` shows
what the second pass changes on the whole real scan.

Not a test; the figures and the pick are written down in services/tables/README.md.
"""
from __future__ import annotations

import argparse
import io
import random
import re
import resource
import statistics
import time
import unicodedata
from collections.abc import Callable

from _common import CORPUS, load_note

import numpy as np
import pypdfium2 as pdfium
from PIL import Image, ImageFilter

from services.tables.ocr import TesseractEngine, char_accuracy
from services.tables.render import may_hold_table

_WS = re.compile(r"\s+")
REAL_SCAN = CORPUS / "real" / "hk_legco_sub_710-11_scanned_zh.pdf"


def norm(text: str) -> str:
    """NFKC, no whitespace."""
    return _WS.sub("", unicodedata.normalize("NFKC", text))


def one_page_pdf(doc: pdfium.PdfDocument, index: int) -> bytes:
    """The 0-based page ``index`` of ``doc`` as a one-page PDF."""
    out = pdfium.PdfDocument.new()
    out.import_pages(doc, [index])
    buf = io.BytesIO()
    out.save(buf)
    return buf.getvalue()


def scan_like(image: Image.Image, seed: int) -> Image.Image:
    """Grey, noisy (Gaussian, sigma 12, seeded by ``seed``), slightly skewed, JPEG-compressed
    copy of a rendered page."""
    rng = random.Random(seed)
    grey = image.convert("L")
    noise = np.random.default_rng(seed).normal(0, 12, (grey.height, grey.width))
    noisy = Image.fromarray(np.clip(np.asarray(grey, dtype=np.float64) + noise, 0, 255).astype(np.uint8))
    skewed = noisy.rotate(rng.choice((-0.4, 0.4)), resample=Image.BICUBIC, fillcolor=255)
    buf = io.BytesIO()
    skewed.filter(ImageFilter.SMOOTH).save(buf, format="JPEG", quality=70)
    return Image.open(io.BytesIO(buf.getvalue())).convert("L")


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and its finished children (the tesseract
    processes): less sensitive to the machine's load than the wall clock."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def fixture_scans(limit: int, dpi: int) -> list[tuple[str, Image.Image, str]]:
    """(label, scan-like image, reference text) for up to ``limit`` text pages of the fixtures."""
    out: list[tuple[str, Image.Image, str]] = []
    for path in sorted((CORPUS / "fixtures").glob("*.pdf")):
        doc = pdfium.PdfDocument(path.read_bytes())
        for i in range(len(doc)):
            page = doc[i]
            ref = page.get_textpage().get_text_range()
            if len(norm(ref)) < 200 or may_hold_table(one_page_pdf(doc, i)):
                continue
            img = page.render(scale=dpi / 72).to_pil()
            out.append((f"{path.stem} p{i + 1}", scan_like(img, seed=i), ref))
            if len(out) >= limit:
                return out
    return out


def rapidocr_engine() -> Callable[[Image.Image], tuple[str, float]]:
    """The rapidocr-onnxruntime reader: image → (text, mean confidence)."""
    import numpy as np
    from rapidocr_onnxruntime import RapidOCR

    ocr = RapidOCR()

    def read(image: Image.Image) -> tuple[str, float]:
        result, _ = ocr(np.asarray(image.convert("RGB")))
        if not result:
            return "", 0.0
        return "\n".join(r[1] for r in result), statistics.fmean(float(r[2]) for r in result)

    return read


def tesseract_engine(reread_below: float = 70.0) -> Callable[[Image.Image], tuple[str, float]]:
    """The tesseract reader (services.tables.ocr): image → (text, mean confidence); lines under
    ``reread_below`` confidence read again straightened (0: one pass)."""
    engine = TesseractEngine(reread_below=reread_below)

    def read(image: Image.Image) -> tuple[str, float]:
        r = engine.read(image)
        return r.text, r.confidence

    return read


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=8, help="fixture pages to scan (default 8)")
    ap.add_argument("--dpi", type=int, default=200)
    ap.add_argument("--real-pages", type=int, default=3, help="pages of the real scan to read (default 3)")
    ap.add_argument("--engines", default="tesseract,rapidocr",
                    help="comma-separated, of tesseract, tesseract-1pass, rapidocr (default tesseract,rapidocr)")
    args = ap.parse_args()
    scans = fixture_scans(args.pages, args.dpi)
    wanted = args.engines.split(",")
    engines: dict[str, Callable[[Image.Image], tuple[str, float]]] = {}
    for name in wanted:
        if name == "tesseract":
            engines[name] = tesseract_engine()
        elif name == "tesseract-1pass":
            engines[name] = tesseract_engine(reread_below=0)
    try:
        if "rapidocr" in wanted:
            engines["rapidocr"] = rapidocr_engine()
    except ImportError:
        print("rapidocr-onnxruntime not installed (pip install rapidocr-onnxruntime==1.4.4): skipped")
    print(f"fixture scans: {len(scans)} pages at {args.dpi} DPI with noise; {load_note()}")
    print(f"{'engine':<15} {'page':<34} {'accuracy':>8} {'conf':>5} {'s':>6} {'cpu s':>6}")
    summary: dict[str, tuple[list[float], list[float], list[float]]] = {}
    for label, img, ref in scans:  # engines take turns page by page: their s/page see the same load
        for name, read in engines.items():
            accs, secs, cpus = summary.setdefault(name, ([], [], []))
            t0, c0 = time.perf_counter(), cpu_seconds()
            text, conf = read(img)
            secs.append(time.perf_counter() - t0)
            cpus.append(cpu_seconds() - c0)
            accs.append(char_accuracy(text, ref))
            print(f"{name:<15} {label:<34} {accs[-1]:>8.3f} {conf:>5.2f} {secs[-1]:>6.2f} {cpus[-1]:>6.2f}")
    print()
    print(f"{'engine':<15} {'mean acc':>8} {'median':>8} {'min acc':>8} {'s/page':>7} {'cpu s/page':>10} "
          f"{'pages >= 0.95':>13}")
    for name, (accs, secs, cpus) in summary.items():
        good = sum(a >= 0.95 for a in accs)
        print(f"{name:<15} {statistics.fmean(accs):>8.3f} {statistics.median(accs):>8.3f} {min(accs):>8.3f} "
              f"{statistics.fmean(secs):>7.2f} {statistics.fmean(cpus):>10.2f} {good:>9} of {len(accs)}")
    print(load_note())
    if not REAL_SCAN.exists() or args.real_pages <= 0:
        return
    print(f"\nreal scan {REAL_SCAN.name} (no reference text): first {args.real_pages} pages at {args.dpi} DPI")
    doc = pdfium.PdfDocument(REAL_SCAN.read_bytes())
    print(f"{'page':>4} " + " ".join(f"{n + ' chars':>21} {'conf':>5} {'s':>6}" for n in engines) + "  agreement")
    for i in range(min(args.real_pages, len(doc))):
        img = doc[i].render(scale=args.dpi / 72).to_pil().convert("L")
        texts, cells = [], []
        for read in engines.values():
            t0 = time.perf_counter()
            text, conf = read(img)
            dt = time.perf_counter() - t0
            texts.append(text)
            cells.append(f"{len(norm(text)):>21} {conf:>5.2f} {dt:>6.2f}")
        agree = f"{char_accuracy(texts[0], texts[1]):>9.3f}" if len(texts) == 2 else ""
        print(f"{i + 1:>4} " + " ".join(cells) + f"  {agree}")
    print(load_note())


if __name__ == "__main__":
    main()

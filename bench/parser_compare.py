"""Compare pypdf and pypdfium2 on the shared corpus (quality and speed); prints tables.

Run from the repo root:  .cache/venv/bin/python bench/parser_compare.py [--repeat N]

Quality figures:
  * recall      - share of fixture truth strings (``question`` on ``question_page``,
                  ``answer_first_sentence`` on ``answer_start_page``) found in that page's
                  text once all whitespace is removed from both (corpus README rule);
  * doc recall  - the same against the whole document text;
  * garbage     - control chars / U+FFFD / (cid:N) characters (``garble_score``), and
                  private-use code points (HK characters that did not map, Word bullets);
  * bad files   - per corpus/bad PDF: page count + chars or the error, and wall time.
Speed: pages per second over fixtures + real PDFs (best of N runs, text extraction only).

Not a test; the figures and the pick are written down in services/parser/README.md.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import re
import time

from _common import ROOT

from services.parser.pdf_backends import BACKENDS, quiet_pypdf_logging
from services.parser.textquality import garble_score, is_private_use, normalise_text
from shared.errors import DocumentError

CORPUS = ROOT / ".." / "shared" / "corpus"
_WS = re.compile(r"\s+")
TIMEOUT_S = 20.0


def _nows(s: str) -> str:
    return _WS.sub("", s)


def _read_worker(name: str, data: bytes, conn) -> None:  # runs in a child process
    quiet_pypdf_logging()
    t0 = time.perf_counter()
    try:
        pages = BACKENDS[name].read(data)
        conn.send(("ok", [p.text for p in pages], time.perf_counter() - t0))
    except DocumentError as exc:
        conn.send(("error", f"DocumentError[{exc.code}]", time.perf_counter() - t0))
    except Exception as exc:  # noqa: BLE001 - the bench reports anything
        conn.send(("error", f"{type(exc).__name__}: {str(exc)[:60]}", time.perf_counter() - t0))


def read_guarded(name: str, data: bytes) -> tuple[str, object, float]:
    """Run backend ``name`` on ``data`` in a child with a wall-clock limit."""
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_read_worker, args=(name, data, child), daemon=True)
    proc.start()
    child.close()
    result = parent.recv() if parent.poll(TIMEOUT_S) else ("error", f"TIMEOUT>{TIMEOUT_S:.0f}s", TIMEOUT_S)
    proc.kill()
    proc.join()
    return result


def truth_checks(truth: dict) -> list[tuple[int, str]]:
    """(page, string) pairs that must be found on that page."""
    checks = []
    for item in truth.get("qa_pairs", []) + truth.get("others", []):
        checks.append((item["question_page"], item["question"]))
        checks.append((item["answer_start_page"], item["answer_first_sentence"]))
    return checks


def quality_table() -> None:
    print("\n## Fixture truth-string recall (whitespace removed)\n")
    print("| fixture | pages | checks | " + " | ".join(f"{n} page recall | {n} doc recall" for n in BACKENDS) + " |")
    print("|---|---|---|" + "---|---|" * len(BACKENDS))
    totals = {n: [0, 0] for n in BACKENDS}
    for truth_path in sorted((CORPUS / "fixtures").glob("*.truth.json")):
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        data = (CORPUS / "fixtures" / truth["file"]).read_bytes()
        checks = truth_checks(truth)
        cells = []
        for name in BACKENDS:
            status, texts, _ = read_guarded(name, data)
            if status != "ok":
                cells += [texts, ""]
                continue
            pages = [_nows(normalise_text(t)) for t in texts]
            whole = "".join(pages)
            hit_page = sum(1 for p, s in checks if _nows(s) in pages[p - 1])
            hit_doc = sum(1 for _, s in checks if _nows(s) in whole)
            totals[name][0] += hit_page
            totals[name][1] += len(checks)
            cells += [f"{hit_page}/{len(checks)}", f"{hit_doc}/{len(checks)}"]
        print(f"| {truth['file']} | {truth['pages']} | {len(checks)} | " + " | ".join(cells) + " |")
    print("\nTotal page recall: " + ", ".join(f"{n} {h}/{t} = {h / t:.3f}" for n, (h, t) in totals.items()))


def garbage_table() -> None:
    print("\n## Garbage characters (fixtures + real)\n")
    print("| file | " + " | ".join(f"{n} chars | {n} bad | {n} PUA" for n in BACKENDS) + " |")
    print("|---|" + "---|---|---|" * len(BACKENDS))
    for path in sorted((CORPUS / "fixtures").glob("*.pdf")) + sorted((CORPUS / "real").glob("*.pdf")):
        data = path.read_bytes()
        cells = []
        for name in BACKENDS:
            status, texts, _ = read_guarded(name, data)
            if status != "ok":
                cells += [texts, "", ""]
                continue
            text = "".join(normalise_text(t) for t in texts)
            rep = garble_score(text)
            pua = sum(1 for ch in text if is_private_use(ch))
            cells += [str(rep.visible_chars), str(rep.bad_chars), str(pua)]
        print(f"| {path.parent.name}/{path.name} | " + " | ".join(cells) + " |")


def shipped_table() -> None:
    """The shipped combination (pypdf first, per-page pypdfium2 fallback, garble check)."""
    from services.parser.pdf import extract_pdf_text
    from shared.settings import Settings

    quiet_pypdf_logging()
    print("\n## Shipped extract_pdf_text (pypdf + per-page pypdfium2 fallback)\n")
    print("| file | pages | chars | bad | scanned | extractor |")
    print("|---|---|---|---|---|---|")
    for path in sorted((CORPUS / "fixtures").glob("*.pdf")) + sorted((CORPUS / "real").glob("*.pdf")):
        result = extract_pdf_text(path.read_bytes(), Settings())
        text = "".join(p.text for p in result.pages)
        rep = garble_score(text)
        scanned = sum(p.scanned for p in result.pages)
        print(f"| {path.parent.name}/{path.name} | {len(result.pages)} | {rep.visible_chars} | "
              f"{rep.bad_chars} | {scanned} | {result.extractor} |")


def bad_table() -> None:
    print("\n## corpus/bad PDFs\n")
    print("| file | " + " | ".join(f"{n} result | {n} s" for n in BACKENDS) + " |")
    print("|---|" + "---|---|" * len(BACKENDS))
    for path in sorted((CORPUS / "bad").glob("*.pdf")):
        data = path.read_bytes()
        cells = []
        for name in BACKENDS:
            status, texts, secs = read_guarded(name, data)
            if status == "ok":
                joined = "".join(normalise_text(t) for t in texts)
                rep = garble_score(joined)
                desc = f"{len(texts)} p, {rep.visible_chars} chars"
                if rep.garbled:
                    desc += f", GARBLED {rep.score:.2f}"
            else:
                desc = str(texts)
            cells += [desc, f"{secs:.2f}"]
        print(f"| {path.name} | " + " | ".join(cells) + " |")


def speed_table(repeat: int) -> None:
    print(f"\n## Speed (fixtures + real PDFs, in-process, best of {repeat})\n")
    quiet_pypdf_logging()
    files = sorted((CORPUS / "fixtures").glob("*.pdf")) + sorted((CORPUS / "real").glob("*.pdf"))
    datas = [p.read_bytes() for p in files]
    print("| backend | pages | seconds | pages/s |")
    print("|---|---|---|---|")
    for name, backend in BACKENDS.items():
        best = float("inf")
        pages = 0
        for _ in range(repeat):
            t0 = time.perf_counter()
            pages = sum(len(backend.read(d)) for d in datas)
            best = min(best, time.perf_counter() - t0)
        print(f"| {name} | {pages} | {best:.2f} | {pages / best:.0f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    quality_table()
    garbage_table()
    shipped_table()
    bad_table()
    speed_table(args.repeat)


if __name__ == "__main__":
    main()

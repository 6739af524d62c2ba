"""Scaling benchmark of the two slow stages (not a test): the table stage with the vision path
and the embedder, each on 1, 2 and 4 replicas, against throttled fake OpenAI-compatible models,
so that the model — not the CPU — is what a replica waits for:

* vision: ``tests/fake_vision.py``, 1 s per page, pages served in parallel;
* embeddings: ``tests/fake_embeddings.py``, ``--rate`` texts per second per request (asyncio
  sleep, requests served in parallel; an embedder replica sends one request at a time, so each
  replica is capped at ``--rate`` texts/s), deterministic 384-float vectors.

For each replica count a fresh stack is started (``tests.infra.start_stack``: ``scripts/stack.sh
up`` with its own ``LEGCO_VAR`` and ``PORT_OFFSET``, ``VISION_WORKERS=N EMBEDDER_WORKERS=N``,
vision on and pointed at the fake, ``EMBEDDINGS_BASE_URL`` at the fake embeddings, one parser
and one splitter), and the same documents are uploaded through the gateway with the stack's
admin key:

* ``--vision-docs`` PDFs of 15 pages, every page sent to the vision model: the 14 scanned pages
  of ``real/hk_legco_sub_710-11_scanned_zh.pdf`` behind the first page of
  ``real/hk_isd_pr_remarks_sfs_media_session_en.pdf`` (a page with a text layer, so the parser
  accepts the document; it draws enough paths to be sent too), each copy's pages' crop boxes a
  point narrower than the last copy's, so no page image repeats and the vision cache never
  answers;
* ``--rounds`` copies of the fixtures' four DOCX papers and ``E_基礎設施.txt`` (token strategy,
  each copy its own file name).

Each stage is measured on its own, from a backlog. Vision: the splitter is stopped (nothing
reaches the embedder) and the fake vision model holds every call (``gate``) until the fan-out has
published every page's work; then it answers: **pages/s** = vision calls / (last answer − gate
opened). Embeddings: once every document is through the table stage, the fake embeddings hold
every request and the splitter is started; when every document's ``documents.chunked`` event is
published, the fake answers: **texts/s** = texts embedded / (last answer − gate opened). Both
wait at most a minute or so at the gate; the stack gets ``VISION_TIMEOUT_S`` and
``EMBEDDINGS_TIMEOUT_MIN_S`` of 300 s so no call times out meanwhile.

Documents are spread over the embedder replicas by document id, so their shares differ (with 29
documents on 4 replicas, e.g. 117, 76, 59 and 28 texts) and the replica with the most sets the
batch's time. The stage's throughput with N replicas that all have work is the sum of their
rates: **texts/s, sum of replicas** adds each replica's texts / (the time its
``legco_chunks_total{stage="embedding"}`` reached its final count − gate opened), polled every
0.5 s on each replica's ``/metrics``. The table stage's pages are spread over its workers in turn
(``shared.kafka.spread_partitioner``), so their shares differ by a page or two; **s/page** =
seconds × replicas / pages is the time one worker spent per page (1 s of it the model's).
Prints a table and the speed-ups 2/1 and 4/1.

Run: ``.cache/venv/bin/python bench/scaling.py`` (stacks on ``LEGCO_TEST_PORT_OFFSET``, default
10000, one after another; each stopped at the end). About 9 minutes on the shared machine.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import re
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field

from _common import CORPUS, ROOT, load_note, table

import httpx
import pypdfium2 as pdfium
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from shared import topics
from tests.e2e.helpers import wait_terminal
from tests.fake_embeddings import FakeEmbeddingsServer
from tests.fake_vision import FakeVisionServer
from tests.infra import OFFSET, Stack, start_stack, stop_stack, stop_stack_at

SCANNED = CORPUS / "real" / "hk_legco_sub_710-11_scanned_zh.pdf"
TEXT_PAGE = CORPUS / "real" / "hk_isd_pr_remarks_sfs_media_session_en.pdf"
PAPERS = [*sorted((CORPUS / "fixtures").glob("*.docx")), CORPUS / "fixtures" / "E_基礎設施.txt"]
ANSWER = "| 項目 | 內容 |\n| --- | --- |\n| 頁 | 甲 |\n"
CHUNKS = re.compile(r'^legco_chunks_total\{stage="embedding"\} ([0-9.e+]+)$', re.M)
VISION_OK = re.compile(r'^legco_vision_calls_total\{outcome="ok"\} ([0-9.e+]+)$', re.M)


def vision_pdf(copy: int) -> bytes:
    """One text page + the 14 scanned pages, each page's crop box ``copy`` points narrower."""
    out = pdfium.PdfDocument.new()
    out.import_pages(pdfium.PdfDocument(TEXT_PAGE.read_bytes()), [0])
    scanned = pdfium.PdfDocument(SCANNED.read_bytes())
    out.import_pages(scanned)
    for i in range(len(out)):
        left, bottom, right, top = out[i].get_mediabox()
        out[i].set_cropbox(left, bottom, right - copy, top)
    buf = io.BytesIO()
    out.save(buf)
    return buf.getvalue()


async def records_in(bootstrap: str, topic: str) -> int:
    """Records in ``topic`` (end − beginning offsets over its partitions)."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await admin.start()
    await consumer.start()
    try:
        described = await admin.describe_topics([topic])
        tps = [TopicPartition(topic, p["partition"]) for p in described[0]["partitions"]]
        end, start = await consumer.end_offsets(tps), await consumer.beginning_offsets(tps)
        return sum(end[tp] - start[tp] for tp in tps)
    finally:
        await consumer.stop()
        await admin.close()


def wait_records(stack: Stack, topic: str, count: int, timeout_s: float) -> None:
    """Until ``topic`` holds ``count`` records (raises ``TimeoutError`` after ``timeout_s``)."""
    deadline = time.monotonic() + timeout_s
    while (n := asyncio.run(records_in(stack.env["KAFKA_BOOTSTRAP"], topic))) < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{topic}: {n} of {count} records after {timeout_s:.0f} s")
        time.sleep(0.5)


def counter(port: int, pattern: re.Pattern[str]) -> float:
    """The sample of ``pattern`` on a replica's ``/metrics`` (0 when absent)."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    return sum(float(v) for v in pattern.findall(text))


@dataclass
class Poller:
    """Polls each embedder replica's embedded-chunks counter every ``every_s`` seconds."""

    ports: list[int]
    every_s: float = 0.5
    samples: list[tuple[float, list[float]]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> Poller:
        def run() -> None:
            while not self._stop.is_set():
                t = time.monotonic()
                with contextlib.suppress(httpx.HTTPError):
                    self.samples.append((t, [counter(p, CHUNKS) for p in self.ports]))
                self._stop.wait(self.every_s)

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join()

    def done_at(self) -> list[float | None]:
        """Per replica, when its counter reached its final value (``time.monotonic()``; ``None``:
        it did no work)."""
        if not self.samples:
            return []
        final = self.samples[-1][1]
        return [next(t for t, counts in self.samples if counts[r] >= last) if last > 0 else None
                for r, last in enumerate(final)]


@dataclass
class Run:
    replicas: int
    pages: int = 0
    vision_s: float = 0.0
    vision_per_replica: list[float] = field(default_factory=list)
    texts: int = 0
    embed_s: float = 0.0
    chunks_per_replica: list[float] = field(default_factory=list)
    rate_per_replica: list[float] = field(default_factory=list)

    @property
    def pages_per_s(self) -> float:
        return self.pages / self.vision_s if self.vision_s else float("nan")

    @property
    def s_per_page(self) -> float:
        return self.vision_s * self.replicas / self.pages if self.pages else float("nan")

    @property
    def texts_per_s(self) -> float:
        return self.texts / self.embed_s if self.embed_s else float("nan")

    @property
    def replicas_texts_per_s(self) -> float:
        return sum(self.rate_per_replica) if self.rate_per_replica else float("nan")


def measure(replicas: int, args: argparse.Namespace, vision: FakeVisionServer,
            embeddings: FakeEmbeddingsServer, pdfs: list[bytes]) -> Run:
    """One stack with ``replicas`` table-stage workers and embedders: the vision figure, then
    the embedding figure (see the module doc)."""
    env = {"VISION_ENABLED": "true", "VISION_BASE_URL": vision.base_url, "VISION_MODEL": f"fake-{uuid.uuid4().hex[:8]}",
           "RASTER_DPI": str(args.dpi), "EMBEDDINGS_BASE_URL": embeddings.base_url, "INGEST_NICE": "0",
           "VISION_TIMEOUT_S": "300", "EMBEDDINGS_TIMEOUT_MIN_S": "300", "LEGCO_SKIP_FRONTEND": "1",
           "VISION_WORKERS": str(replicas), "EMBEDDER_WORKERS": str(replicas)}
    run = Run(replicas)
    try:
        stack = start_stack(env, offset=args.offset)
    except subprocess.CalledProcessError:  # half up (a port taken, a service not healthy): stop what runs
        stop_stack_at(ROOT / "var" / f"test-stack-{args.offset}", {"PORT_OFFSET": str(args.offset), **env})
        raise
    try:
        with httpx.Client(base_url=stack.gateway_url, timeout=120, headers=stack.auth()) as api:
            stack.ctl("stop", "splitter")  # nothing reaches the embedder before the vision part is done
            vision.gate.clear()
            vision.image_log.clear()
            ids = []
            for k, pdf in enumerate(pdfs, start=1):
                r = api.post("/api/v1/ingest", params={"strategy": "token"}, files={"file": (f"scanned_{k}.pdf", pdf)})
                r.raise_for_status()
                ids.append(r.json()["document_id"])
            for n in range(1, args.rounds + 1):
                for path in PAPERS:
                    r = api.post("/api/v1/ingest", params={"strategy": "token"},
                                 files={"file": (f"r{n}_{path.name}", path.read_bytes())})
                    r.raise_for_status()
                    ids.append(r.json()["document_id"])
            wait_records(stack, topics.TABLE_PAGES, 15 * len(pdfs), 300)  # every page's work published
            opened = time.monotonic()
            vision.gate.set()
            wait_records(stack, topics.TABLES, len(ids), 600)  # every document through the table stage
            log = list(vision.image_log)
            run.pages, run.vision_s = len(log), max(end for _, end in log) - opened
            run.vision_per_replica = [counter(p, VISION_OK) for p in stack.ports("tables")]
            embeddings.hold()
            embeddings.log.clear()
            stack.ctl("start", "splitter")
            wait_records(stack, topics.CHUNKED, len(ids), 300)  # every document chunked, waiting at the embedders
            poller = Poller(stack.ports("embedder")).start()
            opened = time.monotonic()
            embeddings.release()
            records = wait_terminal(api, ids, timeout_s=900)
            time.sleep(1.0)
            poller.stop()
            failed = [r["error"] for r in records.values() if r["status"] != "indexed"]
            if failed:
                raise SystemExit(f"{len(failed)} documents failed: {failed[:3]}")
            elog = list(embeddings.log)
            run.texts, run.embed_s = sum(n for _, _, n in elog), max(e for _, e, _ in elog) - opened
            run.chunks_per_replica = poller.samples[-1][1] if poller.samples else []
            done = zip(run.chunks_per_replica, poller.done_at(), strict=True)
            run.rate_per_replica = [n / (t - opened) for n, t in done if t is not None]
    finally:
        stop_stack(stack)
    return run


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicas", default="1,2,4", help="replica counts to measure (comma-separated)")
    ap.add_argument("--vision-docs", type=int, default=4, help="15-page PDFs (every page to the vision model)")
    ap.add_argument("--rounds", type=int, default=5, help="copies of the 5 fixture papers to embed")
    ap.add_argument("--rate", type=float, default=5.0, help="texts/s of the fake embeddings per request stream")
    ap.add_argument("--vision-delay", type=float, default=1.0, help="seconds per page of the fake vision model")
    ap.add_argument("--dpi", type=int, default=72, help="RASTER_DPI of the page images")
    ap.add_argument("--offset", type=int, default=OFFSET, help="PORT_OFFSET of the stacks")
    args = ap.parse_args()
    counts = [int(x) for x in args.replicas.split(",")]
    pdfs = [vision_pdf(k) for k in range(1, args.vision_docs + 1)]
    vision = FakeVisionServer(ANSWER, delay_s=args.vision_delay).start()
    embeddings = FakeEmbeddingsServer(rate=args.rate).start()
    print(f"vision {args.vision_delay:g} s/page, embeddings {args.rate:g} texts/s per replica; {load_note()}",
          flush=True)
    runs: dict[int, Run] = {}
    try:
        for n in counts:
            t0 = time.monotonic()
            runs[n] = r = measure(n, args, vision, embeddings, pdfs)
            print(f"{n} replica(s): vision {r.pages} pages in {r.vision_s:.1f} s ({r.pages_per_s:.2f}/s, per replica "
                  f"{r.vision_per_replica}); embeddings {r.texts} texts in {r.embed_s:.1f} s ({r.texts_per_s:.2f}/s; "
                  f"per replica {r.chunks_per_replica} texts at {[round(x, 2) for x in r.rate_per_replica]}/s); "
                  f"stack {time.monotonic() - t0:.0f} s; {load_note()}", flush=True)
    finally:
        vision.stop()
        embeddings.stop()
    one = runs.get(1)

    def up(value: float, base: float | None) -> float:
        return value / base if base else float("nan")

    rows = [[n, r.pages, r.vision_s, r.s_per_page, r.pages_per_s, up(r.pages_per_s, one and one.pages_per_s),
             r.texts, r.embed_s, r.texts_per_s, up(r.texts_per_s, one and one.texts_per_s),
             r.replicas_texts_per_s, up(r.replicas_texts_per_s, one and one.replicas_texts_per_s)]
            for n, r in runs.items()]
    print(table(["replicas", "vision pages", "s", "s/page", "pages/s", "speed-up", "texts", "s", "texts/s", "speed-up",
                 "texts/s, sum of replicas", "speed-up"], rows))
    if one:
        for n, target in ((2, 1.8), (4, 3.2)):
            if n in runs:
                r = runs[n]
                print(f"{n}/1: vision {up(r.pages_per_s, one.pages_per_s):.2f}x; embeddings "
                      f"{up(r.replicas_texts_per_s, one.replicas_texts_per_s):.2f}x (sum of replicas), "
                      f"{up(r.texts_per_s, one.texts_per_s):.2f}x (the batch's time); target >= {target}x")
    print(load_note())
    return 0


if __name__ == "__main__":
    sys.exit(main())

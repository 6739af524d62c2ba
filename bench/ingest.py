"""Ingest throughput of the running stack against one-process peers and the embedder's limit.

Run from the repo root (stack up):
    .cache/venv/bin/python bench/ingest.py [--strategy token|question] [--runs 1] [--direct-runs 1]
                                           [--no-peers] [--var DIR]

Everything below is measured in one run, one after another, on ``../shared/corpus/real`` (9 PDFs;
the 14-page scanned one has no text layer: the stack rejects it, and the peers and the limit
leave out the documents the stack rejected, so 121 pages count everywhere):

* **stack** — every PDF uploaded through the gateway API (earlier copies with the same filename
  deleted first), following the SSE stream of document records. pages/s = pages indexed / wall
  time from the first upload to the last document's terminal record (``updated_at``). Stage
  medians over the documents from the records' ``updated_at``: queue (uploaded -> first
  ``parsing``), parsing, tables (last ``parsing`` -> first ``splitting``), splitting, embedding
  (last ``splitting`` -> ``indexed``), total. **e5 utilisation** = the e5 server's busy seconds
  (``legco_e5_busy_seconds_total``, read from its ``/health`` every 0.5 s) / the run's wall time,
  with the idle seconds before its first and after its last computation; with ``--var`` (the
  stack's ``LEGCO_VAR``) also the CPU seconds of every program of the stack over the run.
* **direct** (``--direct-runs``) — the same files through ``cli.pipeline.index_file`` in this
  process, one after another (parse -> tables -> split -> embed -> Chroma).
* **seed peer** — the seed's recipe (``../shared/seeds``: ``parse_pdf_by_page`` + ``chunk_pages``)
  in this process: pypdf ``extract_text`` per page; one chunk per page = the last 200
  cl100k_base tokens of the previous page + the page + the first 200 of the next, joined by
  newlines; every chunk embedded whole; stored with a Chroma upsert, document by document.
* **naive peer** — pypdf text of the whole document, ``RecursiveCharacterTextSplitter``
  (``langchain-text-splitters``) chunks of 1,000 characters with 200 overlap, embedded and
  stored the same way.
  Both peers embed through ``EmbeddingClient.embed_passages`` against the same e5 endpoint, with
  the same request bounds (``EMBEDDINGS_BATCH_TOKENS`` e5 tokens, ``EMBEDDINGS_BATCH_SIZE``
  texts), one request at a time, into a throwaway collection on the same Chroma (deleted after).
* **limit** — the texts that must be embedded: every character of the corpus once, i.e. the
  text of each of the 121 pages as the pipeline reads it (the parser's text layer, tables as
  markdown; ``cli.pipeline.run_pipeline``, token strategy), without anything repeated from a
  neighbour, normalised for search like every embedded text (``chunk_search_text``); pages
  with no content (blank, a bare page number) are left out. They are embedded with the same
  request bounds, two requests in flight, and the e5 server's tokens/s is their e5 tokens / its
  busy seconds for them. limit pages/s = pages / (their tokens / that tokens/s).

Printed: pages/s of each, the stack's ratios to each, e5 tokens each system had computed, and
the load average before and after.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from _common import CORPUS, ROOT, load_note, median, table

import httpx

from cli import api
from cli.sse import DocumentStream
from cli.tracking import DocProgress, Tracker
from shared.settings import ClientSettings, Settings

STAGES = ("queue", "parsing", "tables", "splitting", "embedding", "total")
DIRECT_STAGES = ("parsing", "tables", "splitting", "embedding")  # what the direct run times
PAGE_OVERLAP_TOKENS = 200        # the seed's chunk_pages(overlap_tokens=200)
NAIVE_CHUNK_CHARS, NAIVE_OVERLAP_CHARS = 1000, 200


@dataclass
class E5Use:
    """What the e5 server computed during a run: busy seconds, e5 tokens, and when (seconds
    from the run's start) it first and last computed."""

    busy_s: float = 0.0
    tokens: float = 0.0
    first_s: float = float("nan")
    last_s: float = float("nan")
    samples: list[tuple[float, float]] = field(default_factory=list)  # (seconds from start, busy s)

    def tenths(self, wall_s: float) -> list[float]:
        """Utilisation (busy / wall) in each tenth of the run, from the samples."""
        if len(self.samples) < 2 or wall_s <= 0:
            return []
        out = []
        for k in range(10):
            a, b = wall_s * k / 10, wall_s * (k + 1) / 10
            out.append((busy_at(self.samples, b) - busy_at(self.samples, a)) / (b - a))
        return out


def busy_at(samples: list[tuple[float, float]], t: float) -> float:
    """Busy seconds at time ``t``, linearly interpolated between the samples around it."""
    for (t0, b0), (t1, b1) in zip(samples, samples[1:], strict=False):
        if t0 <= t <= t1:
            return b0 + (b1 - b0) * ((t - t0) / (t1 - t0) if t1 > t0 else 1.0)
    return samples[-1][1] if t > samples[-1][0] else samples[0][1]


class E5Meter:
    """Reads the e5 server's counters (``GET /health``: busy seconds, tokens) and samples them
    while a run goes on."""

    def __init__(self, embeddings_base_url: str) -> None:
        self.url = embeddings_base_url.rstrip("/").removesuffix("/v1") + "/health"

    def read(self) -> dict[str, float]:
        r = httpx.get(self.url, timeout=10)
        r.raise_for_status()
        return dict(r.json()["requests"])

    def start(self) -> None:
        """Start sampling (every 0.5 s, in a task of the running loop)."""
        self.t0 = time.time()
        self.c0 = self.read()
        self.use = E5Use(samples=[(0.0, 0.0)])
        self._task = asyncio.get_running_loop().create_task(self._sample())

    async def _sample(self) -> None:
        async with httpx.AsyncClient(timeout=10) as client:
            while True:
                await asyncio.sleep(0.5)
                c = (await client.get(self.url)).json()["requests"]
                now, busy = time.time() - self.t0, c["busy_seconds"] - self.c0["busy_seconds"]
                if busy > self.use.samples[-1][1] + 1e-3:
                    if self.use.first_s != self.use.first_s:  # nan: the first computation
                        self.use.first_s = self.use.samples[-1][0]
                    self.use.last_s = now
                self.use.samples.append((now, busy))

    async def stop(self) -> E5Use:
        """Stop sampling; the use since ``start``."""
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        c = self.read()
        self.use.busy_s = c["busy_seconds"] - self.c0["busy_seconds"]
        self.use.tokens = c["tokens"] - self.c0["tokens"]
        self.use.samples.append((time.time() - self.t0, self.use.busy_s))
        return self.use


def stack_programs(var: Path) -> dict[str, list[int]]:
    """Program (``parser``, ``e5`` …: a worker stage's replicas together) -> pids of the running
    stack whose ``LEGCO_VAR`` is ``var`` (``scripts/stack.sh status``)."""
    out = subprocess.run(["bash", str(ROOT / "scripts" / "stack.sh"), "status"], capture_output=True, text=True,
                         env={**os.environ, "LEGCO_VAR": str(var)}, check=False).stdout
    progs: dict[str, list[int]] = {}
    for name, pid in re.findall(r"^(\S+)\s+RUNNING\s+pid (\d+)", out, re.M):
        progs.setdefault(name.split(":")[0], []).append(int(pid))
    return progs


def tree_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid``, its live descendants and every child
    they reaped (a parse child, pdfplumber's child) since they started."""
    tick = os.sysconf("SC_CLK_TCK")
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15]) / tick   # utime stime cutime cstime
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, IndexError, ValueError):
            continue
    return total


def cpu_by_program(var: Path | None) -> dict[str, float]:
    """CPU seconds so far of every program of the stack (``{}`` without ``var``)."""
    if var is None:
        return {}
    return {name: sum(tree_cpu_s(p) for p in pids) for name, pids in stack_programs(var).items()}


@dataclass
class RunResult:
    """One run: wall seconds, pages indexed, per-document stage seconds, failures, and what the
    e5 server computed meanwhile."""

    wall_s: float
    pages: int
    stage_s: dict[str, list[float]] = field(default_factory=lambda: {s: [] for s in STAGES})
    failed: list[str] = field(default_factory=list)
    e5: E5Use = field(default_factory=E5Use)
    cpu_s: dict[str, float] = field(default_factory=dict)
    timeline: list[tuple[str, dict[str, float]]] = field(default_factory=list)
    """Per indexed document in upload order: its filename and when (seconds after the run's
    start) its stages began (``timeline_of``)."""

    @property
    def pages_per_s(self) -> float:
        return self.pages / self.wall_s if self.wall_s > 0 else float("nan")


def ts(record: dict) -> float:
    """A document record's ``updated_at`` (ISO-8601) as seconds since the epoch."""
    return datetime.fromisoformat(record["updated_at"]).timestamp()


def stage_records(doc: DocProgress) -> dict[str, list[float]]:
    """When (seconds since the epoch, in order of receipt) each of the document's records of
    stage uploaded, parsing, splitting and indexed was written."""
    ev = [r.data for r in doc.events if r.event == "document" and r.data.get("updated_at")]
    return {s: [ts(e) for e in ev if e.get("stage") == s] for s in ("uploaded", "parsing", "splitting", "indexed")}


def stage_times(doc: DocProgress) -> dict[str, float]:
    """Stage durations (seconds) of one indexed document from the records received; stages
    whose records are missing (e.g. lost on an SSE reconnect) are left out."""
    by = stage_records(doc)
    out: dict[str, float] = {}
    up, pa, sp, ix = by["uploaded"], by["parsing"], by["splitting"], by["indexed"]
    if up and pa:
        out["queue"] = pa[0] - up[0]
    if pa:
        out["parsing"] = pa[-1] - pa[0]
    if pa and sp:
        out["tables"] = sp[0] - pa[-1]
    if sp:
        out["splitting"] = sp[-1] - sp[0]
    if sp and ix:
        out["embedding"] = ix[0] - sp[-1]
    if up and ix:
        out["total"] = ix[0] - up[0]
    return out


def timeline_of(doc: DocProgress, t0: float) -> dict[str, float]:
    """When (seconds after ``t0``, epoch seconds) the document was uploaded, began parsing, began
    the table stage (its last parsing record), began splitting and was indexed; stages whose
    records are missing are left out."""
    by = stage_records(doc)
    at = {"uploaded": by["uploaded"][:1], "parsing": by["parsing"][:1], "tables": by["parsing"][-1:],
          "splitting": by["splitting"][:1], "indexed": by["indexed"][:1]}
    return {k: v[0] - t0 for k, v in at.items() if v}


def terminal_time(doc: DocProgress) -> float:
    """When the document finished: its terminal record's ``updated_at``, else the receipt time
    of its last event, else now (seconds since the epoch)."""
    for r in reversed(doc.events):
        if r.data.get("status") in ("indexed", "failed") and r.data.get("updated_at"):
            return ts(r.data)
    return doc.events[-1].received_at if doc.events else time.time()


async def pipeline_run(url: str, files: list[Path], strategy: str, timeout_s: float,
                       client_settings: ClientSettings, meter: E5Meter, var: Path | None) -> RunResult:
    """Upload ``files`` through the gateway and wait until all are indexed or failed; the e5
    server's use and the stack's CPU over the run."""
    async with api.make_client(url, client_settings) as client:
        names = {f.name for f in files}
        for d in (await api.list_documents(client))["documents"]:
            if d["filename"] in names:
                await api.delete_document(client, d["document_id"])
        await asyncio.sleep(2.0)  # the deletes' own work (Chroma, MinIO) is not the run's
        stream = DocumentStream(client, client_settings)
        if not await stream.start():
            raise SystemExit("no SSE document stream from the gateway")
        tracker = Tracker(client, stream, poll_s=client_settings.poll_interval_s)
        cpu0 = cpu_by_program(var)
        meter.start()
        t0 = meter.t0
        runner = asyncio.create_task(tracker.run(timeout_s))
        try:
            for f in files:
                r = await api.upload(client, f, strategy)
                tracker.add(r["document_id"], r["filename"])
            tracker.uploads_done.set()
            if not await runner:
                raise SystemExit(f"pipeline did not finish within {timeout_s:.0f} s")
        finally:
            await stream.close()
        e5 = await meter.stop()
        cpu1 = cpu_by_program(var)
        docs = list(tracker.docs.values())
        t_end = max(terminal_time(d) for d in docs)
        result = RunResult(wall_s=t_end - t0, pages=0, e5=e5,
                           cpu_s={k: cpu1[k] - cpu0.get(k, 0.0) for k in cpu1})
        for d in docs:
            if d.status != "indexed":
                result.failed.append(f"{d.filename}: {d.error}")
                continue
            rec = await api.get_document(client, d.document_id)
            result.pages += rec.get("page_count") or 0
            for stage, secs in stage_times(d).items():
                result.stage_s[stage].append(secs)
            result.timeline.append((d.filename, timeline_of(d, t0)))
        return result


def throwaway_collection(settings: Settings) -> tuple[object, object]:
    """(client, collection): a new cosine collection on the stack's Chroma; delete it after."""
    import chromadb

    chroma = chromadb.HttpClient(host=settings.chroma_host, port=settings.chroma_port)
    coll = chroma.create_collection(f"bench_{uuid.uuid4().hex[:12]}", embedding_function=None,
                                    metadata={"hnsw:space": "cosine"})
    return chroma, coll


async def direct_run(files: list[Path], strategy: str, settings: Settings, meter: E5Meter) -> RunResult:
    """Parse, read tables, split, embed and store ``files`` sequentially in this process with
    ``cli.pipeline.index_file`` (throwaway Chroma collection, deleted at the end)."""
    from cli.pipeline import IndexTarget, index_file
    from shared.embeddings import EmbeddingClient

    chroma, coll = throwaway_collection(settings)
    target = IndexTarget(EmbeddingClient(settings), coll)
    result = RunResult(wall_s=0.0, pages=0)
    meter.start()
    t0 = time.perf_counter()
    try:
        for f in files:
            run = await index_file(f, strategy, settings, target, uuid.uuid4().hex)
            for stage, secs in run.seconds.items():
                result.stage_s[stage].append(secs)
            if run.chunks is None:
                result.failed.append(f"{f.name}: no text layer")
                continue
            result.pages += run.parsed.page_count
        result.wall_s = time.perf_counter() - t0
    finally:
        result.e5 = await meter.stop()
        chroma.delete_collection(coll.name)  # type: ignore[attr-defined]
    return result


Recipe = Callable[[Path], "tuple[int, list[str]] | None"]
"""A peer's chunking: a PDF -> (its pages, the texts to embed), ``None`` without a text layer."""


def pypdf_pages(pdf: Path) -> list[str]:
    """pypdf's ``extract_text`` of every page (the seed's ``parse_pdf_by_page``)."""
    from pypdf import PdfReader

    return [page.extract_text() or "" for page in PdfReader(pdf).pages]


def seed_recipe(pdf: Path) -> tuple[int, list[str]] | None:
    """The seed's ``chunk_pages``: per page, the last 200 tokens of the previous page + the page
    + the first 200 tokens of the next, newline-joined (cl100k_base, the splitter's offline copy)."""
    from services.splitter.tokens import get_encoding

    pages = pypdf_pages(pdf)
    if not any(t.strip() for t in pages):
        return None
    enc = get_encoding()
    tokens = [enc.encode(t, disallowed_special=()) for t in pages]
    chunks = []
    for i, text in enumerate(pages):
        parts = []
        if i > 0 and tokens[i - 1]:
            parts.append(enc.decode(tokens[i - 1][-PAGE_OVERLAP_TOKENS:]))
        parts.append(text)
        if i + 1 < len(pages) and tokens[i + 1]:
            parts.append(enc.decode(tokens[i + 1][:PAGE_OVERLAP_TOKENS]))
        chunks.append("\n".join(parts))
    return len(pages), chunks


def naive_recipe(pdf: Path) -> tuple[int, list[str]] | None:
    """pypdf text of the whole document in 1,000-character chunks with 200 overlap
    (``RecursiveCharacterTextSplitter``)."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    pages = pypdf_pages(pdf)
    text = "\n".join(pages)
    if not text.strip():
        return None
    splitter = RecursiveCharacterTextSplitter(chunk_size=NAIVE_CHUNK_CHARS, chunk_overlap=NAIVE_OVERLAP_CHARS)
    return len(pages), splitter.split_text(text)


async def peer_run(files: list[Path], recipe: Recipe, settings: Settings, meter: E5Meter) -> RunResult:
    """One process, one document after another: ``recipe``, embed every text
    (``EmbeddingClient.embed_passages``, the same request bounds), upsert into a throwaway
    collection."""
    from shared.embeddings import EmbeddingClient

    chroma, coll = throwaway_collection(settings)
    client = EmbeddingClient(settings)
    result = RunResult(wall_s=0.0, pages=0)
    meter.start()
    t0 = time.perf_counter()
    try:
        for n, f in enumerate(files):
            got = recipe(f)
            if got is None:
                result.failed.append(f"{f.name}: no text layer")
                continue
            pages, texts = got
            vectors = await client.embed_passages(texts)
            coll.upsert(ids=[f"{n}_{i}" for i in range(len(texts))], embeddings=vectors,  # type: ignore[attr-defined]
                        documents=texts)
            result.pages += pages
        result.wall_s = time.perf_counter() - t0
    finally:
        result.e5 = await meter.stop()
        chroma.delete_collection(coll.name)  # type: ignore[attr-defined]
    return result


def limit_texts(files: list[Path], settings: Settings) -> tuple[int, list[str]]:
    """(pages, texts): every character of the corpus once — each page's text as the pipeline
    reads it, without the overlap repeated from its neighbours, normalised for search; pages of
    documents without a text layer are not counted."""
    from cli.pipeline import run_pipeline
    from services.splitter.highlight import own_text
    from shared.textnorm import normalize_for_search

    pages, texts = 0, []
    for f in files:
        run = run_pipeline(f, "token", settings, stop_without_text_layer=True)
        if run.chunks is None:
            continue
        pages += run.parsed.page_count
        texts += [normalize_for_search(own_text(c)) for c in run.chunks.chunks if c.text.strip()]
    return pages, texts


async def limit_run(files: list[Path], settings: Settings, meter: E5Meter) -> RunResult:
    """The limit texts embedded with the same request bounds; wall_s = the e5 server's busy
    seconds for them (its pure computing time: the limit)."""
    from services.embedder.batcher import FairBatcher
    from shared.embeddings import EmbeddingClient

    pages, texts = await asyncio.to_thread(limit_texts, files, settings)
    client = EmbeddingClient(settings)
    batcher = FairBatcher(client.embed_passages, settings.embeddings_batch_size, in_flight=2,
                          max_tokens=settings.embeddings_batch_tokens)
    counts = await asyncio.to_thread(client.counter.counts, texts)
    meter.start()
    t0 = time.perf_counter()
    try:
        await batcher.embed_passages(texts, counts, key="limit")
        wall = time.perf_counter() - t0
    finally:
        await batcher.close()
        use = await meter.stop()
    result = RunResult(wall_s=use.busy_s, pages=pages, e5=use)
    result.stage_s["total"] = [wall]
    return result


def fmt(x: float) -> str:
    return "-" if x != x else f"{x:.2f}"


def print_stack(r: RunResult, label: str) -> None:
    """One stack run: e5 utilisation, where it idled, CPU by program."""
    u = r.e5
    print(f"{label}: {r.pages} pages indexed in {r.wall_s:.1f} s ({r.pages_per_s:.2f} pages/s); "
          f"not indexed: {'; '.join(r.failed) or 'none'}")
    print(f"  e5 busy {u.busy_s:.1f} s of {r.wall_s:.1f} s: utilisation {u.busy_s / r.wall_s:.1%}; "
          f"{u.tokens:.0f} e5 tokens ({u.tokens / u.busy_s if u.busy_s else float('nan'):.0f} tokens/s busy); "
          f"idle before its first computation {u.first_s:.1f} s, after its last {r.wall_s - u.last_s:.1f} s")
    tenths = u.tenths(r.wall_s)
    if tenths:
        print("  e5 utilisation by tenth of the run: " + " ".join(f"{x:.0%}" for x in tenths))
    if r.cpu_s:
        top = sorted(r.cpu_s.items(), key=lambda kv: -kv[1])
        print("  CPU seconds over the run: " + ", ".join(f"{k} {v:.1f}" for k, v in top if v >= 0.05))
    if r.timeline:
        cols = ("uploaded", "parsing", "tables", "splitting", "indexed")
        print("  timeline (s after the first upload; tables = the last parsing record):")
        print("    " + f"{'document':36}" + "".join(f"{c:>10}" for c in cols))
        for name, t in sorted(r.timeline, key=lambda nt: nt[1].get("uploaded", 0.0)):
            print("    " + f"{name[:36]:36}" + "".join(f"{t[c]:>10.1f}" if c in t else f"{'-':>10}" for c in cols))


def main() -> None:
    """Parse the flags, run the stack, the direct run, the peers and the limit; print the tables."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--url", default=None, help="gateway URL (default $LEGCO_URL or http://localhost:8080)")
    ap.add_argument("--runs", type=int, default=1, help="stack runs (default 1)")
    ap.add_argument("--direct-runs", type=int, default=1, help="in-process pipeline runs (default 1)")
    ap.add_argument("--no-peers", action="store_true", help="skip the seed and naive peers and the limit")
    ap.add_argument("--strategy", choices=("token", "question"), default="token")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per stack run")
    ap.add_argument("--var", type=Path, default=Path(os.environ["LEGCO_VAR"]) if os.environ.get("LEGCO_VAR") else None,
                    help="the stack's LEGCO_VAR, for CPU seconds by program (default $LEGCO_VAR)")
    a = ap.parse_args()
    client_settings = ClientSettings()
    url = api.resolve_url(a.url, client_settings)
    files = sorted((CORPUS / "real").glob("*.pdf"))
    settings = Settings()
    meter = E5Meter(settings.embeddings_base_url)
    print(f"{len(files)} PDFs from {CORPUS / 'real'}, strategy {a.strategy}; {load_note()}")
    stack: list[RunResult] = []
    for i in range(a.runs):
        r = asyncio.run(pipeline_run(url, files, a.strategy, a.timeout, client_settings, meter, a.var))
        print_stack(r, f"stack run {i + 1}")
        stack.append(r)
    direct = []
    for i in range(a.direct_runs):
        r = asyncio.run(direct_run(files, a.strategy, settings, meter))
        print(f"direct run {i + 1}: {r.pages} pages in {r.wall_s:.1f} s ({r.pages_per_s:.2f} pages/s)")
        direct.append(r)
    peers: dict[str, RunResult] = {}
    if not a.no_peers:
        # the documents the stack indexed: the scanned submission has a line of text on its first
        # page, which pypdf returns, but no text layer for the parser (every system leaves it out)
        rejected = {line.split(":")[0] for r in stack for line in r.failed}
        indexed = [f for f in files if f.name not in rejected]
        # the limit first, then the cheaper peer: each result is printed as soon as it is known
        peers["limit"] = r = asyncio.run(limit_run(indexed, settings, meter))
        print(f"limit: {r.e5.tokens:.0f} e5 tokens in {r.e5.busy_s:.1f} s busy "
              f"({r.e5.tokens / r.e5.busy_s:.0f} tokens/s; wall {r.stage_s['total'][0]:.1f} s): "
              f"{r.pages_per_s:.2f} pages/s; the stack {stack[0].pages_per_s / r.pages_per_s:.2f}x; {load_note()}")
        for name, recipe in (("naive peer", naive_recipe), ("seed peer", seed_recipe)):
            peers[name] = r = asyncio.run(peer_run(indexed, recipe, settings, meter))
            print(f"{name}: {r.pages} pages in {r.wall_s:.1f} s ({r.pages_per_s:.2f} pages/s; "
                  f"{r.e5.tokens:.0f} e5 tokens); the stack {stack[0].pages_per_s / r.pages_per_s:.2f}x; {load_note()}")

    s_wall = median([r.wall_s for r in stack])
    s_pps = median([r.pages_per_s for r in stack])
    rows: list[list[object]] = [["stack", stack[0].pages, fmt(s_wall), fmt(s_pps),
                                 f"{median([r.e5.tokens for r in stack]):.0f}", "1.00"]]
    if direct:
        d = median([r.pages_per_s for r in direct])
        rows.append(["direct (cli.pipeline)", direct[0].pages, fmt(median([r.wall_s for r in direct])), fmt(d),
                     f"{median([r.e5.tokens for r in direct]):.0f}", fmt(s_pps / d)])
    for name, r in sorted(peers.items()):
        rows.append([name, r.pages, fmt(r.wall_s), fmt(r.pages_per_s), f"{r.e5.tokens:.0f}",
                     fmt(s_pps / r.pages_per_s)])
    print()
    print(f"strategy {a.strategy}; {load_note()}")
    print(table(["system", "pages", "wall s", "pages/s", "e5 tokens", "stack / this"], rows))
    util = median([r.e5.busy_s / r.wall_s for r in stack])
    print(f"\ne5 utilisation during the stack run (busy / wall): {util:.1%}"
          + ("; the limit's wall s is the e5 server's busy time for its texts" if peers else ""))

    def stage_median(runs: list[RunResult], stage: str) -> float:
        return median([median(r.stage_s[stage]) for r in runs if r.stage_s[stage]])
    print()
    print(table(["s/doc (median)", "stack", "direct"], [
        [s, fmt(stage_median(stack, s)), fmt(stage_median(direct, s)) if direct and s in DIRECT_STAGES else "-"]
        for s in STAGES]))


if __name__ == "__main__":
    main()

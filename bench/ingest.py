"""End-to-end ingest throughput of the running stack vs the same work in one plain process.

Run from the repo root (stack up):  .cache/venv/bin/python bench/ingest.py [--runs 1] [--direct-runs 1]

Pipeline run: every PDF of ``../shared/corpus/real`` is uploaded through the gateway API (earlier
copies with the same filename are deleted first), following the SSE stream of document records
(subscribed before the first upload). Figures:
  * pages/s      - pages of the documents that got indexed / wall time from the first upload
                   to the last document's terminal record (``updated_at`` of ``indexed``/``failed``);
  * stage medians over the documents, from the ``updated_at`` of the records received:
      queue      uploaded -> first ``parsing`` record,
      parsing    first -> last ``parsing`` record (isolated parse + page PDFs to MinIO),
      tables     last ``parsing`` -> first ``splitting`` record (page fan-out, pdfplumber per
                 page, Kafka hops),
      splitting  first -> last ``splitting`` record,
      embedding  last ``splitting`` -> ``indexed`` (Kafka hop + embed + Chroma upsert),
      total      uploaded -> ``indexed``.
Direct run: the same files, one after another in this process, through the one in-process
pipeline ``cli.pipeline.index_file``: parse -> tables (pdfplumber) -> split ->
``EmbeddingClient.embed_passages`` (same embeddings endpoint) -> ``chromadb`` upsert into a
throwaway collection on the same Chroma server (deleted after). It includes the table step since
it runs through that pipeline (figures measured before it did not). Files the pipeline rejects
(no text layer) are parsed but not chunked, as the parser service does.
Overhead ratio = pipeline wall time / direct wall time (medians over the runs).
"""
from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from _common import CORPUS, load_note, median, table

from cli import api
from cli.sse import DocumentStream
from cli.tracking import DocProgress, Tracker
from shared.settings import ClientSettings, Settings

STAGES = ("queue", "parsing", "tables", "splitting", "embedding", "total")
DIRECT_STAGES = ("parsing", "tables", "splitting", "embedding")  # what the direct run times


@dataclass
class RunResult:
    """One run: wall seconds, pages indexed, per-document stage seconds, failures."""

    wall_s: float
    pages: int
    stage_s: dict[str, list[float]] = field(default_factory=lambda: {s: [] for s in STAGES})
    failed: list[str] = field(default_factory=list)


def ts(record: dict) -> float:
    """A document record's ``updated_at`` (ISO-8601) as seconds since the epoch."""
    return datetime.fromisoformat(record["updated_at"]).timestamp()


def stage_times(doc: DocProgress) -> dict[str, float]:
    """Stage durations (seconds) of one indexed document from the records received; stages
    whose records are missing (e.g. lost on an SSE reconnect) are left out."""
    ev = [r.data for r in doc.events if r.event == "document" and r.data.get("updated_at")]
    by = {s: [e for e in ev if e.get("stage") == s] for s in ("uploaded", "parsing", "splitting", "indexed")}
    out: dict[str, float] = {}
    up, pa, sp, ix = by["uploaded"], by["parsing"], by["splitting"], by["indexed"]
    if up and pa:
        out["queue"] = ts(pa[0]) - ts(up[0])
    if pa:
        out["parsing"] = ts(pa[-1]) - ts(pa[0])
    if pa and sp:
        out["tables"] = ts(sp[0]) - ts(pa[-1])
    if sp:
        out["splitting"] = ts(sp[-1]) - ts(sp[0])
    if sp and ix:
        out["embedding"] = ts(ix[0]) - ts(sp[-1])
    if up and ix:
        out["total"] = ts(ix[0]) - ts(up[0])
    return out


def terminal_time(doc: DocProgress) -> float:
    """When the document finished: its terminal record's ``updated_at``, else the receipt time
    of its last event, else now (seconds since the epoch)."""
    for r in reversed(doc.events):
        if r.data.get("status") in ("indexed", "failed") and r.data.get("updated_at"):
            return ts(r.data)
    return doc.events[-1].received_at if doc.events else time.time()


async def pipeline_run(url: str, files: list[Path], strategy: str, timeout_s: float,
                       client_settings: ClientSettings) -> RunResult:
    """Upload ``files`` through the gateway and wait until all are indexed or failed."""
    async with api.make_client(url, client_settings) as client:
        names = {f.name for f in files}
        for d in (await api.list_documents(client))["documents"]:
            if d["filename"] in names:
                await api.delete_document(client, d["document_id"])
        stream = DocumentStream(client, client_settings)
        if not await stream.start():
            raise SystemExit("no SSE document stream from the gateway")
        tracker = Tracker(client, stream, poll_s=client_settings.poll_interval_s)
        runner = asyncio.create_task(tracker.run(timeout_s))
        t0 = time.time()
        try:
            for f in files:
                r = await api.upload(client, f, strategy)
                tracker.add(r["document_id"], r["filename"])
            tracker.uploads_done.set()
            if not await runner:
                raise SystemExit(f"pipeline did not finish within {timeout_s:.0f} s")
        finally:
            await stream.close()
        docs = list(tracker.docs.values())
        t_end = max(terminal_time(d) for d in docs)
        result = RunResult(wall_s=t_end - t0, pages=0)
        for d in docs:
            if d.status != "indexed":
                result.failed.append(f"{d.filename}: {d.error}")
                continue
            rec = await api.get_document(client, d.document_id)
            result.pages += rec.get("page_count") or 0
            for stage, secs in stage_times(d).items():
                result.stage_s[stage].append(secs)
        return result


async def direct_run(files: list[Path], strategy: str, settings: Settings) -> RunResult:
    """Parse, read tables, split, embed and store ``files`` sequentially in this process with
    ``cli.pipeline.index_file`` (throwaway Chroma collection, deleted at the end)."""
    import chromadb

    from cli.pipeline import IndexTarget, index_file
    from shared.embeddings import EmbeddingClient

    chroma = chromadb.HttpClient(host=settings.chroma_host, port=settings.chroma_port)
    name = f"bench_direct_{uuid.uuid4().hex[:12]}"
    coll = chroma.create_collection(name, embedding_function=None, metadata={"hnsw:space": "cosine"})
    target = IndexTarget(EmbeddingClient(settings), coll)
    result = RunResult(wall_s=0.0, pages=0)
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
        chroma.delete_collection(name)
    return result


def fmt(x: float) -> str:
    return "-" if x != x else f"{x:.2f}"


def main() -> None:
    """Parse the flags, run the pipeline and direct runs, print the tables."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None, help="gateway URL (default $LEGCO_URL or http://localhost:8080)")
    ap.add_argument("--runs", type=int, default=1, help="pipeline runs (default 1)")
    ap.add_argument("--direct-runs", type=int, default=1, help="in-process runs (default 1)")
    ap.add_argument("--strategy", choices=("token", "question"), default="token")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per pipeline run")
    a = ap.parse_args()
    client_settings = ClientSettings()
    url = api.resolve_url(a.url, client_settings)
    files = sorted((CORPUS / "real").glob("*.pdf"))
    settings = Settings()
    print(f"{len(files)} PDFs from {CORPUS / 'real'}, strategy {a.strategy}; {load_note()}")
    pipe = []
    for i in range(a.runs):
        r = asyncio.run(pipeline_run(url, files, a.strategy, a.timeout, client_settings))
        print(f"pipeline run {i + 1}: {r.pages} pages indexed in {r.wall_s:.1f} s "
              f"({r.pages / r.wall_s:.2f} pages/s); not indexed: {'; '.join(r.failed) or 'none'}")
        pipe.append(r)
    direct = []
    for i in range(a.direct_runs):
        r = asyncio.run(direct_run(files, a.strategy, settings))
        print(f"direct run {i + 1}: {r.pages} pages in {r.wall_s:.1f} s ({r.pages / r.wall_s:.2f} pages/s)")
        direct.append(r)
    p_wall, d_wall = median([r.wall_s for r in pipe]), median([r.wall_s for r in direct])
    p_pages, d_pages = pipe[0].pages, direct[0].pages

    def stage_median(runs: list[RunResult], stage: str) -> float:
        return median([median(r.stage_s[stage]) for r in runs if r.stage_s[stage]])
    print()
    print(f"{load_note()}")
    print(table(["", "pipeline (stack)", "direct (1 process)"], [
        ["pages", str(p_pages), str(d_pages)],
        ["wall s (median)", fmt(p_wall), fmt(d_wall)],
        ["pages/s", fmt(p_pages / p_wall), fmt(d_pages / d_wall)],
        *[[f"{s} s/doc (median)", fmt(stage_median(pipe, s)),
           fmt(stage_median(direct, s)) if s in DIRECT_STAGES else "-"]
          for s in STAGES],
    ]))
    print(f"\noverhead ratio (pipeline wall / direct wall): {p_wall / d_wall:.2f}")
    print("(direct 'embedding' = embed + Chroma upsert; pipeline 'embedding' also includes the Kafka hop)")


if __name__ == "__main__":
    main()

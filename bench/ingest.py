"""End-to-end ingest throughput of the running stack vs the same work in one plain process.

Run from the repo root (stack up):  .cache/venv/bin/python bench/ingest.py [--runs 1] [--direct-runs 1]

Pipeline run: every PDF of ``../shared/corpus/real`` is uploaded through the gateway API (earlier
copies with the same filename are deleted first), following the SSE progress stream
(subscribed before the first upload). Figures:
  * pages/s      - pages of the documents that got indexed / wall time from the first upload
                   to the last document's terminal event (``ts`` of ``indexed``/``failed``);
  * stage medians over the documents, from the progress events' ``ts``:
      queue      uploaded -> first ``parsing`` event,
      parsing    first -> last ``parsing`` event (isolated parse + page PDFs to MinIO),
      splitting  first -> last ``splitting`` event,
      embedding  last ``splitting`` -> ``indexed`` (Kafka hop + embed + Chroma upsert),
      total      uploaded -> ``indexed``.
Direct run: the same files, one after another in this process: ``parse_document`` ->
``split_document`` -> ``EmbeddingClient.embed_passages`` (same embeddings endpoint) ->
``chromadb`` upsert into a throwaway collection on the same Chroma server (deleted after).
Files the pipeline rejects (no text layer) are parsed but not chunked, as the parser service does.
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
from cli.sse import ProgressStream
from cli.tracking import DocProgress, Tracker
from shared.settings import Settings

STAGES = ("queue", "parsing", "splitting", "embedding", "total")


@dataclass
class RunResult:
    """One run: wall seconds, pages indexed, per-document stage seconds, failures."""

    wall_s: float
    pages: int
    stage_s: dict[str, list[float]] = field(default_factory=lambda: {s: [] for s in STAGES})
    failed: list[str] = field(default_factory=list)


def ts(event: dict) -> float:
    """An event's ``ts`` (ISO-8601) as seconds since the epoch."""
    return datetime.fromisoformat(event["ts"]).timestamp()


def stage_times(doc: DocProgress) -> dict[str, float]:
    """Stage durations (seconds) of one indexed document from its progress events; stages
    whose events are missing (e.g. lost on an SSE reconnect) are left out."""
    ev = [r.data for r in doc.events if "ts" in r.data]
    by = {s: [e for e in ev if e["stage"] == s] for s in ("uploaded", "parsing", "splitting", "indexed")}
    out: dict[str, float] = {}
    up, pa, sp, ix = by["uploaded"], by["parsing"], by["splitting"], by["indexed"]
    if up and pa:
        out["queue"] = ts(pa[0]) - ts(up[0])
    if pa:
        out["parsing"] = ts(pa[-1]) - ts(pa[0])
    if sp:
        out["splitting"] = ts(sp[-1]) - ts(sp[0])
    if sp and ix:
        out["embedding"] = ts(ix[0]) - ts(sp[-1])
    if up and ix:
        out["total"] = ts(ix[0]) - ts(up[0])
    return out


def terminal_time(doc: DocProgress) -> float:
    """When the document finished: its terminal event's ``ts``, else the receipt time of its
    last event, else now (seconds since the epoch)."""
    for r in reversed(doc.events):
        if r.data.get("status") in ("indexed", "failed") and "ts" in r.data:
            return ts(r.data)
    return doc.events[-1].received_at if doc.events else time.time()


async def pipeline_run(url: str, files: list[Path], strategy: str, timeout_s: float) -> RunResult:
    """Upload ``files`` through the gateway and wait until all are indexed or failed."""
    async with api.make_client(url) as client:
        names = {f.name for f in files}
        for d in (await api.list_documents(client))["documents"]:
            if d["filename"] in names:
                await api.delete_document(client, d["document_id"])
        stream = ProgressStream(client)
        if not await stream.start():
            raise SystemExit("no SSE progress stream from the gateway")
        tracker = Tracker(client, stream, poll_s=3.0)
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
    """Parse, split, embed and store ``files`` sequentially in this process (throwaway
    Chroma collection, deleted at the end)."""
    import chromadb

    from services.parser.parse import parse_document
    from services.splitter.split import split_document
    from shared.embeddings import EmbeddingClient
    from shared.vectorstore import flat_metadata

    chroma = chromadb.HttpClient(host=settings.chroma_host, port=settings.chroma_port)
    name = f"bench_direct_{uuid.uuid4().hex[:12]}"
    coll = chroma.create_collection(name, embedding_function=None, metadata={"hnsw:space": "cosine"})
    embedder = EmbeddingClient(settings)
    result = RunResult(wall_s=0.0, pages=0)
    t0 = time.perf_counter()
    try:
        for f in files:
            doc_id = uuid.uuid4().hex
            t = time.perf_counter()
            parsed = (await asyncio.to_thread(parse_document, f.read_bytes(), f.name, doc_id, settings)).parsed
            result.stage_s["parsing"].append(time.perf_counter() - t)
            if all(p.scanned or not p.text.strip() for p in parsed.pages):
                result.failed.append(f"{f.name}: no text layer")
                continue
            t = time.perf_counter()
            cs = split_document(parsed, strategy, settings)
            result.stage_s["splitting"].append(time.perf_counter() - t)
            t = time.perf_counter()
            chunks = [c for c in cs.chunks if c.text.strip()]
            vectors = await embedder.embed_passages([c.embed_text or c.text for c in chunks])
            metas = [flat_metadata({**c.metadata, "document_id": doc_id, "filename": f.name,
                                    "file_type": cs.file_type, "strategy": strategy,
                                    "chunk_index": c.chunk_index,
                                    "page_number": c.page_number if c.page_number is not None else -1})
                     for c in chunks]
            if chunks:
                await asyncio.to_thread(coll.upsert, ids=[c.chunk_id(doc_id) for c in chunks],
                                        embeddings=vectors, documents=[c.text for c in chunks], metadatas=metas)
            result.stage_s["embedding"].append(time.perf_counter() - t)
            result.pages += parsed.page_count
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
    url = api.resolve_url(a.url)
    files = sorted((CORPUS / "real").glob("*.pdf"))
    settings = Settings()
    print(f"{len(files)} PDFs from {CORPUS / 'real'}, strategy {a.strategy}; {load_note()}")
    pipe = []
    for i in range(a.runs):
        r = asyncio.run(pipeline_run(url, files, a.strategy, a.timeout))
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
           fmt(stage_median(direct, s)) if s in ("parsing", "splitting", "embedding") else "-"]
          for s in STAGES],
    ]))
    print(f"\noverhead ratio (pipeline wall / direct wall): {p_wall / d_wall:.2f}")
    print("(direct 'embedding' = embed + Chroma upsert; pipeline 'embedding' also includes the Kafka hop)")


if __name__ == "__main__":
    main()

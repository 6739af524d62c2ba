"""Embedder service: consumes ``documents.chunked``, writes ChromaDB, emits ``documents.indexed``
and reports ``indexed``; consumes ``index.rebuild`` (a reindex job) and answers on ``index.rebuilt``.

Embeds each chunk's normalised search text through the OpenAI-compatible embeddings endpoint in
batches and upserts the vectors into Chroma with deterministic ids (``handle.embed_and_store``),
so a redelivered event overwrites instead of duplicating; into the current index generation, or
for a rebuild into the generation the job builds (``generations.py``). A document deleted
meanwhile stops between two batches and its vectors are removed. Run: ``python -m services.embedder``.
"""
from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Annotated, Any

from faststream import Context

from services.embedder.batcher import FairBatcher
from services.embedder.generations import Generations, in_current_generation
from services.embedder.handle import embed_and_store
from services.embedder.ranges import (
    chunks_done,
    embed_range,
    gather_range,
    mark_indexed,
    plan_ranges,
    read_job,
    record_range,
    splits_into_ranges,
)
from shared import topics
from shared.embeddings import EmbeddingClient
from shared.errors import DocumentGone
from shared.events import (
    ChunkRangeEmbedded,
    ChunkRangeWork,
    DocumentChunked,
    DocumentIndexed,
    DocumentRebuilt,
    RebuildDocument,
)
from shared.gather import ForgetOnRebalance, GatherState
from shared.generation import IndexGeneration
from shared.kafka import event_publisher
from shared.metrics import INGESTED_DOCUMENTS, INGESTED_PAGES
from shared.settings import Settings, get_settings
from shared.stage import SettingsDep, Stage, StoreDep
from shared.storage import open_store
from shared.vectorstore import VectorStore


@asynccontextmanager
async def open_clients(settings: Settings) -> AsyncIterator[dict[str, Any]]:
    """MinIO, Chroma, the embeddings endpoint and the request stream the documents being embedded
    share (``FairBatcher``), once per process."""
    embedder = EmbeddingClient(settings)
    batcher = FairBatcher.from_settings(embedder.embed_passages, settings)
    vectors = VectorStore(settings)
    generations = Generations(settings, vectors, batcher)
    try:
        yield {"store": await open_store(settings), "vectors": vectors, "embedder": embedder,
               "batcher": batcher, "generations": generations, "range_gather": GatherState()}
    finally:
        await generations.close()
        await batcher.close()


stage = Stage("embedder", progress_stage="embedding", output_topic=topics.INDEXED, clients=open_clients)
stage.gone_hooks.append(lambda doc_id: stage.client("vectors").delete_document(doc_id))
rebuilt_pub = event_publisher(stage.broker, topics.INDEX_REBUILT)
range_pub = event_publisher(stage.broker, topics.CHUNK_RANGES)
range_done_pub = event_publisher(stage.broker, topics.CHUNK_RANGE_DONE)
GenerationsDep = Annotated[Generations, Context("generations")]
RangeGatherDep = Annotated[GatherState, Context("range_gather")]


def indexed(event: DocumentChunked, chunk_count: int) -> DocumentIndexed:
    """The ``documents.indexed`` event of a document whose ``chunk_count`` chunks are written."""
    return DocumentIndexed(document_id=event.document_id, department=event.department, visibility=event.visibility,
                           filename=event.filename, strategy=event.strategy, strategy_used=event.strategy_used,
                           file_type=event.file_type, page_count=event.page_count, chunk_count=chunk_count)


async def announce_indexed(event: DocumentChunked, stored: int) -> None:
    """Emit ``documents.indexed`` for a document whose ``stored`` chunks and statistics are
    written (the query service updates its keyword index from it), count it, report ``indexed``."""
    await stage.emit(indexed(event, stored))
    INGESTED_DOCUMENTS.labels(event.department, event.strategy_used).inc()
    INGESTED_PAGES.labels(event.department, event.strategy_used).inc(event.page_count)
    await stage.progress(event, stage="indexed", status="indexed", unit="chunks", pages_done=stored,
                         pages_total=stored, chunk_count=stored, page_count=event.page_count,
                         strategy_used=event.strategy_used)


@stage.subscriber(topics.CHUNKED, concurrency=get_settings().embedder_concurrency)
async def on_chunked(event: DocumentChunked, store: StoreDep, generations: GenerationsDep,
                     settings: SettingsDep) -> None:
    """Embed one chunked document into the current generation under the consumer contract; emit
    ``documents.indexed`` (the query service updates its keyword index from it), report ``indexed``.
    A document of more than ``embedder_range_chunks`` chunks is fanned out in chunk ranges instead
    (``ranges.py``): its ``documents.indexed`` comes from the gatherer once every range is done."""
    report = partial(stage.progress, event)
    check = stage.deletion_check(event)
    if splits_into_ranges(event, settings):
        works = await stage.run(event, topics.CHUNKED, lambda: plan_ranges(event, store, settings, check))
        if works:
            await report(unit="chunks", pages_done=0, pages_total=event.chunk_count)
            for work in works:
                await range_pub.publish(work, key=f"{work.document_id}:{work.range_number}".encode())
        return

    async def into(gen: IndexGeneration) -> int | None:
        return await embed_and_store(event, store, generations.store(gen),
                                     generations.embed(gen.model, event.department, check), settings, report)

    stored = await stage.run(event, topics.CHUNKED, lambda: in_current_generation(generations, into))
    if stored is not None:
        await announce_indexed(event, stored)


@stage.subscriber(topics.CHUNK_RANGES, group="embedder-ranges", concurrency=get_settings().embedder_concurrency,
                  serial=lambda w: (w.document_id, w.range_number))
async def on_range(work: ChunkRangeWork, store: StoreDep, generations: GenerationsDep,
                   settings: SettingsDep) -> None:
    """Embed one chunk range of a big document into the current generation; tell the gatherer.
    The ranges of one document run at once, on this replica and on the others."""
    check = stage.deletion_check(work)

    async def into(gen: IndexGeneration) -> int | None:
        return await embed_range(work, store, generations.store(gen),
                                 generations.embed(gen.model, work.department, check), settings, check)

    async def embedded() -> ChunkRangeEmbedded | None:
        stored = await in_current_generation(generations, into)
        return None if stored is None else await record_range(work, stored, store, check)

    done = await stage.run(work, topics.CHUNK_RANGES, embedded)
    if done is not None:
        await range_done_pub.publish(done, key=done.document_id.encode())


@stage.subscriber(topics.CHUNK_RANGE_DONE, group="embedder-gather",
                  listener=ForgetOnRebalance(lambda: stage.client("range_gather")))
async def on_range_done(event: ChunkRangeEmbedded, store: StoreDep, generations: GenerationsDep,
                        settings: SettingsDep, range_gather: RangeGatherDep) -> None:
    """Count a range done (progress); once every range of the document is, finish it — its
    statistics from the stored vectors, any chunk missing embedded — and emit its one
    ``documents.indexed``."""
    done = await stage.run(event, topics.CHUNK_RANGE_DONE, lambda: gather_range(event, store, range_gather))
    if done is None:
        return
    await stage.progress(event, unit="chunks", pages_done=chunks_done(event, len(done)),
                         pages_total=event.document_chunk_count)
    if len(done) < event.range_count:
        return
    check = stage.deletion_check(event)
    jobs: list[DocumentChunked] = []

    async def finish() -> int | None:
        job = await read_job(store, event.document_id)
        jobs.append(job)

        async def into(gen: IndexGeneration) -> int | None:
            return await embed_and_store(job, store, generations.store(gen),
                                         generations.embed(gen.model, job.department, check), settings,
                                         _no_progress)

        return await in_current_generation(generations, into)

    stored = await stage.run(event, topics.CHUNK_RANGE_DONE, finish)
    if stored is not None:
        await announce_indexed(jobs[-1], stored)
        with contextlib.suppress(DocumentGone):  # deleted meanwhile: no marker (the query service drops it)
            await mark_indexed(store, range_gather, event.document_id, check)


async def _no_progress(**_: Any) -> None:
    """A rebuild reports to its job (``index.rebuilt``), not as the document's progress."""


@stage.subscriber(topics.INDEX_REBUILD, group="embedder-rebuild", concurrency=get_settings().embedder_concurrency)
async def on_rebuild(event: RebuildDocument, store: StoreDep, generations: GenerationsDep,
                     settings: SettingsDep) -> None:
    """Embed one document's stored chunks into the generation a reindex job builds and tell the
    job; a failure is the job's (the document itself stays indexed). Written into the current
    generation (a department rebuilt in place, a catch-up after the switch), it is also announced
    on ``documents.indexed``."""
    target = IndexGeneration(event.generation, event.collection, event.model)
    failures: list[str] = []

    async def failed(reason: str) -> None:
        failures.append(reason)

    current: list[bool] = []

    async def rebuild() -> int | None:
        stored = await embed_and_store(event, store, generations.store(target), generations.embed(
            event.model, event.department, stage.deletion_check(event)), settings, _no_progress)
        if stored is not None:
            current.append((await generations.current()).generation == event.generation)
        return stored

    stored = await stage.run(event, topics.INDEX_REBUILD, rebuild, on_failure=failed)
    await rebuilt_pub.publish(DocumentRebuilt(
        document_id=event.document_id, department=event.department, visibility=event.visibility,
        job_id=event.job_id, generation=event.generation, chunk_count=stored or 0,
        ok=stored is not None, gone=stored is None and not failures, error=failures[0] if failures else None),
        key=event.document_id.encode())
    if stored is not None and current and current[0]:
        await stage.emit(indexed(event, stored))
        INGESTED_DOCUMENTS.labels(event.department, event.strategy_used).inc()
        INGESTED_PAGES.labels(event.department, event.strategy_used).inc(event.page_count)


app = stage.app

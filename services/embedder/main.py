"""Embedder service: consumes ``documents.chunked``, writes ChromaDB, emits ``documents.indexed``
and reports ``indexed``.

Embeds each chunk's normalised search text through the OpenAI-compatible embeddings endpoint in
batches and upserts the vectors into Chroma with deterministic ids (``handle.embed_and_store``),
so a redelivered event overwrites instead of duplicating. A document deleted meanwhile stops
between two batches and its vectors are removed (``Stage.sweep_gone`` and the hook below).
Run: ``python -m services.embedder``.
"""
from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Annotated, Any

from faststream import Context

from services.embedder.batcher import FairBatcher
from services.embedder.handle import embed_and_store
from shared import topics
from shared.embeddings import EmbeddingClient
from shared.events import DocumentChunked, DocumentIndexed
from shared.settings import Settings, get_settings
from shared.stage import SettingsDep, Stage, StoreDep
from shared.storage import open_store
from shared.vectorstore import VectorStore


@asynccontextmanager
async def open_clients(settings: Settings) -> AsyncIterator[dict[str, Any]]:
    """MinIO, Chroma, the embeddings endpoint and the request stream the documents being embedded
    share (``FairBatcher``), once per process."""
    embedder = EmbeddingClient(settings)
    batcher = FairBatcher(embedder.embed_passages, settings.embeddings_batch_size)
    try:
        yield {"store": await open_store(settings), "vectors": VectorStore(settings), "embedder": embedder,
               "batcher": batcher}
    finally:
        await batcher.close()


stage = Stage("embedder", progress_stage="embedding", output_topic=topics.INDEXED, clients=open_clients)
stage.gone_hooks.append(lambda doc_id: stage.client("vectors").delete_document(doc_id))
VectorsDep = Annotated[VectorStore, Context("vectors")]
BatcherDep = Annotated[FairBatcher, Context("batcher")]


@stage.subscriber(topics.CHUNKED, concurrency=get_settings().embedder_concurrency)
async def on_chunked(event: DocumentChunked, store: StoreDep, vectors: VectorsDep, batcher: BatcherDep,
                     settings: SettingsDep) -> None:
    """Embed one chunked document under the consumer contract; emit ``documents.indexed`` (the
    query service updates its keyword index from it) and report ``indexed``."""
    report = partial(stage.progress, event)
    embed = partial(batcher.embed_passages, key=event.department)
    check = stage.deletion_check(event)
    stored = await stage.run(event, topics.CHUNKED,
                             lambda: embed_and_store(event, store, vectors, embed, settings, report, check))
    if stored is not None:
        await stage.emit(DocumentIndexed(document_id=event.document_id, department=event.department,
                                         visibility=event.visibility,
                                         filename=event.filename, strategy=event.strategy,
                                         strategy_used=event.strategy_used, file_type=event.file_type,
                                         page_count=event.page_count, chunk_count=stored))
        await stage.progress(event, stage="indexed", status="indexed", unit="chunks", pages_done=stored,
                             pages_total=stored, chunk_count=stored, page_count=event.page_count,
                             strategy_used=event.strategy_used)


app = stage.app

"""Embedder service: consumes ``documents.chunked``, writes ChromaDB, reports ``indexed``.

Embeds each chunk's ``embed_text`` (or ``text``), normalised for search
(``shared.textnorm.normalize_for_search``), through the OpenAI-compatible embeddings endpoint
in batches and upserts them into the Chroma collection with explicit embeddings and
deterministic ids (``{document_id}_{chunk_index}``), so a redelivered event overwrites instead
of duplicating. Q&A chunks also get a question-line vector (``search_text``) in the
``_questions`` collection under the same id, and the document's per-language vector sums are
rewritten in the ``_stats`` collection (language-bias removal at query time).
Run: ``python -m services.embedder``.
"""
from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import Any

from faststream import AckPolicy

from shared import storage, topics
from shared.embeddings import EmbeddingClient
from shared.events import DocumentChunked, ProgressEvent
from services.embedder.search_text import (chunk_search_text, content_chars, document_title,
                                          question_search_text, text_sha)
from shared.kafka import make_broker, run_stage, stage_publishers
from shared.metrics import CHUNKS
from shared.lang import detect_language
from shared.models import Chunk, ChunkSet
from shared.settings import get_settings
from shared.storage import ObjectStore
from shared.vectorstore import VectorStore
from shared.worker import make_app

GROUP = "embedder"
settings = get_settings()
broker = make_broker(settings, "embedder")
pubs = stage_publishers(broker, None)
store: ObjectStore | None = None
vectors: VectorStore | None = None
embedder: EmbeddingClient | None = None


@asynccontextmanager
async def lifespan():
    """Create the MinIO, Chroma and embeddings clients once per process."""
    global store, vectors, embedder
    store = ObjectStore(settings)
    vectors = VectorStore(settings)
    embedder = EmbeddingClient(settings)
    yield


def chunk_metadata(event: DocumentChunked, chunk_set: ChunkSet, chunk: Chunk, lang: str = "") -> dict[str, Any]:
    """Flat Chroma metadata of one chunk: document keys (document_id, department, filename,
    ``lang`` = the document's language ``zh``/``en``), position (chunk_index, page_number),
    ``content_chars`` (non-space characters of the text) and the strategy's own fields."""
    meta: dict[str, Any] = dict(chunk.metadata)
    meta.update(
        document_id=event.document_id, department=event.department, filename=event.filename,
        file_type=chunk_set.file_type, strategy=event.strategy, chunk_index=chunk.chunk_index,
        page_number=chunk.page_number if chunk.page_number is not None else -1,
        lang=lang or None, content_chars=content_chars(chunk.text),
    )
    meta.setdefault("strategy_type", chunk_set.strategy_used)
    return meta


async def embed_and_store(event: DocumentChunked) -> int | None:
    """Embed and upsert every chunk of one document; returns the chunk count stored.

    ``None`` when the document was deleted (before or while embedding; its vectors are
    removed again in that case).
    """
    assert store and vectors and embedder
    doc_id = event.document_id
    manifest = storage.manifest_key(doc_id)
    if not await asyncio.to_thread(store.exists, manifest):
        return None
    chunk_set = ChunkSet.model_validate(await asyncio.to_thread(store.get_json, event.chunks_key))
    chunks = [c for c in chunk_set.chunks if c.text.strip()]
    total = len(chunks)
    step = max(settings.embeddings_batch_size, 1)
    lang = detect_language(" ".join(c.text for c in chunks))
    title = document_title(chunk_set)
    vec_sum: list[float] | None = None
    for start in range(0, total, step):
        batch = chunks[start:start + step]
        texts = [chunk_search_text(c) for c in batch]
        embeddings = await embedder.embed_passages(texts)
        metas = [chunk_metadata(event, chunk_set, c, lang) for c in batch]
        questions = [(c, m, q) for c, m in zip(batch, metas, strict=True)
                     if (q := question_search_text(title, c)) is not None]
        for m, t in zip(metas, texts, strict=True):
            m["vector_sha"] = text_sha(t)
        for _, m, q in questions:
            m["question_sha"] = text_sha(q)
        await asyncio.to_thread(
            vectors.upsert, [c.chunk_id(doc_id) for c in batch], embeddings, [c.text for c in batch], metas)
        questions = [(c, {**m, "vector_sha": m["question_sha"]}, q) for c, m, q in questions]
        if questions:
            q_emb = await embedder.embed_passages([q for _, _, q in questions])
            await asyncio.to_thread(vectors.upsert_questions, [c.chunk_id(doc_id) for c, _, _ in questions],
                                    q_emb, [q for _, _, q in questions], [m for _, m, _ in questions])
        for e in embeddings:
            vec_sum = list(e) if vec_sum is None else [a + b for a, b in zip(vec_sum, e, strict=True)]
        CHUNKS.labels("embedding").inc(len(batch))
        await pubs.report(ProgressEvent(
            document_id=doc_id, department=event.department, filename=event.filename,
            stage="embedding", status="processing", unit="chunks",
            pages_done=min(start + step, total), pages_total=total))
    await asyncio.to_thread(vectors.write_document_stats, doc_id, event.department,
                            {lang: (vec_sum, total)} if vec_sum is not None else {})
    if not await asyncio.to_thread(store.exists, manifest):  # deleted while we embedded
        await asyncio.to_thread(vectors.delete_document, doc_id)
        return None
    return total


@broker.subscriber(topics.CHUNKED, group_id=GROUP, ack_policy=AckPolicy.ACK, max_poll_records=1)
async def on_chunked(event: DocumentChunked) -> None:
    """Handle one chunked document under the retry/dead-letter contract; emit ``indexed``."""
    stored = await run_stage(pubs=pubs, settings=settings, stage="embedding", group=GROUP,
                             topic=topics.CHUNKED, event=event, filename=event.filename,
                             work=lambda: embed_and_store(event))
    if stored is not None:
        await pubs.report(ProgressEvent(
            document_id=event.document_id, department=event.department, filename=event.filename,
            stage="indexed", status="indexed", unit="chunks", pages_done=stored, pages_total=stored,
            chunk_count=stored, page_count=event.page_count, strategy_used=event.strategy_used))


app = make_app(broker, lifespan=lifespan)

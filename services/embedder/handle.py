"""What the embedder stage does with one ``DocumentChunked``: read the ``ChunkSet`` from MinIO,
embed each chunk's search text (and a Q&A chunk's question line) in batches, upsert the vectors
into Chroma with deterministic ids, and rewrite the document's per-language vector sums.
Clients and the progress callback are handed in (see ``services/embedder/main.py``).
"""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from services.embedder.batcher import EmbedFn
from services.embedder.search_text import (
    chunk_search_text,
    content_chars,
    document_title,
    question_search_text,
    text_sha,
)
from shared.deletion import Check, guarded, never_gone
from shared.errors import DocumentGone
from shared.events import DocumentChunked
from shared.lang import detect_language
from shared.metrics import CHUNKS
from shared.models import Chunk, ChunkSet
from shared.settings import Settings
from shared.storage import ObjectStore
from shared.vectorstore import VectorStore

Report = Callable[..., Awaitable[None]]
"""``report(pages_done=chunks done, pages_total=chunks)``: publishes an ``embedding`` progress event."""


def chunk_metadata(event: DocumentChunked, chunk_set: ChunkSet, chunk: Chunk, lang: str = "") -> dict[str, Any]:
    """Flat Chroma metadata of one chunk: document keys (document_id, department, visibility,
    filename, ``lang`` = the document's language ``zh``/``en``; the question-line record of a
    Q&A chunk gets the same, so the query service's department filter applies to both),
    position (chunk_index, page_number), ``content_chars`` (non-space characters of the text)
    and the strategy's own fields."""
    meta: dict[str, Any] = dict(chunk.metadata)
    meta.update(
        document_id=event.document_id, department=event.department, visibility=event.visibility,
        filename=event.filename,
        file_type=chunk_set.file_type, strategy=event.strategy, chunk_index=chunk.chunk_index,
        page_number=chunk.page_number if chunk.page_number is not None else -1,
        lang=lang or None, content_chars=content_chars(chunk.text),
    )
    meta.setdefault("strategy_type", chunk_set.strategy_used)
    return meta


async def embed_and_store(event: DocumentChunked, store: ObjectStore, vectors: VectorStore,
                          embed: EmbedFn, settings: Settings, report: Report, check: Check = never_gone) -> int:
    """Embed and upsert every non-empty chunk of one document; returns the chunk count stored.

    Idempotent: ids are ``{document_id}_{chunk_index}`` and written with ``upsert``.
    ``check`` (throttled) is asked before each batch and before its vectors are written, and
    every ``deletion_check_interval_s`` while a batch is being embedded (the request is
    abandoned), so a document deleted meanwhile stops within about that interval.

    Raises:
        openai.APIError, chromadb / minio errors: a dependency failed (the stage retries).
        DocumentGone: the document was deleted meanwhile (``check``, or the last look after the
            statistics were written, which removes its vectors at once; the stage sweeps the rest).
    """
    doc_id = event.document_id
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
        await check()
        embeddings = await guarded(check, embed(texts))
        await check()
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
            q_emb = await guarded(check, embed([q for _, _, q in questions]))
            await check()
            await asyncio.to_thread(vectors.upsert_questions, [c.chunk_id(doc_id) for c, _, _ in questions],
                                    q_emb, [q for _, _, q in questions], [m for _, m, _ in questions])
        for e in embeddings:
            vec_sum = list(e) if vec_sum is None else [a + b for a, b in zip(vec_sum, e, strict=True)]
        CHUNKS.labels("embedding").inc(len(batch))
        await report(unit="chunks", pages_done=min(start + step, total), pages_total=total)
    await asyncio.to_thread(vectors.write_document_stats, doc_id, event.department, event.visibility,
                            {lang: (vec_sum, total)} if vec_sum is not None else {})
    if not await asyncio.to_thread(store.document_live, doc_id):  # deleted while we embedded
        await asyncio.to_thread(vectors.delete_document, doc_id)
        raise DocumentGone(doc_id)
    return total

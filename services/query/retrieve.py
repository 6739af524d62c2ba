"""Dense retrieval from ChromaDB with an explicit query embedding."""
from __future__ import annotations

import asyncio
from typing import Any

from services.query.schemas import Source
from shared.chunkview import chunk_view
from shared.embeddings import EmbeddingClient
from shared.vectorstore import VectorStore


def snippet(text: str, chars: int = 300) -> str:
    """First ``chars`` characters of ``text`` with whitespace collapsed."""
    flat = " ".join(text.split())
    return flat if len(flat) <= chars else flat[:chars].rstrip() + "…"


def to_source(chunk_id: str, text: str, meta: dict[str, Any], distance: float) -> Source:
    """A Chroma hit as a ``Source``; score = cosine similarity (1 - cosine distance)."""
    view = chunk_view(chunk_id, text, meta)
    is_qa = meta.get("chunk_kind") == "qa"
    return Source(
        chunk_id=chunk_id, document_id=view["document_id"], filename=view.get("filename"),
        page_number=view["page_number"], score=round(1.0 - float(distance), 4), snippet=snippet(text),
        pdf_url=view["pdf_url"], strategy_type=view.get("strategy_type"),
        question_id=meta.get("question_id") if is_qa else None,
        question_text=meta.get("question_text") if is_qa else None,
        answer=text if is_qa else None,
        topic_section=meta.get("topic_section") or None,
        source_page_range=view.get("source_page_range"))


async def retrieve(vectors: VectorStore, embedder: EmbeddingClient, question: str, k: int,
                   document_ids: list[str] | None = None) -> list[tuple[Source, str]]:
    """Top-``k`` chunks for ``question`` (always ``query_embeddings``, never ``query_texts``),
    best first, each with its full stored text.

    Args:
        document_ids: restrict the search to these documents (``None``: all).
    """
    emb = await embedder.embed_query(question)
    where = None
    if document_ids:
        where = {"document_id": {"$in": list(document_ids)}}
    res = await asyncio.to_thread(vectors.query, emb, k, where)
    ids, docs, metas, dists = (res["ids"][0], res["documents"][0], res["metadatas"][0], res["distances"][0])
    return [(to_source(i, d or "", m or {}, dist), d or "")
            for i, d, m, dist in zip(ids, docs, metas, dists, strict=True)]

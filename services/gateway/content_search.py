"""The content side of the document listing's search (``GET /api/v1/documents?q=``): which of the
caller's documents hold the search text in their chunks.

Chroma answers it (``VectorStore.documents_containing``: a case-insensitive substring filter on
the stored chunk texts, with the caller's department scope as the metadata condition), in one
request, without the texts leaving Chroma. Chosen over the alternatives because the chunk texts of
every indexed document are there already and Chroma keeps them in step with deletes,
replacements and chunk deletes: the query service's keyword index matches whole words (BM25
terms), not substrings, and lives in another service; reading each document's ``chunks.json``
from MinIO would cost one read per document of the scope on every search (hundreds), or a
second copy of every text in the gateway's memory. A document still in the pipeline has no
chunks yet, so only its filename is searched.
"""
from __future__ import annotations

import asyncio
import logging

from shared.scope import Scope, chroma_where
from shared.vectorstore import VectorStore

log = logging.getLogger("legco.gateway.content_search")

UNAVAILABLE = "Only filenames were searched: the chunk text cannot be searched right now (the vector store is down)."


async def documents_containing(vectors: VectorStore, text: str, scope: Scope) -> set[str] | None:
    """Ids of the documents of ``scope`` (its departments and the shared library; ``None``: every
    department) with a chunk containing ``text`` (ignoring case); ``None`` when Chroma cannot
    answer (the listing then searches filenames only and says so, :data:`UNAVAILABLE`)."""
    try:
        return await asyncio.to_thread(vectors.documents_containing, text, chroma_where(scope))
    except Exception:  # Chroma down or refusing: the listing still works, on filenames
        log.warning("content search failed", exc_info=True)
        return None

"""Deleting a document everywhere: its vectors in Chroma, its objects in MinIO (original,
page PDFs, page texts, chunks, manifest) and its registry record."""
from __future__ import annotations

import asyncio

from services.gateway.state import GatewayState


async def delete_document(state: GatewayState, document_id: str) -> None:
    """Delete one document. Vectors go first, so a failure leaves no searchable orphan; the
    embedder re-checks the manifest after writing, so a document still in flight is removed too.

    Raises:
        chromadb / minio errors when a store is down (the gateway answers 503).
    """
    await asyncio.to_thread(state.vectors.delete_document, document_id)
    await asyncio.to_thread(state.store.delete_document, document_id)
    state.registry.forget(document_id)  # announces ``deleted`` to SSE clients

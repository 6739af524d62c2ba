"""Deleting a document everywhere: its vectors in Chroma, its objects in MinIO (original,
page PDFs, page texts, chunks, manifest) and its registry record; or single chunks. Either way
a ``DocumentDeleted`` goes to ``documents.deleted`` once Chroma no longer holds them (the query
service drops them from its keyword index and language means on it)."""
from __future__ import annotations

import asyncio

from services.gateway.state import GatewayState
from shared.api import DocumentRecord
from shared.events import DocumentDeleted


async def delete_document(state: GatewayState, document_id: str) -> None:
    """Delete one document. Vectors go first, so a failure leaves no searchable orphan; the
    embedder re-checks the manifest after writing, so a document still in flight is removed too.
    The event is published before the registry forgets the document, so a failed publish
    leaves it listed and a repeated DELETE publishes again.

    Raises:
        chromadb / minio / Kafka errors when a store or the broker is down (the gateway answers 503).
    """
    rec = state.registry.get(document_id)
    await asyncio.to_thread(state.vectors.delete_document, document_id)
    await asyncio.to_thread(state.store.delete_document, document_id)
    await publish_deleted(state, document_id, rec)
    state.registry.forget(document_id)  # announces ``deleted`` to the SSE clients that saw it


async def delete_chunks(state: GatewayState, document_id: str, chunk_ids: list[str]) -> None:
    """Delete chunks of one document by id (``{document_id}_{chunk_index}``) from Chroma, which
    recomputes the document's language statistics, then publish the deletion.

    Raises:
        chromadb / Kafka errors when Chroma or the broker is down.
    """
    rec = state.registry.get(document_id)
    await asyncio.to_thread(state.vectors.delete_ids, chunk_ids)
    await publish_deleted(state, document_id, rec, chunk_ids)


async def publish_deleted(state: GatewayState, document_id: str, record: DocumentRecord | None,
                          chunk_ids: list[str] | None = None) -> None:
    """``DocumentDeleted`` on ``documents.deleted``, keyed by document id, with the document's
    department and visibility (``record`` ``None``: the defaults; ``chunk_ids`` ``None``: the
    whole document)."""
    department = record.department if record else state.settings.department_default
    visibility = record.visibility if record else "department"
    await state.deletions.publish(DocumentDeleted(document_id=document_id, department=department,
                                                  visibility=visibility, chunk_ids=chunk_ids),
                                  key=document_id.encode())

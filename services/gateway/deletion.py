"""Deleting a document everywhere: a delete tombstone first, then its vectors in Chroma (every
index generation), its objects in MinIO (original, page PDFs, page texts, chunks, manifest) and
its registry record; or single chunks. Either way a ``DocumentDeleted`` goes to
``documents.deleted`` once Chroma no longer holds them (the query service drops them from its
keyword index and language means on it).

The tombstone (``tombstones/{id}``) is what makes a delete final while the document is still in
the pipeline: every stage asks before its writes and between pages or batches
(``ObjectStore.document_live``), stops within about a second and removes what it wrote; what a
stage wrote in the moment between its last check and the delete is swept by the reconciler
(``reconcile.py``), which also removes the tombstone once nothing is left under it.
"""
from __future__ import annotations

import asyncio
import json
import logging

from services.gateway.state import GatewayState
from shared import logs, storage
from shared.api import DocumentRecord
from shared.events import DocumentDeleted, utcnow

log = logging.getLogger("legco.gateway.deletion")


async def delete_document(state: GatewayState, document_id: str) -> None:
    """Delete one document. The tombstone goes first (stages stop writing), then the vectors, so
    a failure leaves no searchable orphan, then the objects. The event is published before the
    registry forgets the document, so a failed publish leaves it listed and a repeated DELETE
    publishes again.

    Raises:
        chromadb / minio / Kafka errors when a store or the broker is down (the gateway answers 503).
    """
    rec = state.registry.get(document_id)
    with logs.document(document_id, rec.department if rec else None, "deleted"):
        await asyncio.to_thread(write_tombstone, state, document_id, rec)
        await asyncio.to_thread(state.vectors.delete_document, document_id)
        removed = await asyncio.to_thread(state.store.delete_document, document_id)
        await publish_deleted(state, document_id, rec)
        await state.registry.forget(document_id)  # every replica announces ``deleted`` to the SSE clients that saw it
        log.info("deleted; %s objects removed", removed)


def write_tombstone(state: GatewayState, document_id: str, record: DocumentRecord | None) -> None:
    """Write the document's delete tombstone (blocking): ``{document_id, department, deleted_at}``."""
    body = {"document_id": document_id, "department": record.department if record else "",
            "deleted_at": utcnow()}
    state.store.put_bytes(storage.tombstone_key(document_id), json.dumps(body).encode(), "application/json")


async def delete_chunks(state: GatewayState, document_id: str, chunk_ids: list[str]) -> None:
    """Delete chunks of one document by id (``{document_id}_{chunk_index}``) from Chroma (every
    index generation), which recomputes the document's language statistics, and from its chunk
    set in MinIO (so a rebuild from MinIO does not bring them back), then publish the deletion.

    Raises:
        chromadb / minio / Kafka errors when a store or the broker is down.
    """
    rec = state.registry.get(document_id)
    with logs.document(document_id, rec.department if rec else None, "deleted"):
        await asyncio.to_thread(state.vectors.delete_ids, chunk_ids)
        await asyncio.to_thread(drop_from_chunk_set, state, document_id, set(chunk_ids))
        await publish_deleted(state, document_id, rec, chunk_ids)
        log.info("deleted %d chunks", len(chunk_ids))


def drop_from_chunk_set(state: GatewayState, document_id: str, chunk_ids: set[str]) -> None:
    """Remove chunks from the document's stored ``ChunkSet`` (blocking; no chunk set: nothing)."""
    key = storage.chunks_key(document_id)
    try:
        chunk_set = state.store.get_json(key)
    except KeyError:
        return
    kept = [c for c in chunk_set.get("chunks", []) if f"{document_id}_{c.get('chunk_index')}" not in chunk_ids]
    if len(kept) != len(chunk_set.get("chunks", [])):
        state.store.put_json(key, {**chunk_set, "chunks": kept})


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

"""The document registry: one ``DocumentRecord`` (``shared.api``) per document, kept in memory
by the gateway and written through to a manifest object in MinIO (``documents/{id}/manifest.json``),
so it survives a restart of any service. The gateway folds the progress topic into it
(``replacement.fold_progress``, which also retires replaced copies), and it announces every
change to the SSE clients (``DocumentHub``, which passes each client only the documents of its
scope): the whole record after a change, ``deleted`` when a document is forgotten. This fold is
the only one: clients never redo it.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from services.gateway.sse import DocumentHub
from shared import storage
from shared.api import SSE_DELETED, SSE_DOCUMENT, DeletedNotice, DocumentRecord
from shared.events import ProgressEvent
from shared.storage import ObjectStore

log = logging.getLogger("legco.gateway.registry")


TERMINAL = frozenset({"indexed", "failed"})


def moves_forward(record: DocumentRecord, event: ProgressEvent) -> bool:
    """The status state machine: ``queued → processing → indexed | failed``. A terminal status is
    final (until a replay, which resets the record itself, see ``Registry.requeue``), so a late
    or redelivered event of any stage never moves a document back, and ``indexed`` and ``failed``
    never overwrite each other."""
    return record.status not in TERMINAL


def apply_progress(record: DocumentRecord, event: ProgressEvent) -> DocumentRecord:
    """Fold one progress event into a record (pure); the record unchanged when the event would
    move it backwards (:func:`moves_forward`). Counts only move when the event carries them; an
    event that only says the stage is waiting for a dependency keeps them."""
    if not moves_forward(record, event):
        return record
    r = record.model_copy(deep=True)
    r.stage, r.status, r.updated_at = event.stage, event.status, event.ts
    r.waiting_for = event.waiting_for
    if event.waiting_for is None:
        r.pages_done, r.pages_total, r.unit = event.pages_done, event.pages_total, event.unit
    if event.page_count is not None:
        r.page_count = event.page_count
    if event.chunk_count is not None and event.status == "indexed":
        r.chunk_count = event.chunk_count
    if event.file_type:
        r.file_type = event.file_type
    if event.strategy_used:
        r.strategy_used = event.strategy_used
    if event.status == "failed":
        r.error = event.error
        r.chunk_count = 0
    for w in event.warnings:
        if w not in r.warnings:
            r.warnings.append(w)
    return r


class Registry:
    """In-memory registry with write-through manifests in MinIO.

    Args:
        store: the object store holding the manifests.
        hub: where changes are announced (SSE); ``None``: nowhere.

    ``announce`` turns a record into what SSE clients are sent (``GatewayState`` sets it to add
    the wait estimates, ``waits.py``); the stored record never carries them.
    """

    def __init__(self, store: ObjectStore, hub: DocumentHub | None = None) -> None:
        self.store = store
        self.hub = hub
        self.announce: Callable[[DocumentRecord], DocumentRecord] = lambda r: r
        self.records: dict[str, DocumentRecord] = {}
        self.lock = asyncio.Lock()  # one fold (and the deletions it decides) at a time
        self._last_seq = 0

    async def load(self) -> int:
        """Read every manifest from MinIO (at start-up); returns how many were loaded."""
        def _load() -> dict[str, DocumentRecord]:
            out = {}
            for key in self.store.list_keys("documents/"):
                if key.endswith("/manifest.json"):
                    try:
                        rec = DocumentRecord.model_validate(self.store.get_json(key))
                        out[rec.document_id] = rec
                    except Exception:  # a broken manifest must not stop the gateway
                        log.exception("skipping unreadable manifest %s", key)
            return out
        self.records = await asyncio.to_thread(_load)
        self._last_seq = max((r.upload_seq for r in self.records.values()), default=0)
        return len(self.records)

    def next_upload_seq(self) -> int:
        """A new upload sequence number: nanoseconds since the epoch, strictly greater than any
        this registry has seen (so two uploads in one clock tick, or a clock stepped back, still
        come in order)."""
        self._last_seq = max(time.time_ns(), self._last_seq + 1)
        return self._last_seq

    def register(self, record: DocumentRecord) -> tuple[DocumentRecord, list[str]]:
        """Give a new upload its ``upload_seq`` and put it in memory, in one step without awaiting
        (so concurrent uploads are ordered as they register); returns the record and the ids of
        the same-named documents of its department and visibility (any status) that it will
        replace once indexed. The caller then writes it with :meth:`put`."""
        rec = record.model_copy(update={"upload_seq": self.next_upload_seq()})
        replaced = [r.document_id for r in self.same_name(rec)]
        self.records[rec.document_id] = rec
        return rec, replaced

    async def put(self, record: DocumentRecord) -> None:
        """Write a record's manifest, then keep it in memory and send it to SSE clients as a
        ``document`` event (manifest first: memory never runs ahead of what a restart reloads).

        Raises:
            minio errors when MinIO is down (nothing changed then).
        """
        if record.queue_position is not None or record.eta_s is not None:  # estimates are never stored
            record = record.model_copy(update={"queue_position": None, "eta_s": None})
        await asyncio.to_thread(self.store.put_json, storage.manifest_key(record.document_id), record)
        self.records[record.document_id] = record
        if self.hub is not None:
            sent = self.announce(record)
            self.hub.broadcast(SSE_DOCUMENT, sent.model_dump(mode="json"), record.department, record.visibility)

    async def apply(self, event: ProgressEvent) -> DocumentRecord | None:
        """Fold a progress event in; ``None`` (ignored) for unknown/deleted documents."""
        async with self.lock:
            rec = self.records.get(event.document_id)
            if rec is None:
                return None
            new = apply_progress(rec, event)
            if new is not rec:
                await self.put(new)
            return new

    async def requeue(self, document_id: str) -> DocumentRecord | None:
        """Set a document back to ``queued`` for a replay (the only way out of ``failed``);
        ``None`` for an unknown document."""
        async with self.lock:
            rec = self.records.get(document_id)
            if rec is None:
                return None
            new = rec.model_copy(update={"status": "queued", "stage": "uploaded", "error": None, "waiting_for": None,
                                         "pages_done": 0, "pages_total": 0, "chunk_count": 0})
            await self.put(new)
            return new

    def get(self, document_id: str) -> DocumentRecord | None:
        """The record of a document, or ``None``."""
        return self.records.get(document_id)

    def same_name(self, record: DocumentRecord) -> list[DocumentRecord]:
        """The other records with ``record``'s filename, department and visibility: the copies one
        of them replaces (``replacement.py``). The same filename in another department, or in the
        shared library, is another document."""
        return [r for r in self.records.values() if r.document_id != record.document_id
                and r.filename == record.filename and r.department == record.department
                and r.visibility == record.visibility]

    def forget(self, document_id: str) -> None:
        """Drop a record from memory (its manifest is deleted with the document's objects) and
        send a ``deleted`` event to the SSE clients that could see it."""
        rec = self.records.pop(document_id, None)
        if self.hub is not None and rec is not None:
            self.hub.broadcast(SSE_DELETED, DeletedNotice(document_id=document_id).model_dump(mode="json"),
                               rec.department, rec.visibility)

    def list(self) -> list[DocumentRecord]:
        """All records, newest upload first."""
        return sorted(self.records.values(), key=lambda r: r.upload_date, reverse=True)

"""The document registry: one ``DocumentRecord`` (``shared.api``) per document, kept in memory
by every gateway replica and written through to a manifest object in MinIO
(``documents/{id}/manifest.json``), the source of truth, so it survives a restart of any service.

Every write goes MinIO first, then through the registry topic (``changelog.py``): each replica
folds every change (:meth:`Registry.apply_change`) into its memory and announces it to its SSE
clients (``DocumentHub``, which passes each client only the documents of its scope): the whole
record after a change, ``deleted`` when a document is forgotten. So every replica lists the same
documents and streams the same changes, whichever replica made them. Without a changelog (unit
tests) a change is applied in this process only. The progress topic is folded into it by the
replica Kafka gives the document's partition (``replacement.fold_progress``, which also retires
replaced copies); that fold is the only one: clients never redo it.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from services.gateway.changelog import Changelog, ChangelogUnavailable
from services.gateway.sse import DocumentHub
from shared import storage
from shared.api import SSE_DELETED, SSE_DOCUMENT, DeletedNotice, DocumentRecord
from shared.events import ProgressEvent
from shared.registry_change import RegistryChange
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
    event that only says the stage is waiting for a dependency keeps them (and the step under
    way); any other event sets the step, or clears it when it names none."""
    if not moves_forward(record, event):
        return record
    r = record.model_copy(deep=True)
    r.stage, r.status, r.updated_at = event.stage, event.status, event.ts
    r.waiting_for = event.waiting_for
    if event.waiting_for is None:
        r.pages_done, r.pages_total, r.unit = event.pages_done, event.pages_total, event.unit
        r.step, r.step_done, r.step_total = event.step, event.step_done, event.step_total
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


Observer = Callable[[DocumentRecord | None, DocumentRecord, ProgressEvent | None, bool], None]
"""Called for every record folded in: (the record before, the record after, the progress event
that moved it or ``None``, whether some document was at the embedder before)."""


class Registry:
    """In-memory registry with write-through manifests in MinIO, shared by the replicas through
    the registry topic.

    Args:
        store: the object store holding the manifests.
        hub: where changes are announced (SSE); ``None``: nowhere.

    ``changelog`` (set by the gateway's lifespan) carries every change to every replica;
    ``None``: changes are applied here only. ``announce`` turns a record into what SSE clients are
    sent (``GatewayState`` sets it to add the wait estimates, ``waits.py``); the stored record
    never carries them. ``observe`` is told of every record folded in (``GatewayState``: the
    wait estimates learn from it).
    """

    def __init__(self, store: ObjectStore, hub: DocumentHub | None = None) -> None:
        self.store = store
        self.hub = hub
        self.changelog: Changelog | None = None
        self.announce: Callable[[DocumentRecord], DocumentRecord] = lambda r: r
        self.observe: Observer = lambda before, after, cause, busy: None
        self.busy: Callable[[], bool] = lambda: False
        self.records: dict[str, DocumentRecord] = {}
        self.lock = asyncio.Lock()  # one fold (and the deletions it decides) at a time in this replica
        self._last_seq = 0
        self._gone: set[str] = set()  # forgotten ids (never reused): a late record of one is not taken back
        self._telling: set[asyncio.Task[None]] = set()

    async def load(self) -> int:
        """Read every manifest from MinIO (at start-up, after the changelog took its offsets);
        returns how many were loaded."""
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
        self.records = {k: v for k, v in (await asyncio.to_thread(_load)).items() if k not in self._gone}
        self._last_seq = max([self._last_seq, *(r.upload_seq for r in self.records.values())])
        return len(self.records)

    async def sync(self, since: float | None = None) -> bool:
        """Wait until this replica has folded every change acknowledged before the call (before
        ``since``, seconds since the epoch, when given: ``Changelog.sync``); ``False`` when it
        could not (Kafka down: what it has is served)."""
        return True if self.changelog is None else await self.changelog.sync(since)

    async def refresh(self, document_id: str) -> DocumentRecord | None:
        """The record of a document this replica does not know, read from its manifest (and
        kept); ``None`` when it has none, was forgotten here, or has a delete tombstone. For
        when the changelog cannot be synced."""
        if document_id in self._gone or not storage.valid_document_id(document_id):
            return None

        def _read() -> DocumentRecord | None:
            if not self.store.document_live(document_id):
                return None
            try:
                return DocumentRecord.model_validate(self.store.get_json(storage.manifest_key(document_id)))
            except KeyError:
                return None
        rec = await asyncio.to_thread(_read)
        if rec is not None and document_id not in self._gone:
            self.records.setdefault(document_id, rec)
        return self.records.get(document_id)

    def next_upload_seq(self) -> int:
        """A new upload sequence number: nanoseconds since the epoch, strictly greater than any
        this replica has seen (so two uploads in one clock tick, or a clock stepped back, still
        come in order; uploads through two replicas are ordered by their clocks)."""
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

    async def put(self, record: DocumentRecord, cause: ProgressEvent | None = None) -> None:
        """Write a record's manifest, then publish it to every replica, which keeps it in memory
        and sends it to its SSE clients as a ``document`` event (manifest first: memory never
        runs ahead of what a restart reloads); returns once this replica has it. ``cause``: the
        progress event that moved it.

        Raises:
            minio errors when MinIO is down (nothing changed then); ``ChangelogUnavailable`` when
            Kafka did not take the change (the manifest is written; no replica's memory changed).
        """
        if record.queue_position is not None or record.eta_s is not None:  # estimates are never stored
            record = record.model_copy(update={"queue_position": None, "eta_s": None})
        await asyncio.to_thread(self.store.put_json, storage.manifest_key(record.document_id), record)
        await self._write(RegistryChange(kind="document", document_id=record.document_id, record=record,
                                         cause=cause))

    async def forget(self, document_id: str) -> None:
        """Drop a document from every replica's memory (its manifest is deleted with the
        document's objects); each sends a ``deleted`` event to the SSE clients that could see it.

        Raises:
            ChangelogUnavailable: Kafka did not take the change; then it is forgotten here only
            (the other replicas drop it at a reconciler pass that finds no manifest, ``reconcile.py``).
        """
        change = RegistryChange(kind="deleted", document_id=document_id)
        try:
            await self._write(change)
        except ChangelogUnavailable:
            await self.apply_change(change)
            raise

    def forget_soon(self, document_id: str) -> None:
        """Drop a document here at once and tell the other replicas in the background (an
        upload undone because Kafka is down: the request must not wait for it twice)."""
        self.drop(document_id)

        async def tell() -> None:
            try:
                await self.forget(document_id)
            except ChangelogUnavailable:
                log.warning("the other replicas were not told that %s was undone", document_id)
        task = asyncio.create_task(tell())
        self._telling.add(task)
        task.add_done_callback(self._telling.discard)

    async def _write(self, change: RegistryChange) -> None:
        if self.changelog is None:
            await self.apply_change(change)
        else:
            await self.changelog.write(change)

    async def apply_change(self, change: RegistryChange) -> None:
        """Fold one change (every replica, for every change): keep or drop the record, tell
        ``observe``, and announce it to this replica's SSE clients."""
        if change.kind == "document" and change.record is not None:
            rec = change.record
            if rec.document_id in self._gone:
                return
            before = self.records.get(rec.document_id)
            busy = self.busy()
            self.records[rec.document_id] = rec
            self._last_seq = max(self._last_seq, rec.upload_seq)
            if self.hub is not None:
                sent = self.announce(rec)
                self.hub.broadcast(SSE_DOCUMENT, sent.model_dump(mode="json"), rec.department, rec.visibility)
            self.observe(before, rec, change.cause, busy)
        elif change.kind == "deleted":
            self.drop(change.document_id)

    def drop(self, document_id: str) -> None:
        """Forget a document in this replica only, and send ``deleted`` to the SSE clients that
        could see it."""
        self._gone.add(document_id)
        rec = self.records.pop(document_id, None)
        if self.hub is not None and rec is not None:
            self.hub.broadcast(SSE_DELETED, DeletedNotice(document_id=document_id).model_dump(mode="json"),
                               rec.department, rec.visibility)

    async def apply(self, event: ProgressEvent) -> DocumentRecord | None:
        """Fold a progress event in; ``None`` (ignored) for unknown/deleted documents."""
        async with self.lock:
            rec = self.records.get(event.document_id)
            if rec is None:
                return None
            new = apply_progress(rec, event)
            if new is not rec:
                await self.put(new, event)
            return new

    async def requeue(self, document_id: str) -> DocumentRecord | None:
        """Set a document back to ``queued`` for a replay (the only way out of ``failed``);
        ``None`` for an unknown document."""
        async with self.lock:
            rec = self.records.get(document_id)
            if rec is None:
                return None
            new = rec.model_copy(update={"status": "queued", "stage": "uploaded", "error": None, "waiting_for": None,
                                         "pages_done": 0, "pages_total": 0, "chunk_count": 0, "step": None,
                                         "step_done": 0, "step_total": 0})
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

    def list(self) -> list[DocumentRecord]:
        """All records, newest upload first."""
        return sorted(self.records.values(), key=lambda r: r.upload_date, reverse=True)

"""Safe replacement of same-named documents, decided where the gateway folds progress events.

An upload of a filename that already exists in its department (and visibility) is a new
document; the older copies stay listed and searchable until the new one is indexed, so a
replacement that fails — a corrupt file, a stage giving up — leaves the old copy in place
(the failed one stays listed with its reason).

The rule, applied whenever a document D reaches a terminal status (``indexed`` or ``failed``):

* if a same-named document uploaded after D is already indexed, D is superseded: it is deleted
  instead of being recorded as finished;
* otherwise, if D is indexed, every same-named document uploaded before D that has finished
  (indexed or failed) is deleted, before D's ``indexed`` record is written and announced (so a
  client that sees D indexed no longer sees the copies it replaced).

An older copy still in the pipeline when D is indexed is not deleted at once: its stage may be
writing its objects at that moment, and deleting under it would leave orphaned objects or
vectors. It is deleted by the first rule the moment it finishes. So any number of concurrent
uploads of one filename end with exactly one document, the last one registered (upload order is
``DocumentRecord.upload_seq``), and nothing of the others left in Chroma or MinIO.

The decision (:func:`settle`) is a pure function of the records; :func:`fold_progress` applies it.
A deletion that fails (a store down) is logged and the fold goes on, so the progress step is not
lost; the copies left behind are settled again by the next fold of a same-named document.

With N gateway replicas, two same-named copies may reach their terminal status at once in two
replicas (each folds its own progress partitions); each decides on a synced view of the
registry and decides again once its record is written (:func:`fold_step`), so the copies still
end with exactly one.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from services.gateway import audit
from services.gateway.deletion import delete_document
from services.gateway.registry import apply_progress
from services.gateway.state import GatewayState
from services.gateway.waits import seconds
from shared.api import DocumentRecord
from shared.events import ProgressEvent

log = logging.getLogger("legco.gateway.replacement")
TERMINAL = ("indexed", "failed")


def upload_order(record: DocumentRecord) -> tuple[int, str]:
    """Sort key of uploads: the gateway's upload sequence, then the upload time (documents
    uploaded before the sequence existed have ``upload_seq`` 0, so they come first)."""
    return record.upload_seq, record.upload_date


@dataclass
class Settlement:
    """What a terminal step of one document decides: ``delete`` these (older, finished) copies;
    ``superseded``: the document itself is deleted instead of recorded."""

    delete: list[str] = field(default_factory=list)
    superseded: bool = False


def settle(record: DocumentRecord, same_name: Iterable[DocumentRecord]) -> Settlement:
    """The replacement decision for ``record`` (its status after the fold) among the other
    records of its filename, department and visibility (``Registry.same_name``)."""
    if record.status not in TERMINAL:
        return Settlement()
    rivals = [r for r in same_name if r.document_id != record.document_id]
    mine = upload_order(record)
    if any(r.status == "indexed" and upload_order(r) > mine for r in rivals):
        return Settlement(superseded=True)
    if record.status != "indexed":
        return Settlement()
    return Settlement(delete=[r.document_id for r in sorted(rivals, key=upload_order)
                              if upload_order(r) < mine and r.status in TERMINAL])


async def _delete(state: GatewayState, document_id: str, why: str) -> bool:
    """Delete one document for replacement; False (logged) when a store or the broker failed."""
    try:
        await delete_document(state, document_id)
    except Exception:  # a store down must not lose the progress step being folded
        log.exception("could not delete %s (%s); it is settled again later", document_id, why)
        return False
    log.info("deleted %s: %s", document_id, why)
    return True


async def fold_progress(state: GatewayState, event: ProgressEvent) -> DocumentRecord | None:
    """Fold one progress event into the registry and apply the replacement rule; returns the
    record as written, or ``None`` when the document is unknown (deleted) or was superseded."""
    return (await fold_step(state, event))[1]


async def fold_step(state: GatewayState, event: ProgressEvent) -> tuple[DocumentRecord | None, DocumentRecord | None]:
    """:func:`fold_progress`, also returning the record the event was folded into (``None``:
    unknown); the two are the same object when the event did not move it.

    The record is this replica's copy. When it does not know the document, or the event would
    not move it (a terminal status), it first syncs with the registry topic up to the event's
    time: another replica's upload or replay may not be folded here yet (a refold of old events
    asks Kafka once; without Kafka, the manifest is read). A
    terminal step is decided on a synced view, and decided again after its record is written:
    two same-named copies folded by two replicas at once each see the other's terminal record
    at the latest then (the second writer's sync covers the first's write), so one of them
    retires the older copy.
    """
    registry = state.registry
    async with registry.lock:
        rec = registry.get(event.document_id)
        if rec is None or apply_progress(rec, event) is rec:
            # what was acknowledged before the stage sent the event (an upload, a replay) is needed
            synced = await registry.sync(since=seconds(event.ts))
            rec = registry.get(event.document_id) or (None if synced else await registry.refresh(event.document_id))
        if rec is None:
            return None, None
        new = apply_progress(rec, event)
        if new is rec:  # a late or redelivered event: the status does not move back
            return rec, rec
        if new.status in TERMINAL:
            await registry.sync()
        if not await _settle(state, new):
            return rec, None
        await registry.put(new, event)
        if new.status in TERMINAL and registry.changelog is not None and not await _settle(state, new):
            return rec, None
        return rec, new


async def _settle(state: GatewayState, new: DocumentRecord) -> bool:
    """Apply the replacement rule to ``new`` against this replica's records; ``False`` when
    ``new`` itself was deleted (superseded)."""
    outcome = settle(new, state.registry.same_name(new)) if new.status in TERMINAL else Settlement()
    if outcome.superseded and await _delete(state, new.document_id,
                                            f"a newer {new.filename!r} of {new.department} is indexed"):
        return False
    for old in outcome.delete:
        if state.registry.get(old) is None:
            continue  # another replica retired it already
        if await _delete(state, old, f"replaced by {new.document_id}"):
            await audit.record(state, None, "replace", old, "ok", f"{new.filename} replaced by {new.document_id}",
                               department=new.department)
    return True

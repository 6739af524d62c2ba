"""The reconciler: removes what belongs to no registered document, in MinIO and in Chroma.

Orphans arise from deletes in flight (a stage wrote between its last deletion check and the
delete), interrupted uploads (a gateway killed between storing the original and its manifest)
and crashes mid-delete. One pass (:func:`plan` decides, :func:`execute` acts):

* the objects under ``documents/{id}/`` of a document with a tombstone — at once;
* the objects under ``documents/{id}/`` of a document without a manifest, once the newest of
  them is older than the grace period (an upload being stored has its original before its
  manifest; the grace period lets it finish);
* the vectors (chunks, question lines, statistics, in every index generation) of a document
  with a tombstone or without a manifest — the manifest is asked for again just before, so a
  document registered after the listing is never touched (a document has a manifest before any
  stage sees it, hence long before it has vectors);
* the tombstones themselves once nothing is left under them and they are older than the grace
  period (so a stage still holding work for the document meets the tombstone and sweeps its own
  writes; afterwards the missing manifest alone stops it).

The manifests in MinIO are the registry (every gateway replica reloads them at start), so the
reconciler asks MinIO, not one gateway's memory; every step is idempotent, and several replicas
reconciling at once only repeat each other's deletes. A pass also forgets, in its own replica,
records whose manifest is gone (a delete through another replica whose ``deleted`` change was
lost to a Kafka failure). The gateway runs a pass at start and every
``reconcile_interval_s`` seconds, and on ``POST /api/v1/reconcile`` (admin); each pass counts
what it removed in ``legco_reconciler_removed_total{kind}`` (``objects``, ``vectors``,
``tombstones``).
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from services.gateway.changelog import ChangelogUnavailable
from services.gateway.deletion import publish_deleted
from services.gateway.state import GatewayState
from shared import storage
from shared.api import ReconcileReport
from shared.metrics import RECONCILER_REMOVED

log = logging.getLogger("legco.gateway.reconcile")


class Objects(Protocol):
    """What the reconciler needs of the object store (``shared.storage.ObjectStore``)."""

    def list_objects(self, prefix: str) -> Iterator[tuple[str, datetime]]: ...

    def exists(self, key: str) -> bool: ...

    def delete_prefix(self, prefix: str) -> int: ...

    def delete(self, key: str) -> None: ...


class Generation(Protocol):
    """One index generation's collections (``VectorStore.at(g)``)."""

    def document_ids(self) -> set[str]: ...

    def count_document_records(self, document_id: str) -> int: ...

    def delete_document_here(self, document_id: str) -> None: ...


class Vectors(Protocol):
    """What the reconciler needs of the vector store (``shared.vectorstore.VectorStore``)."""

    def generations(self) -> list[int]: ...

    def at(self, generation: int) -> Generation: ...


@dataclass
class DocumentObjects:
    """The objects of one document id under ``documents/{id}/``."""

    count: int = 0
    manifest: bool = False
    newest: datetime = datetime.min.replace(tzinfo=UTC)


@dataclass
class Inventory:
    """What one pass found: objects per document id, tombstones (id → written at), and per
    index generation the ids of the documents with vectors."""

    documents: dict[str, DocumentObjects] = field(default_factory=dict)
    tombstones: dict[str, datetime] = field(default_factory=dict)
    vectors: dict[int, set[str]] = field(default_factory=dict)


@dataclass
class Plan:
    """What a pass removes: document id → why, for objects and for vectors; tombstones by id."""

    objects: dict[str, str] = field(default_factory=dict)
    vectors: dict[str, str] = field(default_factory=dict)
    tombstones: list[str] = field(default_factory=list)


def take_inventory(store: Objects, vectors: Vectors) -> Inventory:
    """List tombstones, then objects, then vectors (blocking). Tombstones come first: a delete
    writes its tombstone before it removes anything, so a document whose objects are listed
    without a tombstone being seen was not being deleted when the listing began."""
    inv = Inventory()
    for key, modified in store.list_objects(storage.TOMBSTONES_PREFIX):
        doc_id = key[len(storage.TOMBSTONES_PREFIX):]
        if storage.valid_document_id(doc_id):
            inv.tombstones[doc_id] = modified
    for key, modified in store.list_objects(storage.DOCUMENTS_PREFIX):
        of = storage.document_id_of(key)
        if of is None:
            continue
        objs = inv.documents.setdefault(of, DocumentObjects())
        objs.count += 1
        objs.manifest = objs.manifest or key == storage.manifest_key(of)
        objs.newest = max(objs.newest, modified)
    for g in vectors.generations():
        inv.vectors[g] = vectors.at(g).document_ids()
    return inv


def plan(inv: Inventory, now: datetime, grace_s: float) -> Plan:
    """The removals an inventory calls for (pure; see the module docstring)."""
    out = Plan()
    for doc_id, objs in inv.documents.items():
        if doc_id in inv.tombstones:
            out.objects[doc_id] = "deleted"
        elif not objs.manifest and (now - objs.newest).total_seconds() > grace_s:
            out.objects[doc_id] = "interrupted upload" if objs.count == 1 else "no manifest"
    for ids in inv.vectors.values():
        for doc_id in ids:
            if doc_id in inv.tombstones:
                out.vectors[doc_id] = "deleted"
            elif not inv.documents.get(doc_id, DocumentObjects()).manifest:
                out.vectors[doc_id] = "no manifest"
    for doc_id, written in inv.tombstones.items():
        objects_left = doc_id in inv.documents and doc_id not in out.objects
        vectors_left = any(doc_id in ids for ids in inv.vectors.values()) and doc_id not in out.vectors
        if not objects_left and not vectors_left and (now - written).total_seconds() > grace_s:
            out.tombstones.append(doc_id)
    return out


def execute(store: Objects, vectors: Vectors, todo: Plan, inv: Inventory) -> ReconcileReport:
    """Carry out a plan (blocking): objects, then vectors, then tombstones. A document that
    gained a manifest since the listing, and has no tombstone, is left alone."""
    report = ReconcileReport()

    def registered(doc_id: str) -> bool:
        return doc_id not in inv.tombstones and store.exists(storage.manifest_key(doc_id))

    for doc_id, why in sorted(todo.objects.items()):
        if why != "deleted" and registered(doc_id):
            continue
        n = store.delete_prefix(storage.document_prefix(doc_id))
        if n:
            report.objects += n
            report.documents.append(doc_id)
            log.info("reconciler: removed %d objects of %s (%s)", n, doc_id, why, extra={"document_id": doc_id})
    for doc_id, why in sorted(todo.vectors.items()):
        if why != "deleted" and registered(doc_id):
            continue
        removed = 0
        for g, ids in inv.vectors.items():
            if doc_id in ids:
                gen = vectors.at(g)
                removed += gen.count_document_records(doc_id)
                gen.delete_document_here(doc_id)
        if removed:
            report.vectors += removed
            if doc_id not in report.documents:
                report.documents.append(doc_id)
            log.info("reconciler: removed %d vectors of %s (%s)", removed, doc_id, why,
                     extra={"document_id": doc_id})
    for doc_id in todo.tombstones:
        store.delete(storage.tombstone_key(doc_id))
        report.tombstones += 1
    return report


def reconcile_once(store: Objects, vectors: Vectors, grace_s: float, now: datetime | None = None) -> ReconcileReport:
    """One pass (blocking): inventory, plan, execute; returns what was removed."""
    return reconcile_pass(store, vectors, grace_s, now)[0]


def reconcile_pass(store: Objects, vectors: Vectors, grace_s: float,
                   now: datetime | None = None) -> tuple[ReconcileReport, Inventory]:
    """One pass (blocking); returns what was removed and the inventory it acted on."""
    start = time.perf_counter()
    inv = take_inventory(store, vectors)
    report = execute(store, vectors, plan(inv, now or datetime.now(UTC), grace_s), inv)
    report.took_s = round(time.perf_counter() - start, 3)
    return report, inv


async def reconcile(state: GatewayState) -> ReconcileReport:
    """One pass for the gateway: removes orphans, counts them, drops the removed documents from
    the registry (a gateway killed mid-delete left a record) and tells the query service
    (``documents.deleted``), so no keyword entry of them is left either."""
    known = set(state.registry.records)  # before the listing: each had its manifest written before
    report, inv = await asyncio.to_thread(reconcile_pass, state.store, state.vectors, state.settings.reconcile_grace_s)
    for kind, n in (("objects", report.objects), ("vectors", report.vectors), ("tombstones", report.tombstones)):
        if n:
            RECONCILER_REMOVED.labels(kind).inc(n)
    for doc_id in report.documents:
        rec = state.registry.get(doc_id)
        await publish_deleted(state, doc_id, rec)
        if rec is not None:
            try:
                await state.registry.forget(doc_id)
            except ChangelogUnavailable:  # Kafka down: forgotten here; the other replicas' passes find no manifest
                log.warning("reconciler: the other replicas were not told %s is gone", doc_id)
    await drop_ghosts(state, known, inv)
    if report.objects or report.vectors or report.tombstones:
        log.info("reconciler: %d objects, %d vectors, %d tombstones removed in %.2f s", report.objects,
                 report.vectors, report.tombstones, report.took_s)
    return report


async def drop_ghosts(state: GatewayState, known: set[str], inv: Inventory) -> None:
    """Forget, in this replica, the records of ``known`` (ids it held before ``inv`` was
    listed) whose manifest is gone: a document deleted through another replica whose
    ``deleted`` change never came (Kafka failed in between). Each is asked of MinIO once more
    first; a document uploaded within the grace period is left alone (its manifest may be
    being written)."""
    young_ns = time.time_ns() - int(state.settings.reconcile_grace_s * 1e9)
    for doc_id in sorted(known):
        objs, rec = inv.documents.get(doc_id), state.registry.get(doc_id)
        if rec is None or rec.upload_seq > young_ns or (objs is not None and objs.manifest):
            continue
        if not await asyncio.to_thread(state.store.exists, storage.manifest_key(doc_id)):
            log.info("reconciler: %s has no manifest any more; forgotten here", doc_id)
            state.registry.drop(doc_id)


async def reconcile_forever(state: GatewayState) -> None:
    """A pass at start, then every ``reconcile_interval_s`` seconds (a failed pass — a store
    down — is logged and the next one comes on time)."""
    while True:
        try:
            await reconcile(state)
        except Exception:
            log.exception("reconciler pass failed")
        await asyncio.sleep(state.settings.reconcile_interval_s)

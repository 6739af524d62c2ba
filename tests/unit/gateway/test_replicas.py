"""What each gateway replica holds in memory, when several share one MinIO: API keys (a key made
or revoked through one replica, seen by another), key uses (never written back over a
revocation), and registry records (a late record of a forgotten document is not taken back; a
record whose manifest went is dropped by the reconciler). The registry topic itself is tested
end to end (``tests/e2e/test_gateway_replicas_e2e.py``)."""
from __future__ import annotations

import pytest

from services.gateway.auth.keys import KeyStore, record_key, usage_key
from services.gateway.reconcile import DocumentObjects, Inventory, drop_ghosts
from services.gateway.registry import Registry
from services.gateway.sse import DocumentHub
from shared.api import DocumentRecord
from shared.registry_change import RegistryChange
from tests.unit.gateway.test_gateway_contract import Gateway, MemoryStore

DOC = "d" * 32


def record(document_id: str = DOC, status: str = "queued") -> DocumentRecord:
    return DocumentRecord(document_id=document_id, filename="a.txt", strategy="token", status=status,  # type: ignore[arg-type]
                          upload_date="2026-12-01T00:00:00+00:00", updated_at="2026-12-01T00:00:00+00:00")


async def test_a_key_made_on_one_replica_works_on_another_and_its_revocation_reaches_it() -> None:
    store = MemoryStore()
    one, two = KeyStore(store), KeyStore(store)  # type: ignore[arg-type]
    key, rec = await one.create("dept-a", "member")
    assert (await two.verify(key)) is not None  # unknown prefix: read from MinIO
    await one.revoke(rec.key_prefix)
    assert (await two.verify(key)) is not None  # two's copy is younger than its TTL, nobody told it
    await two.refresh(rec.key_prefix)  # what the registry topic's ``key`` change makes it do
    assert (await two.verify(key)) is None


async def test_a_revocation_whose_announcement_was_lost_takes_effect_after_the_ttl() -> None:
    store = MemoryStore()
    one, two = KeyStore(store), KeyStore(store, ttl_s=0.0)  # type: ignore[arg-type]
    key, rec = await one.create("dept-a", "member")
    assert (await two.verify(key)) is not None
    await one.revoke(rec.key_prefix)
    assert (await two.verify(key)) is None


async def test_recording_a_use_never_writes_back_a_revoked_record() -> None:
    store = MemoryStore()
    one, two = KeyStore(store), KeyStore(store)  # type: ignore[arg-type]
    key, rec = await one.create("dept-a", "member")
    assert (await two.verify(key)) is not None  # two holds the active record
    await one.revoke(rec.key_prefix)
    two._flushed.clear()  # its next use is written
    await two.verify(key)
    assert store.get_json(record_key(rec.key_prefix))["revoked_at"] is not None
    assert "last_used_at" in store.get_json(usage_key(rec.key_prefix))
    fresh = KeyStore(store)  # type: ignore[arg-type]
    await fresh.load()
    listed = {r.key_prefix: r for r in fresh.list()}[rec.key_prefix]
    assert not listed.active and listed.last_used_at == store.get_json(usage_key(rec.key_prefix))["last_used_at"]


async def test_a_record_arriving_after_its_documents_deletion_is_not_taken_back() -> None:
    hub = DocumentHub()
    registry = Registry(MemoryStore(), hub)  # type: ignore[arg-type]
    q = hub.subscribe()
    await registry.apply_change(RegistryChange(kind="document", document_id=DOC, record=record()))
    await registry.apply_change(RegistryChange(kind="deleted", document_id=DOC))
    await registry.apply_change(RegistryChange(kind="document", document_id=DOC, record=record(status="processing")))
    assert registry.get(DOC) is None
    assert [q.get_nowait()["event"] for _ in range(q.qsize())] == ["document", "deleted"]
    assert await registry.load() == 0


@pytest.mark.parametrize("manifest", [True, False])
async def test_the_reconciler_drops_a_record_whose_manifest_is_gone(manifest: bool) -> None:
    gw = Gateway()
    gw.registry.records[DOC] = record(status="indexed")
    if manifest:
        gw.store.put_json(f"documents/{DOC}/manifest.json", record(status="indexed"))
    inv = Inventory(documents={DOC: DocumentObjects(count=1, manifest=manifest)} if manifest else {})
    await drop_ghosts(gw.app.state.gateway, {DOC}, inv)
    assert (gw.registry.get(DOC) is not None) is manifest
    assert [e for e, _ in gw.sse()] == ([] if manifest else ["deleted"])

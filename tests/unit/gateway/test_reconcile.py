"""The reconciler's pass on in-memory stores: objects and vectors of tombstoned documents go at
once, those of documents without a manifest once older than the grace period, tombstones once
nothing is left under them; a document registered meanwhile is never touched."""
from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from services.gateway.reconcile import plan, reconcile_once, take_inventory
from shared import storage

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
OLD = NOW - timedelta(hours=1)
A, B, C, D, E = (c * 32 for c in "abcde")


class Objects:
    """Keys with their last-modified times."""

    def __init__(self, objects: dict[str, datetime]) -> None:
        self.objects = dict(objects)

    def list_objects(self, prefix: str) -> Iterator[tuple[str, datetime]]:
        return iter([(k, t) for k, t in sorted(self.objects.items()) if k.startswith(prefix)])

    def exists(self, key: str) -> bool:
        return key in self.objects

    def delete_prefix(self, prefix: str) -> int:
        gone = [k for k in self.objects if k.startswith(prefix)]
        for k in gone:
            del self.objects[k]
        return len(gone)

    def delete(self, key: str) -> None:
        self.objects.pop(key, None)


class Vectors:
    """Records (chunks, question lines, statistics) per document, in one index generation."""

    def __init__(self, records: dict[str, int]) -> None:
        self.records = dict(records)

    def document_ids(self) -> set[str]:
        return set(self.records)

    def count_document_records(self, document_id: str) -> int:
        return self.records.get(document_id, 0)

    def delete_document_here(self, document_id: str) -> None:
        self.records.pop(document_id, None)

    def generations(self) -> list[int]:
        return [0]

    def at(self, generation: int) -> Vectors:
        return self


def doc(doc_id: str, when: datetime, *names: str) -> dict[str, datetime]:
    return {f"documents/{doc_id}/{n}": when for n in names}


def test_a_pass_removes_what_belongs_to_no_registered_document() -> None:
    objects = Objects({
        **doc(A, OLD, "manifest.json", "original", "chunks.json"),      # registered: kept
        **doc(B, NOW, "pages/1.pdf", "pages/2.pdf"),                    # deleted in flight: tombstoned
        storage.tombstone_key(B): NOW,
        **doc(C, OLD, "original"),                                       # an interrupted upload, old
        **doc(D, NOW - timedelta(seconds=30), "original"),               # an upload being stored now
        storage.tombstone_key(E): OLD,                                   # spent tombstone
    })
    vectors = Vectors({A: 5, B: 7, "f" * 32: 3})                         # f: no manifest, no objects
    report = reconcile_once(objects, vectors, grace_s=600, now=NOW)
    assert (report.objects, report.vectors, report.tombstones) == (3, 10, 1)
    assert sorted(report.documents) == sorted([B, C, "f" * 32])
    assert set(objects.objects) == {*doc(A, OLD, "manifest.json", "original", "chunks.json"),
                                    *doc(D, NOW, "original"), storage.tombstone_key(B)}
    assert vectors.records == {A: 5}
    # the next pass, past the grace period: B's tombstone goes too (nothing is left under it)
    later = reconcile_once(objects, vectors, grace_s=600, now=NOW + timedelta(hours=1))
    assert later.tombstones == 1 and storage.tombstone_key(B) not in objects.objects
    assert set(objects.objects) == set(doc(A, OLD, "manifest.json", "original", "chunks.json"))


def test_a_document_registered_after_the_listing_is_left_alone() -> None:
    objects = Objects(doc(C, OLD, "original"))
    vectors = Vectors({C: 4})
    inv = take_inventory(objects, vectors)
    todo = plan(inv, NOW, grace_s=600)
    assert set(todo.objects) == {C} and set(todo.vectors) == {C}
    objects.objects[storage.manifest_key(C)] = NOW  # the manifest arrives before the pass acts
    from services.gateway.reconcile import execute

    report = execute(objects, vectors, todo, inv)
    assert (report.objects, report.vectors) == (0, 0) and vectors.records == {C: 4}


def test_a_tombstone_stays_while_anything_is_left_or_it_is_young() -> None:
    young = Objects({storage.tombstone_key(B): NOW - timedelta(seconds=10)})
    assert reconcile_once(young, Vectors({}), grace_s=600, now=NOW).tombstones == 0
    held = Objects({storage.tombstone_key(B): OLD, **doc(B, NOW, "pages/3.pdf")})
    vectors = Vectors({B: 2})
    todo = plan(take_inventory(held, vectors), NOW, grace_s=600)
    # what is left goes first (execute: objects, vectors, then tombstones), so one pass does all
    assert todo.objects == {B: "deleted"} and todo.vectors == {B: "deleted"} and todo.tombstones == [B]
    assert reconcile_once(held, vectors, grace_s=600, now=NOW).tombstones == 1
    assert held.objects == {} and vectors.records == {}

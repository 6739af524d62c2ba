"""Departments on the gateway app (in-memory stores, no services): every route is scoped to the
caller's department and the shared library, another department's document is a 404 exactly like
a missing one, shared documents are changed by admins only, uploads go where the key may put
them, replacement waits for the new copy to be indexed, and an upload Kafka does not take is
undone with 503."""
from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import httpx
import pytest
from fastapi import HTTPException
from fastapi.testclient import TestClient

from services.gateway.access import read_scope, upload_target
from services.gateway.replacement import fold_progress, settle
from services.gateway.sse import DocumentHub
from shared.api import Caller, DocumentRecord
from shared.events import DocumentUploaded, ProgressEvent
from tests.unit.gateway.test_gateway_contract import ADMIN_KEY, Gateway, MemoryVectors, key_store

A_MEMBER = "lgk_a1a1a1a1_" + "a" * 32
A_READER = "lgk_a2a2a2a2_" + "r" * 32
B_MEMBER = "lgk_b1b1b1b1_" + "b" * 32
MISSING = "f" * 32


class Stack:
    """A gateway with keys for two departments (``dept-a``: member and reader; ``dept-b``:
    member) and an admin, one document of each department and one shared document."""

    def __init__(self) -> None:
        self.gw = Gateway(MemoryVectors())
        self.state = self.gw.app.state.gateway
        self.state.keys = key_store(self.gw.store, (ADMIN_KEY, "default", "admin"), (A_MEMBER, "dept-a", "member"),
                                    (A_READER, "dept-a", "reader"), (B_MEMBER, "dept-b", "member"))
        self.a = self.add("a.pdf", "dept-a")
        self.b = self.add("b.pdf", "dept-b")
        self.shared = self.add("council.pdf", "ops", "shared")

    def add(self, filename: str, department: str, visibility: str = "department") -> str:
        doc_id = f"{len(self.gw.registry.records) + 1:032x}"
        self.gw.registry.records[doc_id] = DocumentRecord(
            document_id=doc_id, filename=filename, department=department, visibility=visibility,  # type: ignore[arg-type]
            strategy="token", status="indexed", stage="indexed", chunk_count=1, file_type="pdf",
            upload_date="2026-05-16T00:00:00+00:00")
        meta = {"document_id": doc_id, "department": department, "visibility": visibility, "chunk_index": 0,
                "filename": filename, "file_type": "pdf", "page_number": 1}
        self.state.vectors.chunks[f"{doc_id}_0"] = ("text", meta)
        self.gw.store.objects[f"documents/{doc_id}/pages/1.pdf"] = b"%PDF-1.4 page"
        return doc_id

    def client(self, key: str) -> TestClient:
        return TestClient(self.gw.app, headers={"Authorization": f"Bearer {key}"})


@pytest.fixture
def st() -> Stack:
    return Stack()


def listed(client: TestClient, **params: str) -> set[str]:
    return {d["document_id"] for d in client.get("/api/v1/documents", params=params).json()["documents"]}


# --- the rules themselves ------------------------------------------------------------------------

def caller(role: str, department: str = "dept-a") -> Caller:
    return Caller(key_prefix="00000000", department=department, role=role)  # type: ignore[arg-type]


def test_read_scope() -> None:
    assert read_scope(caller("reader")) == {"dept-a"}
    assert read_scope(caller("member"), "dept-a") == {"dept-a"}
    assert read_scope(caller("admin")) is None
    assert read_scope(caller("admin"), "dept-b") == {"dept-b"}
    assert read_scope(caller("admin"), "") is None
    with pytest.raises(HTTPException) as e:
        read_scope(caller("member"), "dept-b")
    assert e.value.status_code == 403
    with pytest.raises(HTTPException) as e:
        read_scope(caller("admin"), "Bad/Name")
    assert e.value.status_code == 400


def test_upload_target() -> None:
    assert upload_target(caller("member"), None, None) == ("dept-a", "department")
    assert upload_target(caller("member"), "dept-a", "department") == ("dept-a", "department")
    assert upload_target(caller("admin", "default"), None, None) == ("default", "department")
    assert upload_target(caller("admin", "default"), "legco", "shared") == ("legco", "shared")
    for dept, vis, status in [("dept-b", None, 403), (None, "shared", 403), (None, "public", 400),
                              ("Bad Name", None, 400)]:
        with pytest.raises(HTTPException) as e:
            upload_target(caller("member"), dept, vis)
        assert e.value.status_code == status, (dept, vis)


def rec(doc_id: str, seq: int, status: str = "indexed") -> DocumentRecord:
    return DocumentRecord(document_id=doc_id, filename="p.pdf", department="dept-a", strategy="token",
                          status=status, upload_seq=seq, upload_date="2026-05-16T00:00:00+00:00")  # type: ignore[arg-type]


def test_settle_deletes_finished_older_copies_only() -> None:
    old_indexed, old_failed, old_running = rec("1", 1), rec("2", 2, "failed"), rec("3", 3, "processing")
    out = settle(rec("4", 4), [old_indexed, old_failed, old_running])
    assert out.delete == ["1", "2"] and not out.superseded  # the running one is settled when it finishes
    assert settle(rec("3", 3), [rec("4", 4)]).superseded   # a newer copy is indexed: this one goes
    assert settle(rec("3", 3, "failed"), [rec("4", 4)]).superseded
    assert settle(rec("4", 4, "failed"), [old_indexed]).delete == []  # a failed replacement keeps the old copy
    assert settle(rec("4", 4, "processing"), [old_indexed]).delete == []
    assert settle(rec("3", 3), [rec("4", 4, "processing")]).delete == []


# --- every route is scoped ------------------------------------------------------------------------

def test_lists_are_scoped(st: Stack) -> None:
    assert listed(st.client(A_MEMBER)) == {st.a, st.shared}
    assert listed(st.client(A_READER)) == {st.a, st.shared}
    assert listed(st.client(B_MEMBER)) == {st.b, st.shared}
    admin = st.client(ADMIN_KEY)
    assert listed(admin) == {st.a, st.b, st.shared}
    assert listed(admin, department="dept-b") == {st.b, st.shared}
    body = st.client(A_MEMBER).get("/api/v1/documents").json()
    assert body["total_documents"] == 2 and body["total_chunks"] == 2
    assert st.client(A_MEMBER).get("/api/v1/documents", params={"department": "dept-b"}).status_code == 403


@pytest.mark.parametrize("route", ["/api/v1/documents/{id}", "/api/v1/documents/{id}/chunks",
                                   "/api/v1/documents/{id}/pages/1.pdf"])
def test_another_departments_document_is_missing(st: Stack, route: str) -> None:
    b = st.client(B_MEMBER)
    other, missing = b.get(route.format(id=st.a)), b.get(route.format(id=MISSING))
    assert other.status_code == missing.status_code == 404
    assert other.json() == missing.json()
    assert st.client(A_READER).get(route.format(id=st.a)).status_code == 200
    assert st.client(B_MEMBER).get(route.format(id=st.shared)).status_code == 200
    assert st.client(ADMIN_KEY).get(route.format(id=st.b)).status_code == 200


def test_deletes_are_scoped(st: Stack) -> None:
    b = st.client(B_MEMBER)
    for path in (f"/api/v1/documents/{st.a}", f"/api/v1/chunks/{st.a}_0"):
        other = b.delete(path)
        missing = b.delete(path.replace(st.a, MISSING))
        assert other.status_code == missing.status_code == 404 and other.json() == missing.json()
    assert st.gw.registry.get(st.a) is not None and f"{st.a}_0" in st.state.vectors.chunks
    assert st.client(A_READER).delete(f"/api/v1/documents/{st.a}").status_code == 403
    assert st.client(A_READER).delete(f"/api/v1/chunks/{st.a}_0").status_code == 403
    assert st.client(A_MEMBER).delete(f"/api/v1/chunks/{st.a}_0").status_code == 200
    assert st.client(A_MEMBER).delete(f"/api/v1/documents/{st.a}").status_code == 200
    assert st.client(ADMIN_KEY).delete(f"/api/v1/documents/{st.b}").status_code == 200


def test_shared_documents_are_changed_by_admins_only(st: Stack) -> None:
    for key in (A_MEMBER, B_MEMBER):
        for path in (f"/api/v1/documents/{st.shared}", f"/api/v1/chunks/{st.shared}_0"):
            resp = st.client(key).delete(path)
            assert resp.status_code == 403 and "shared library" in resp.json()["detail"]
    assert st.gw.registry.get(st.shared) is not None
    assert st.client(ADMIN_KEY).delete(f"/api/v1/documents/{st.shared}").status_code == 200


def test_sse_hub_sends_each_client_its_scope() -> None:
    hub = DocumentHub()
    a, b, admin, filtered = hub.subscribe({"dept-a"}), hub.subscribe({"dept-b"}), hub.subscribe(), hub.subscribe(
        {"dept-b"})
    hub.broadcast("document", {"document_id": "1"}, "dept-a", "department")
    hub.broadcast("deleted", {"document_id": "2"}, "dept-b", "department")
    hub.broadcast("document", {"document_id": "3"}, "ops", "shared")

    def got(q: asyncio.Queue[dict[str, str]]) -> list[str]:
        return [json.loads(q.get_nowait()["data"])["document_id"] for _ in range(q.qsize())]

    assert got(a) == ["1", "3"] and got(b) == ["2", "3"] and got(admin) == ["1", "2", "3"]
    assert got(filtered) == ["2", "3"]


def test_registry_changes_reach_only_the_clients_that_may_see_them(st: Stack) -> None:
    b_queue = st.gw.hub.subscribe({"dept-b"})
    st.client(A_MEMBER).post("/api/v1/ingest", files={"file": ("x.txt", b"text", "text/plain")})
    st.client(A_MEMBER).delete(f"/api/v1/documents/{st.a}")
    assert b_queue.empty()


class FakeQueryService:
    """Captures what the gateway forwards to the query service."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    async def post(self, url: str, content: bytes, **_: Any) -> Any:
        self.bodies.append(json.loads(content))  # the gateway sends the ScopedQueryRequest's JSON bytes
        return httpx.Response(200, json={"answer": "", "answer_mode": "extractive", "notice": None,
                                         "llm_model": None, "sources": []})


@pytest.mark.parametrize(("key", "params", "departments"), [
    (A_READER, {}, ["dept-a"]), (B_MEMBER, {}, ["dept-b"]), (ADMIN_KEY, {}, None),
    (ADMIN_KEY, {"department": "dept-a"}, ["dept-a"])])
def test_query_is_forwarded_with_the_callers_departments(st: Stack, key: str, params: dict[str, str],
                                                         departments: list[str] | None) -> None:
    fake = FakeQueryService()
    st.state.http = fake
    resp = st.client(key).post("/api/v1/query", params=params, json={"question": "無障礙", "document_ids": [st.b]})
    assert resp.status_code == 200
    assert fake.bodies[-1]["departments"] == departments and fake.bodies[-1]["document_ids"] == [st.b]


# --- uploads ---------------------------------------------------------------------------------------

def test_uploads_go_where_the_key_may_put_them(st: Stack) -> None:
    a = st.client(A_MEMBER)
    made = a.post("/api/v1/ingest", files={"file": ("n.txt", b"text", "text/plain")}).json()
    assert (made["department"], made["visibility"]) == ("dept-a", "department")
    sent = st.gw.uploads.sent[-1]
    assert isinstance(sent, DocumentUploaded) and (sent.department, sent.visibility) == ("dept-a", "department")
    for params in ({"department": "dept-b"}, {"visibility": "shared"}):
        resp = a.post("/api/v1/ingest", params=params, files={"file": ("n.txt", b"text", "text/plain")})
        assert resp.status_code == 403, params
    assert st.client(A_READER).post("/api/v1/ingest", files={"file": ("n.txt", b"t", "text/plain")}).status_code == 403
    admin = st.client(ADMIN_KEY)
    made = admin.post("/api/v1/ingest", params={"department": "legco", "visibility": "shared"},
                      files={"file": ("n.txt", b"text", "text/plain")}).json()
    assert (made["department"], made["visibility"]) == ("legco", "shared")
    assert made["document_id"] in listed(st.client(B_MEMBER))  # the shared library is everyone's


def test_same_filename_in_two_departments_is_two_documents(st: Stack) -> None:
    a = st.client(A_MEMBER).post("/api/v1/ingest", files={"file": ("b.pdf", b"%PDF-1.4", "application/pdf")}).json()
    assert a["replaced"] == []  # dept-b's b.pdf is another document
    again = st.client(B_MEMBER).post("/api/v1/ingest", files={"file": ("b.pdf", b"%PDF-1.4", "application/pdf")})
    assert again.json()["replaced"] == [st.b]


async def test_concurrent_uploads_of_one_filename_end_with_the_last_one(st: Stack) -> None:
    ids = [st.gw.upload("paper.txt", f"copy {n}".encode()).json()["document_id"] for n in range(10)]
    assert st.gw.upload("paper.txt", b"x").json()["replaced"] == ids  # every earlier copy, oldest first
    ids.append(st.gw.registry.list()[0].document_id)
    random.Random(7).shuffle(order := ids[:])
    for doc_id in order:  # the pipeline finishes them in any order
        await fold_progress(st.state, ProgressEvent(document_id=doc_id, stage="indexed", status="indexed",
                                                    chunk_count=1))
    left = [r for r in st.gw.registry.list() if r.filename == "paper.txt"]
    assert [r.document_id for r in left] == [ids[-1]] and left[0].status == "indexed"
    assert not [k for k in st.gw.store.objects if any(k.startswith(f"documents/{i}/") for i in ids[:-1])]


async def test_a_failed_replacement_leaves_the_old_copy(st: Stack) -> None:
    new = st.client(A_MEMBER).post("/api/v1/ingest", files={"file": ("a.pdf", b"junk", "application/pdf")}).json()
    assert new["replaced"] == [st.a]
    await fold_progress(st.state, ProgressEvent(document_id=new["document_id"], stage="failed", status="failed",
                                                error="The file is not a readable PDF."))
    assert {st.a, new["document_id"]} <= listed(st.client(A_MEMBER))
    assert st.gw.registry.get(st.a).status == "indexed"  # type: ignore[union-attr]
    third = st.client(A_MEMBER).post("/api/v1/ingest", files={"file": ("a.pdf", b"%PDF", "application/pdf")}).json()
    await fold_progress(st.state, ProgressEvent(document_id=third["document_id"], stage="indexed", status="indexed"))
    assert [d for d in listed(st.client(A_MEMBER)) if st.gw.registry.records[d].filename == "a.pdf"] == [
        third["document_id"]]


class StuckPublisher:
    """A publisher whose broker never answers (Kafka down)."""

    async def publish(self, message: Any, key: bytes | None = None) -> None:
        await asyncio.sleep(3600)


def documents_objects(st: Stack) -> set[str]:
    return {k for k in st.gw.store.objects if k.startswith("documents/")}


def test_an_upload_kafka_does_not_take_is_undone(st: Stack) -> None:
    st.state.uploads = StuckPublisher()
    st.state.settings = st.state.settings.model_copy(update={"publish_timeout_s": 0.2})
    before = documents_objects(st)
    resp = st.client(A_MEMBER).post("/api/v1/ingest", files={"file": ("k.txt", b"text", "text/plain")})
    assert resp.status_code == 503 and "Kafka" in resp.json()["detail"]
    assert documents_objects(st) == before
    assert "k.txt" not in {r.filename for r in st.gw.registry.list()}


async def test_documents_from_before_departments_belong_to_default() -> None:
    """A manifest written before departments (no visibility, no upload sequence) loads as
    department ``default``, visibility ``department``: admins and ``default`` keys see it."""
    st = Stack()
    old = "e" * 32
    st.gw.store.objects[f"documents/{old}/manifest.json"] = json.dumps({
        "document_id": old, "filename": "old.pdf", "department": "default", "strategy": "token",
        "status": "indexed", "stage": "indexed", "chunk_count": 3,
        "upload_date": "2025-01-01T00:00:00+00:00"}).encode()
    await st.gw.registry.load()
    rec = st.gw.registry.get(old)
    assert rec is not None and (rec.department, rec.visibility, rec.upload_seq) == ("default", "department", 0)
    default_member = "lgk_d1d1d1d1_" + "d" * 32
    st.state.keys.records.update(key_store(st.gw.store, (default_member, "default", "member")).records)
    assert old in listed(st.client(default_member)) and old in listed(st.client(ADMIN_KEY))
    assert old not in listed(st.client(A_MEMBER))
    new = st.client(default_member).post("/api/v1/ingest", files={"file": ("old.pdf", b"%PDF", "application/pdf")})
    assert new.json()["replaced"] == [old]  # a re-upload replaces it like any other copy


def test_uploads_are_counted_by_department(st: Stack) -> None:
    from shared.metrics import REGISTRY

    def count() -> float:
        return REGISTRY.get_sample_value("legco_documents_total", {"stage": "upload", "outcome": "accepted",
                                                                   "department": "dept-b"}) or 0.0

    before = count()
    st.client(B_MEMBER).post("/api/v1/ingest", files={"file": ("m.txt", b"text", "text/plain")})
    assert count() == before + 1

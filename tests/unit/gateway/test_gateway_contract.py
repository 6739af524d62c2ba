"""The gateway's HTTP and SSE contract (``shared.api``) on an app built by ``create_app()`` whose
lifespan does not run: in-memory stand-ins for MinIO, Chroma and the uploads publisher, so no
services are needed. The real stores are exercised by ``tests/e2e/test_pipeline_e2e.py``."""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.gateway.auth.keys import KeyRecord, KeyStore, key_sha256
from services.gateway.main import create_app
from services.gateway.registry import Registry
from services.gateway.replacement import fold_progress
from services.gateway.sse import DocumentHub
from services.gateway.state import GatewayState
from shared.api import DocumentRecord
from shared.events import ProgressEvent
from shared.models import ACCEPTED_EXTENSIONS
from shared.settings import Settings


class MemoryStore:
    """The part of ``ObjectStore`` the gateway uses, in a dict (key → bytes)."""

    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}

    def put_bytes(self, key: str, data: bytes, content_type: str = "") -> None:
        self.objects[key] = data

    def get_bytes(self, key: str) -> bytes:
        return self.objects[key]

    def put_json(self, key: str, obj: Any) -> None:
        if hasattr(obj, "model_dump"):
            obj = obj.model_dump(mode="json")
        self.objects[key] = json.dumps(obj).encode()

    def get_json(self, key: str) -> Any:
        return json.loads(self.objects[key])

    def list_keys(self, prefix: str) -> Iterator[str]:
        return iter([k for k in self.objects if k.startswith(prefix)])

    def exists(self, key: str) -> bool:
        return key in self.objects

    def delete_document(self, document_id: str) -> int:
        gone = [k for k in self.objects if k.startswith(f"documents/{document_id}/")]
        for k in gone:
            del self.objects[k]
        return len(gone)


class MemoryVectors:
    """Chunks of one document as Chroma's ``get`` returns them."""

    def __init__(self, chunks: dict[str, tuple[str, dict[str, Any]]] | None = None) -> None:
        self.chunks = chunks or {}
        self.searches: list[tuple[str, dict[str, Any] | None]] = []
        self.down = False

    def get_document_chunks(self, document_id: str) -> dict[str, list]:
        ids = [i for i, (_, m) in self.chunks.items() if m.get("document_id") == document_id]
        return {"ids": ids, "documents": [self.chunks[i][0] for i in ids],
                "metadatas": [self.chunks[i][1] for i in ids]}

    def delete_document(self, document_id: str) -> None:
        self.chunks = {i: c for i, c in self.chunks.items() if c[1].get("document_id") != document_id}

    def get_ids(self, ids: list[str]) -> dict[str, list]:
        found = [i for i in ids if i in self.chunks]
        return {"ids": found, "documents": [self.chunks[i][0] for i in found],
                "metadatas": [self.chunks[i][1] for i in found]}

    def delete_ids(self, ids: list[str]) -> None:
        for i in ids:
            self.chunks.pop(i, None)

    def documents_containing(self, text: str, where: dict[str, Any] | None = None) -> set[str]:
        """Documents with a chunk containing ``text`` (ignoring case) whose metadata meets
        ``where`` (the ``shared.scope.chroma_where`` shapes); each call is kept in ``searches``."""
        self.searches.append((text, where))
        if self.down:
            raise ConnectionError("Chroma is down")
        return {str(m["document_id"]) for t, m in self.chunks.values()
                if text.casefold() in t.casefold() and _meets(m, where)}


def _meets(meta: dict[str, Any], where: dict[str, Any] | None) -> bool:
    """Chroma's ``where`` for the shapes the gateway sends (``$or``, ``$in``, equality)."""
    if not where:
        return True
    if "$or" in where:
        return any(_meets(meta, w) for w in where["$or"])
    return all(meta.get(k) in v["$in"] if isinstance(v, dict) else meta.get(k) == v for k, v in where.items())


class Publisher:
    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def publish(self, message: Any, key: bytes | None = None) -> None:
        self.sent.append(message)


ADMIN_KEY = "lgk_0a0a0a0a_" + "A" * 32


def key_store(store: MemoryStore, *keys: tuple[str, str, str]) -> KeyStore:
    """A key store over ``store`` holding ``(key, department, role)`` records."""
    ks = KeyStore(store)  # type: ignore[arg-type]
    for key, department, role in keys:
        prefix = key.split("_")[1]
        ks.records[prefix] = KeyRecord(key_prefix=prefix, sha256=key_sha256(key), department=department,
                                       role=role, created_at="2026-12-01T00:00:00+00:00")  # type: ignore[arg-type]
    return ks


class Gateway:
    """A test client on the gateway app (with an admin key), its state, and one SSE client's queue."""

    def __init__(self, vectors: MemoryVectors | None = None) -> None:
        self.settings = Settings(max_upload_bytes=4096)
        self.app = create_app(self.settings)
        self.hub = DocumentHub()
        self.queue = self.hub.subscribe()
        self.store = MemoryStore()
        self.registry = Registry(self.store, self.hub)  # type: ignore[arg-type]
        self.uploads = Publisher()
        self.app.state.gateway = GatewayState(
            settings=self.settings, broker=None, uploads=self.uploads, deletions=Publisher(),  # type: ignore[arg-type]
            store=self.store, vectors=vectors or MemoryVectors(),  # type: ignore[arg-type]
            registry=self.registry, hub=self.hub, http=None,  # type: ignore[arg-type]
            keys=key_store(self.store, (ADMIN_KEY, "default", "admin")))
        # not entered: the lifespan (Kafka, MinIO, Chroma) never runs
        self.client = TestClient(self.app, headers={"Authorization": f"Bearer {ADMIN_KEY}"})

    def sse(self) -> list[tuple[str, dict]]:
        """The SSE events sent so far, as (name, data)."""
        out = []
        while not self.queue.empty():
            msg = self.queue.get_nowait()
            out.append((msg["event"], json.loads(msg["data"])))
        return out

    def upload(self, name: str, data: bytes = b"text", strategy: str = "token") -> Any:
        return self.client.post(f"/api/v1/ingest?strategy={strategy}",
                                files={"file": (name, data, "text/plain")})


@pytest.fixture
def gw() -> Gateway:
    return Gateway()


def test_config_serves_the_upload_rules(gw: Gateway) -> None:
    body = gw.client.get("/api/v1/config").json()
    assert body == {"accepted_extensions": list(ACCEPTED_EXTENSIONS), "strategies": ["token", "question"],
                    "max_upload_bytes": 4096}


@pytest.mark.parametrize("name", ["notes.rtf", "notes", "paper.pdf.exe"])
def test_ingest_refuses_other_extensions(gw: Gateway, name: str) -> None:
    resp = gw.upload(name)
    assert resp.status_code == 400 and "upload a PDF, DOCX or TXT file" in resp.json()["detail"]
    assert gw.sse() == [] and gw.uploads.sent == []


@pytest.mark.parametrize("ext", ACCEPTED_EXTENSIONS)
def test_ingest_takes_every_accepted_extension_in_any_case(gw: Gateway, ext: str) -> None:
    assert gw.upload(f"paper{ext.upper()}").status_code == 202


def test_upload_sends_the_queued_record_as_served_by_the_api(gw: Gateway) -> None:
    resp = gw.upload("會議紀要.txt", b"\xe7\xac\xac\xe4\xb8\x80")
    assert resp.status_code == 202
    body = resp.json()
    assert set(body) == {"document_id", "filename", "strategy", "status", "department", "visibility", "replaced"}
    assert body["status"] == "queued" and body["replaced"] == []
    assert (body["department"], body["visibility"]) == ("default", "department")
    doc_id = body["document_id"]
    [(name, data)] = gw.sse()
    assert name == "document"
    served = gw.client.get(f"/api/v1/documents/{doc_id}").json()
    assert data == served
    assert set(served) == set(DocumentRecord.model_fields)
    assert served["status"] == "queued" and served["stage"] == "uploaded" and served["file_type"] == "txt"
    assert gw.client.get("/api/v1/documents").json() == {"documents": [served], "total_documents": 1,
                                                         "total_chunks": 0, "total": 1, "page": 1,
                                                         "page_size": None, "notice": None}


async def test_each_folded_progress_event_sends_the_whole_record(gw: Gateway) -> None:
    doc_id = gw.upload("paper.pdf", b"%PDF-1.4").json()["document_id"]
    gw.sse()
    await gw.registry.apply(ProgressEvent(document_id=doc_id, stage="parsing", status="processing",
                                          pages_total=3, file_type="pdf", warnings=["Page 2 is blank."]))
    await gw.registry.apply(ProgressEvent(document_id=doc_id, stage="indexed", status="indexed",
                                          pages_done=5, pages_total=5, unit="chunks", chunk_count=5,
                                          page_count=3, strategy_used="token"))
    await gw.registry.apply(ProgressEvent(document_id="0" * 32, stage="parsing", status="processing"))
    events = gw.sse()
    assert [n for n, _ in events] == ["document", "document"]  # the unknown document sends nothing
    parsing, indexed = (d for _, d in events)
    assert (parsing["stage"], parsing["pages_total"]) == ("parsing", 3)
    assert parsing["warnings"] == ["Page 2 is blank."]
    assert indexed == gw.client.get(f"/api/v1/documents/{doc_id}").json()
    assert (indexed["status"], indexed["stage"], indexed["unit"]) == ("indexed", "indexed", "chunks")
    assert (indexed["chunk_count"], indexed["page_count"], indexed["strategy_used"]) == (5, 3, "token")
    assert indexed["warnings"] == ["Page 2 is blank."]  # folded by the gateway, kept across events


def indexed(doc_id: str, chunks: int = 1) -> ProgressEvent:
    """The embedder's last progress event of a document."""
    return ProgressEvent(document_id=doc_id, stage="indexed", status="indexed", pages_done=chunks,
                         pages_total=chunks, unit="chunks", chunk_count=chunks)


async def test_replacing_upload_sends_deleted_once_the_new_copy_is_indexed(gw: Gateway) -> None:
    old = gw.upload("paper.txt").json()["document_id"]
    await fold_progress(gw.app.state.gateway, indexed(old))
    gw.sse()
    new = gw.upload("paper.txt", b"second").json()
    assert new["replaced"] == [old]
    new_id = new["document_id"]
    assert gw.sse() == [("document", gw.client.get(f"/api/v1/documents/{new_id}").json())]
    assert gw.client.get(f"/api/v1/documents/{old}").status_code == 200  # still there until the new one is indexed
    await fold_progress(gw.app.state.gateway, indexed(new_id))
    assert gw.sse() == [("deleted", {"document_id": old}),
                        ("document", gw.client.get(f"/api/v1/documents/{new_id}").json())]
    assert gw.client.get(f"/api/v1/documents/{old}").status_code == 404


def test_delete_sends_deleted(gw: Gateway) -> None:
    doc_id = gw.upload("paper.txt").json()["document_id"]
    gw.sse()
    resp = gw.client.delete(f"/api/v1/documents/{doc_id}")
    assert resp.json() == {"deleted": True, "message": "Deleted paper.txt and its 0 chunks."}
    assert gw.sse() == [("deleted", {"document_id": doc_id})]
    assert gw.client.get(f"/api/v1/documents/{doc_id}").status_code == 404


def test_chunk_list_keeps_its_wire_format() -> None:
    """Fields the model declares are always sent; fields copied from the chunk's metadata only
    when it has them (a token chunk has no ``question_id`` key at all)."""
    doc = "a" * 32
    token = {"document_id": doc, "filename": "p.pdf", "file_type": "pdf", "chunk_index": 0, "page_number": 2,
             "strategy_type": "token", "token_count": 12, "has_table": False}
    qa = {"document_id": doc, "filename": "p.pdf", "file_type": "pdf", "chunk_index": 1, "page_number": 3,
          "strategy_type": "question", "chunk_kind": "qa", "question_id": "A1", "question_text": "問？",
          "page_start": 3, "page_end": 4, "part": 1, "parts": 1, "doc_qa_style": "chinese"}
    g = Gateway(MemoryVectors({f"{doc}_0": ("page text", token), f"{doc}_1": ("問 A1：問？\n答：是。", qa)}))
    g.registry.records[doc] = DocumentRecord(document_id=doc, filename="p.pdf", strategy="question",
                                             upload_date="2026-05-16T00:00:00+00:00")
    chunks = g.client.get(f"/api/v1/documents/{doc}/chunks").json()["chunks"]
    base = {"chunk_id", "document_id", "filename", "chunk_index", "text", "content_summary", "page_number",
            "pdf_url", "strategy_type", "source_page_range", "metadata"}
    assert set(chunks[0]) == base | {"file_type", "token_count", "has_table"}
    assert chunks[0]["source_page_range"] is None and chunks[0]["metadata"] == {}
    assert chunks[0]["pdf_url"] == f"/api/v1/documents/{doc}/pages/2.pdf"
    qa_fields = {"chunk_kind", "question_id", "question_text", "part", "parts"}
    assert set(chunks[1]) == base | {"file_type"} | qa_fields
    assert chunks[1]["source_page_range"] == [3, 4] and chunks[1]["question_id"] == "A1"

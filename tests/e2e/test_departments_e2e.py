"""Departments end to end on the real stack, with keys made through ``POST /api/v1/keys`` by the
stack's admin key: a member and a reader of department A, a member of department B.

Every route keeps A's documents from B (list, get, chunks, page PDF, delete, chunk delete, query
sources, ``also_in``, SSE) with the same 404 as a missing document; a reader cannot upload or
delete; the admin sees both; a shared document is read by both and deleted by neither; one
filename in two departments is two documents; a failed replacement leaves the old copy
searchable; 10 concurrent uploads of one filename leave one document and nothing of the others
in Chroma or MinIO; an upload while Kafka is stopped is refused with 503 and leaves nothing.
"""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.storage import ObjectStore
from shared.vectorstore import VectorStore
from tests.conftest import BAD, FIXTURES, REAL
from tests.e2e.helpers import wait_terminal
from tests.infra import OFFSET

DEPT_A, DEPT_B, LIBRARY = "iso-a", "iso-b", "iso-library"
MISSING = "f" * 32
PRESS = REAL / "hk_isd_pr_remarks_sfs_media_session_en.pdf"  # uploaded by both departments
PRESS_QUESTION = "What did the Secretary for Security say about the No. 5 alarm fire in Tai Po?"
BRIEF = FIXTURES / "B_古洞北粉嶺北新發展區概覽.pdf"  # A's own paper, replaced by a corrupt copy later
VENUES = REAL / "hk_csb_coai_exam_venues_reply_zh.pdf"  # B's own paper
LIBRARY_DOC = FIXTURES / "E_基礎設施.docx"  # the shared library's paper


@dataclass
class Departments:
    """Clients for each key and the documents uploaded with them."""

    stack: Any
    admin: httpx.Client
    keys: dict[str, str]  # "a", "a_reader", "b" → the key
    docs: dict[str, dict[str, Any]] = field(default_factory=dict)
    clients: dict[str, httpx.Client] = field(default_factory=dict)

    def client(self, who: str) -> httpx.Client:
        if who not in self.clients:
            self.clients[who] = httpx.Client(base_url=self.stack.gateway_url, timeout=60.0,
                                             headers=self.stack.auth(self.keys[who]))
        return self.clients[who]

    @property
    def a(self) -> httpx.Client:
        return self.client("a")

    @property
    def a_reader(self) -> httpx.Client:
        return self.client("a_reader")

    @property
    def b(self) -> httpx.Client:
        return self.client("b")

    def id(self, name: str) -> str:
        return str(self.docs[name]["document_id"])


def stores(stack: Any) -> tuple[ObjectStore, VectorStore]:
    """Clients on the test stack's MinIO and Chroma."""
    s = stack.settings()
    return ObjectStore(s), VectorStore(s)


def make_key(api: httpx.Client, department: str, role: str) -> str:
    r = api.post("/api/v1/keys", json={"department": department, "role": role, "label": f"departments e2e {role}"})
    assert r.status_code == 201, r.text
    return str(r.json()["key"])


def upload(client: httpx.Client, path: Path | None = None, *, name: str | None = None, data: bytes | None = None,
           expect: int = 202, **params: str) -> dict[str, Any]:
    name = name or (path.name if path else "upload.txt")
    body = data if data is not None else path.read_bytes()  # type: ignore[union-attr]
    r = client.post("/api/v1/ingest", params=params, files={"file": (name, body)})
    assert r.status_code == expect, r.text
    return dict(r.json())


def listed(client: httpx.Client, **params: str) -> dict[str, dict[str, Any]]:
    r = client.get("/api/v1/documents", params=params)
    assert r.status_code == 200, r.text
    return {d["document_id"]: d for d in r.json()["documents"]}


def ask(client: httpx.Client, question: str, **body: Any) -> list[dict[str, Any]]:
    r = client.post("/api/v1/query", json={"question": question, "top_k": 5, **body})
    assert r.status_code == 200, r.text
    return list(r.json()["sources"])


@pytest.fixture(scope="module")
def deps(stack, api) -> Iterator[Departments]:
    d = Departments(stack, api, {"a": make_key(api, DEPT_A, "member"), "a_reader": make_key(api, DEPT_A, "reader"),
                                 "b": make_key(api, DEPT_B, "member")})
    d.docs["press-a"] = upload(d.a, PRESS)
    d.docs["press-b"] = upload(d.b, PRESS)
    d.docs["brief"] = upload(d.a, BRIEF, name="iso_brief.pdf")
    d.docs["venues"] = upload(d.b, VENUES)
    d.docs["library"] = upload(api, LIBRARY_DOC, department=LIBRARY, visibility="shared")
    done = wait_terminal(api, [d.id(n) for n in d.docs])
    for name in d.docs:
        d.docs[name] = done[d.id(name)]
        assert d.docs[name]["status"] == "indexed", (name, d.docs[name]["error"])
    yield d
    for c in d.clients.values():
        c.close()
    purge(api, (DEPT_A, DEPT_B, LIBRARY))


def purge(api: httpx.Client, departments: tuple[str, ...]) -> None:
    """Delete every document of ``departments`` (admin key), so that later modules' admin
    queries do not meet these copies of the same papers; waits until none is listed."""
    def ours() -> list[str]:
        return [i for i, d in listed(api).items() if d["department"] in departments]

    for doc_id in ours():
        assert api.delete(f"/api/v1/documents/{doc_id}").status_code in (200, 202, 204, 404)
    deadline = time.monotonic() + 120
    while ours():
        assert time.monotonic() < deadline, "departments e2e documents not deleted within 120 s"
        time.sleep(1)


def test_same_filename_in_two_departments_is_two_indexed_documents(deps):
    a, b = deps.docs["press-a"], deps.docs["press-b"]
    assert a["document_id"] != b["document_id"] and a["filename"] == b["filename"]
    assert (a["department"], b["department"]) == (DEPT_A, DEPT_B)
    assert a["chunk_count"] == b["chunk_count"] == 2


def test_every_route_keeps_a_departments_documents_from_the_other(deps):
    mine, theirs = deps.id("brief"), deps.id("venues")
    assert set(listed(deps.b)) >= {theirs, deps.id("press-b"), deps.id("library")}
    assert mine not in listed(deps.b) and theirs not in listed(deps.a)
    for method, path in [("GET", "/api/v1/documents/{}"), ("GET", "/api/v1/documents/{}/chunks"),
                         ("GET", "/api/v1/documents/{}/pages/1.pdf"), ("DELETE", "/api/v1/documents/{}"),
                         ("DELETE", "/api/v1/chunks/{}_0")]:
        other = deps.b.request(method, path.format(mine))
        missing = deps.b.request(method, path.format(MISSING))
        assert other.status_code == missing.status_code == 404, (method, path, other.text)
        assert other.content == missing.content, (method, path)  # the same body: nothing tells them apart
        if method == "GET":
            assert deps.a.get(path.format(mine)).status_code == 200, path
    assert deps.admin.get(f"/api/v1/documents/{mine}").json()["status"] == "indexed"  # still there

    # query sources: B never gets A's passages, even when it names A's document
    assert ask(deps.b, "古洞北及粉嶺北新發展區可提供多少個住宅單位？", document_ids=[mine]) == []
    b_sources = ask(deps.b, "古洞北及粉嶺北新發展區可提供多少個住宅單位？")
    assert mine not in {s["document_id"] for s in b_sources}
    assert all(s["department"] == DEPT_B or s["visibility"] == "shared" for s in b_sources)
    a_sources = ask(deps.a, "古洞北及粉嶺北新發展區可提供多少個住宅單位？")
    assert a_sources[0]["document_id"] == mine and a_sources[0]["department"] == DEPT_A


def test_also_in_stays_inside_the_department(deps):
    a, b = deps.id("press-a"), deps.id("press-b")
    for client, own, other in ((deps.a, a, b), (deps.b, b, a)):
        sources = ask(client, PRESS_QUESTION)
        assert sources[0]["document_id"] == own
        seen = {s["document_id"] for s in sources} | {r["document_id"] for s in sources for r in s["also_in"]}
        assert other not in seen
    admin = ask(deps.admin, PRESS_QUESTION)
    copies = {admin[0]["document_id"]} | {r["document_id"] for r in admin[0]["also_in"]}
    assert copies == {a, b}  # for the admin the two departments' copies are one passage


def test_a_reader_reads_and_asks_but_cannot_upload_or_delete(deps):
    mine = deps.id("brief")
    assert mine in listed(deps.a_reader)
    assert deps.a_reader.get(f"/api/v1/documents/{mine}/chunks").status_code == 200
    assert ask(deps.a_reader, "古洞北新發展區的面積是多少？")[0]["document_id"] == mine
    assert upload(deps.a_reader, name="r.txt", data=b"reader text", expect=403)["detail"]
    assert deps.a_reader.delete(f"/api/v1/documents/{mine}").status_code == 403
    assert deps.a_reader.delete(f"/api/v1/chunks/{mine}_0").status_code == 403
    assert deps.a.get(f"/api/v1/documents/{mine}").status_code == 200


def test_members_upload_only_to_their_department(deps):
    assert "admin" in upload(deps.a, name="x.txt", data=b"text", department=DEPT_B, expect=403)["detail"]
    assert "admin" in upload(deps.a, name="x.txt", data=b"text", visibility="shared", expect=403)["detail"]
    assert deps.a.get("/api/v1/documents", params={"department": DEPT_B}).status_code == 403


def test_the_admin_sees_both_departments_and_can_filter(deps):
    every = listed(deps.admin)
    assert {deps.id(n) for n in deps.docs} <= set(every)
    only_b = listed(deps.admin, department=DEPT_B)
    assert deps.id("venues") in only_b and deps.id("library") in only_b and deps.id("brief") not in only_b
    assert {d["department"] for d in only_b.values() if d["visibility"] != "shared"} == {DEPT_B}


def test_a_shared_document_is_read_by_both_and_deleted_by_neither(deps):
    lib = deps.id("library")
    assert deps.docs["library"]["visibility"] == "shared" and deps.docs["library"]["department"] == LIBRARY
    for client in (deps.a, deps.b, deps.a_reader):
        assert lib in listed(client)
        assert client.get(f"/api/v1/documents/{lib}/chunks").json()["chunks"]
        sources = ask(client, "基礎設施工程", document_ids=[lib])
        assert sources and {(s["department"], s["visibility"]) for s in sources} == {(LIBRARY, "shared")}
    for client in (deps.a, deps.b):
        for path in (f"/api/v1/documents/{lib}", f"/api/v1/chunks/{lib}_0"):
            r = client.delete(path)
            assert r.status_code == 403 and "shared library" in r.json()["detail"], r.text
    assert deps.admin.get(f"/api/v1/documents/{lib}").status_code == 200


class Listener:
    """An SSE client on ``/api/v1/events`` collecting the document ids of its events."""

    def __init__(self, stack: Any, key: str | None, **params: str) -> None:
        self.ids: list[str] = []
        self._client = httpx.Client(base_url=stack.gateway_url, timeout=httpx.Timeout(5.0, read=None),
                                    headers=stack.auth(key))
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._listen, args=(params,), daemon=True)
        self._thread.start()
        assert self._ready.wait(10)

    def _listen(self, params: dict[str, str]) -> None:
        try:
            with self._client.stream("GET", "/api/v1/events", params=params) as r:
                self._ready.set()
                for line in r.iter_lines():
                    if line.startswith("data:"):
                        self.ids.append(json.loads(line.split(":", 1)[1])["document_id"])
        except (httpx.HTTPError, RuntimeError):  # closed by close()
            return

    def close(self) -> None:
        self._client.close()


def test_sse_sends_each_key_its_departments_documents_only(deps):
    a_stream, b_stream = Listener(deps.stack, deps.keys["a"]), Listener(deps.stack, deps.keys["b"])
    admin_b = Listener(deps.stack, None, department=DEPT_B)
    admin_all = Listener(deps.stack, None)
    time.sleep(0.5)
    a_doc = upload(deps.a, name="sse-a.txt", data="甲部門的測試文件：立法會會議的備用答問。".encode())["document_id"]
    b_doc = upload(deps.b, name="sse-b.txt", data="乙部門的測試文件：立法會會議的備用答問。".encode())["document_id"]
    wait_terminal(deps.admin, [a_doc, b_doc], timeout_s=180)
    time.sleep(1.0)
    for s in (a_stream, b_stream, admin_b, admin_all):
        s.close()
    assert a_doc in a_stream.ids and b_doc not in a_stream.ids
    assert b_doc in b_stream.ids and a_doc not in b_stream.ids
    assert b_doc in admin_b.ids and a_doc not in admin_b.ids
    assert {a_doc, b_doc} <= set(admin_all.ids)
    assert a_stream.ids.count(a_doc) >= 3  # queued, the stages, indexed


def test_a_failed_replacement_leaves_the_old_copy_searchable(deps):
    old = deps.id("brief")
    bad = upload(deps.a, name="iso_brief.pdf", data=(BAD / "G02_random_bytes.pdf").read_bytes())
    assert bad["replaced"] == [old]
    failed = wait_terminal(deps.admin, [bad["document_id"]])[bad["document_id"]]
    assert failed["status"] == "failed" and failed["error"]
    docs = listed(deps.a)
    assert docs[old]["status"] == "indexed" and docs[bad["document_id"]]["status"] == "failed"
    sources = ask(deps.a, "古洞北及粉嶺北新發展區可提供多少個住宅單位？", document_ids=[old])
    assert sources and sources[0]["document_id"] == old


def concurrent_text(n: int) -> bytes:
    """The n-th copy of one paper: distinct text, long enough for two token chunks."""
    lines = [f"Copy {n}, paragraph {p}: the department's standby note on harbour ferry route {p * 7 + n} "
             f"records patronage of {1000 + p * 13 + n} passengers a day and a fare of ${p + n}.{p} "
             "for the outlying islands, with the operator's accessibility plan." for p in range(30)]
    return "\n".join(lines).encode()


def test_ten_concurrent_uploads_of_one_filename_leave_the_last_one_and_no_orphans(deps):
    name = "iso_concurrent.txt"
    with ThreadPoolExecutor(10) as pool:
        made = list(pool.map(lambda n: upload(deps.a, name=name, data=concurrent_text(n)), range(10)))
    ids = [m["document_id"] for m in made]
    last = max(made, key=lambda m: len(m["replaced"]))
    assert sorted(last["replaced"] + [last["document_id"]]) == sorted(ids)  # it was registered after all others
    others = [i for i in ids if i != last["document_id"]]

    deadline = time.monotonic() + 600
    while True:
        docs = [d for d in listed(deps.admin).values() if d["filename"] == name]
        if len(docs) == 1 and docs[0]["status"] in ("indexed", "failed"):
            break
        assert time.monotonic() < deadline, [(d["document_id"], d["status"]) for d in docs]
        time.sleep(0.5)
    [survivor] = docs
    assert survivor["document_id"] == last["document_id"] and survivor["status"] == "indexed"
    for doc_id in others:
        assert deps.admin.get(f"/api/v1/documents/{doc_id}").status_code == 404

    store, vectors = stores(deps.stack)
    time.sleep(2.0)  # let in-flight deletions of the superseded copies settle
    where = {"document_id": {"$in": others}}
    orphans = {"chunks": len(vectors.collection.get(where=where, include=[])["ids"]),
               "questions": len(vectors.questions.get(where=where, include=[])["ids"]),
               "stats": len(vectors.stats.get(where=where, include=[])["ids"]),
               "objects": sum(len(list(store.list_keys(f"documents/{i}/"))) for i in others)}
    manifests = [k for k in store.list_keys("documents/") if k.endswith("/manifest.json")
                 and store.get_json(k).get("filename") == name]
    stored = vectors.count_document(survivor["document_id"])
    print(f"\n10 concurrent uploads: survivor {survivor['document_id']} with {survivor['chunk_count']} chunks "
          f"({stored} in Chroma); orphans of the other 9: {orphans}; manifests of {name}: {len(manifests)}")
    assert orphans == {"chunks": 0, "questions": 0, "stats": 0, "objects": 0}
    assert manifests == [f"documents/{survivor['document_id']}/manifest.json"]
    assert stored == survivor["chunk_count"] >= 2
    assert len(vectors.collection.get(where={"filename": name}, include=[])["ids"]) == stored
    assert list(store.list_keys(f"documents/{survivor['document_id']}/original"))
    assert ask(deps.a, "harbour ferry route patronage", document_ids=others) == []


def test_an_upload_while_kafka_is_stopped_gets_503_and_leaves_nothing(deps):
    store, _ = stores(deps.stack)
    name = "iso_kafka_down.txt"
    manifests_before = {k for k in store.list_keys("documents/") if k.endswith("/manifest.json")}
    deps.stack.ctl("stop", "kafka")
    try:
        start = time.monotonic()
        r = deps.a.post("/api/v1/ingest", files={"file": (name, "卡夫卡停止時的上載。".encode())})
        took = time.monotonic() - start
        print(f"\nupload with Kafka stopped: {r.status_code} after {took:.1f} s: {r.json()['detail']}")
        assert r.status_code == 503 and "Kafka" in r.json()["detail"]
        assert name not in {d["filename"] for d in listed(deps.admin).values()}
        assert {k for k in store.list_keys("documents/") if k.endswith("/manifest.json")} == manifests_before
    finally:
        deps.stack.ctl("start", "kafka")
    deadline = time.monotonic() + 180
    while httpx.get(f"{deps.stack.gateway_url}/healthz", timeout=10).status_code != 200:
        assert time.monotonic() < deadline, "the stack did not recover after Kafka restarted"
        time.sleep(1.0)
    query_service = f"http://127.0.0.1:{8104 + OFFSET}/healthz"
    docs_before = httpx.get(query_service, timeout=10).json()["keyword_index"]["documents"]
    after = upload(deps.a, name=name, data="卡夫卡恢復後的上載。".encode())  # the pipeline works again
    assert wait_terminal(deps.admin, [after["document_id"]], timeout_s=300)[after["document_id"]]["status"] == "indexed"
    assert len([d for d in listed(deps.admin).values() if d["filename"] == name]) == 1
    deadline = time.monotonic() + 60  # and the query service follows the index events again
    while httpx.get(query_service, timeout=10).json()["keyword_index"]["documents"] != docs_before + 1:
        assert time.monotonic() < deadline, "the query service did not follow documents.indexed after the restart"
        time.sleep(0.5)

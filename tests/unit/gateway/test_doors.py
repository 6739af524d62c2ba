"""The gateway's doors on the app built by ``create_app()`` (in-memory stores, no services): the
Host allow-list, malformed input always a 4xx with a reason, the body limit before and while a
body is read, and the audit log (entries for each action and refusal, never holding up a
request)."""
from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.gateway.audit import AuditLog, Newest, parse_since
from services.gateway.guards import host_allowed, host_name
from shared.events import AuditEvent
from tests.unit.gateway.test_auth import MEMBER, READER
from tests.unit.gateway.test_gateway_contract import ADMIN_KEY, Gateway, key_store

LIMIT = 4096  # the Gateway fixture's MAX_UPLOAD_BYTES


class RecordingAudit:
    """Stands in for ``AuditLog``: keeps what would be published."""

    def __init__(self) -> None:
        self.events: list[AuditEvent] = []

    def submit(self, event: AuditEvent) -> bool:
        self.events.append(event)
        return True

    def actions(self) -> list[tuple[str, str, str, str]]:
        return [(e.action, e.key_prefix, e.department, e.result) for e in self.events]


@pytest.fixture
def gw() -> Gateway:
    g = Gateway()
    g.app.state.gateway.keys = key_store(g.store, (ADMIN_KEY, "default", "admin"), (MEMBER, "dept-a", "member"),
                                         (READER, "dept-a", "reader"))
    g.app.state.gateway.audit = RecordingAudit()  # type: ignore[assignment]
    return g


def client(gw: Gateway, key: str | None = ADMIN_KEY, **kw: Any) -> TestClient:
    return TestClient(gw.app, headers={"Authorization": f"Bearer {key}"} if key else {},
                      raise_server_exceptions=False, **kw)


def audit_of(gw: Gateway) -> RecordingAudit:
    rec = gw.app.state.gateway.audit
    assert isinstance(rec, RecordingAudit)
    return rec


# --- Host allow-list ------------------------------------------------------------------------------

@pytest.mark.parametrize(("header", "name"), [("localhost:8080", "localhost"), ("[::1]:8080", "::1"),
                                              ("Example.ORG.", "example.org"), ("127.0.0.1", "127.0.0.1"),
                                              ("[::1", None), ("a:b", None), ("", None), (":80", None)])
def test_host_name(header: str, name: str | None) -> None:
    assert host_name(header) == name


def test_host_patterns() -> None:
    assert host_allowed("docs.legco.example", ["*.legco.example"])
    assert not host_allowed("legco.example.evil", ["*.legco.example"])
    assert host_allowed("anything", ["*"]) and not host_allowed("localhost.evil", ["localhost"])


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.2"])
def test_a_foreign_host_gets_400(gw: Gateway, host: str) -> None:
    resp = client(gw).get("/api/v1/whoami", headers={"host": host})
    assert resp.status_code == 400 and "ALLOWED_HOSTS" in resp.json()["detail"]
    assert client(gw, None).get("/", headers={"host": host}).status_code == 400  # the web app too


@pytest.mark.parametrize("host", ["localhost:8080", "127.0.0.1:18080", "[::1]:8080", "testserver"])
def test_allowed_hosts_are_served(gw: Gateway, host: str) -> None:
    assert client(gw).get("/api/v1/whoami", headers={"host": host}).status_code == 200


def test_metrics_answer_any_host(gw: Gateway) -> None:  # scrapers call it by the pod's address
    assert client(gw, None).get("/metrics", headers={"host": "10.1.2.3:8080"}).status_code == 200


# --- malformed input: a 4xx with a reason, never a 500 -------------------------------------------

JSON = {"content-type": "application/json"}
MULTI = {"content-type": "multipart/form-data; boundary=b"}


def part(filename: bytes, data: bytes = b"text") -> bytes:
    return (b'--b\r\nContent-Disposition: form-data; name="file"; filename="' + filename + b'"\r\n\r\n'
            + data + b"\r\n--b--\r\n")


MALFORMED = [
    ("lone surrogate question", "POST", "/api/v1/query", b'{"question": "\\ud800"}', JSON, 422, "surrogate"),
    ("lone low surrogate in a pair's place", "POST", "/api/v1/query", b'{"question": "a\\udc00b"}', JSON, 422,
     "surrogate"),
    ("surrogate in document_ids", "POST", "/api/v1/query", b'{"question": "q", "document_ids": ["\\ud800"]}', JSON,
     422, "surrogate"),
    ("surrogate in topic_section", "POST", "/api/v1/query", b'{"question": "q", "topic_section": "\\udbff"}', JSON,
     422, "surrogate"),
    ("surrogate key label", "POST", "/api/v1/keys", b'{"department": "a", "role": "member", "label": "\\udfff"}',
     JSON, 422, "surrogate"),
    ("surrogate department", "POST", "/api/v1/keys", b'{"department": "\\ud800", "role": "member"}', JSON, 422,
     "surrogate"),
    ("Latin-1 body", "POST", "/api/v1/query", '{"question": "café"}'.encode("latin-1"), JSON, 400, "UTF-8"),
    ("UTF-16 body", "POST", "/api/v1/query", '{"question": "x"}'.encode("utf-16"), JSON, 400, "UTF-8"),
    ("UTF-16-LE body, no BOM", "POST", "/api/v1/query", '{"question": "x"}'.encode("utf-16-le"), JSON, 400, "UTF-8"),
    ("truncated JSON", "POST", "/api/v1/query", b'{"question": ', JSON, 422, "JSON"),
    ("JSON array", "POST", "/api/v1/query", b"[]", JSON, 422, "dictionary"),
    ("NaN", "POST", "/api/v1/query", b'{"question": "q", "top_k": NaN}', JSON, 422, "finite"),
    ("Infinity", "POST", "/api/v1/query", b'{"question": "q", "top_k": Infinity}', JSON, 422, "finite"),
    ("huge top_k", "POST", "/api/v1/query", b'{"question": "q", "top_k": 1e400}', JSON, 422, "top_k"),
    ("no words", "POST", "/api/v1/query", b'{"question": "?!"}', JSON, 422, "letters"),
    ("form body to a JSON route", "POST", "/api/v1/query", b"question=x",
     {"content-type": "application/x-www-form-urlencoded"}, 422, "body"),
    ("NUL in a filename", "POST", "/api/v1/ingest", part(b"a\x00b.txt"), MULTI, 400, "control characters"),
    ("bidi override in a filename", "POST", "/api/v1/ingest", part("gpj\u202e.txt".encode()), MULTI, 400,
     "control characters"),
    ("300-character filename", "POST", "/api/v1/ingest", part(b"a" * 300 + b".txt"), MULTI, 400, "longer"),
    ("blank filename", "POST", "/api/v1/ingest", part(b"dir/   "), MULTI, 400, "no filename"),
    ("truncated multipart", "POST", "/api/v1/ingest", b'--b\r\nContent-Disposition: form-data; name="file"',
     MULTI, 422, "file"),
    ("multipart without boundary", "POST", "/api/v1/ingest", b"xx", {"content-type": "multipart/form-data"}, 400,
     "boundary"),
    ("surrogate strategy", "POST", "/api/v1/ingest?strategy=%ED%A0%80", part(b"a.txt"), MULTI, 400, "strategy"),
    ("two Content-Length values", "POST", "/api/v1/query", b'{"question": "q"}',
     {**JSON, "content-length": "17, 18"}, 400, "Content-Length"),
    ("page number not a number", "GET", "/api/v1/documents/" + "0" * 32 + "/pages/x.pdf", b"", {}, 422,
     "page_number"),
    ("huge page number", "GET", "/api/v1/documents/" + "0" * 32 + "/pages/" + "9" * 40 + ".pdf", b"", {}, 404,
     "page"),
    ("bad document id", "GET", "/api/v1/documents/%ED%A0%80", b"", {}, 404, "document"),
    ("bad chunk id", "DELETE", "/api/v1/chunks/%ff%fe", b"", {}, 404, "chunk"),
    ("bad key prefix", "DELETE", "/api/v1/keys/%ED%A0%80", b"", {}, 404, "prefix"),
]


@pytest.mark.parametrize(("method", "path", "body", "headers", "status", "reason"),
                         [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_malformed_input_gets_a_4xx_with_a_reason(gw: Gateway, method: str, path: str, body: bytes,
                                                  headers: dict[str, str], status: int, reason: str) -> None:
    resp = client(gw).request(method, path, content=body or None, headers=headers)
    assert resp.status_code == status, resp.text
    detail = resp.json()["detail"]
    assert reason.lower() in json.dumps(detail, ensure_ascii=False).lower()
    assert gw.uploads.sent == []


def test_an_upload_with_an_odd_but_valid_filename_is_kept(gw: Gateway) -> None:
    resp = client(gw).post("/api/v1/ingest", content=part("C:\\papers\\會議 紀要 (v2).txt".encode()), headers=MULTI)
    assert resp.status_code == 202 and resp.json()["filename"] == "會議 紀要 (v2).txt"


# --- body limit -------------------------------------------------------------------------------------

class Harness:
    """Calls the ASGI app directly: ``body_parts`` are what the client would stream; ``pulled``
    counts the body bytes the app actually took from the server."""

    def __init__(self, gw: Gateway) -> None:
        self.app = gw.app
        self.pulled = 0
        self.sent: list[dict[str, Any]] = []

    async def request(self, path: str, headers: list[tuple[bytes, bytes]], body_parts: int,
                      part_size: int = 64 * 1024) -> None:
        remaining = body_parts
        head = b'--b\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n\r\n'

        async def receive() -> dict[str, Any]:
            nonlocal remaining, head
            if remaining == 0:
                await asyncio.sleep(3600)  # a client that stops sending
            remaining -= 1
            body, head = (head + b"x" * part_size)[:part_size], b""  # one file part that never ends
            self.pulled += len(body)
            return {"type": "http.request", "body": body, "more_body": remaining > 0}

        async def send(msg: dict[str, Any]) -> None:
            self.sent.append(msg)

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
                 "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
                 "root_path": "", "server": ("127.0.0.1", 8080), "client": ("127.0.0.1", 5000), "app": self.app,
                 "headers": [(b"host", b"localhost:8080"), (b"authorization", f"Bearer {ADMIN_KEY}".encode()),
                             *headers]}
        await asyncio.wait_for(self.app(scope, receive, send), 10)

    @property
    def status(self) -> int:
        return next(m["status"] for m in self.sent if m["type"] == "http.response.start")

    @property
    def headers(self) -> dict[bytes, bytes]:
        return dict(next(m["headers"] for m in self.sent if m["type"] == "http.response.start"))


async def test_a_declared_oversized_upload_is_refused_before_its_body_is_read(gw: Gateway) -> None:
    h = Harness(gw)
    await h.request("/api/v1/ingest", [(b"content-type", b"multipart/form-data; boundary=b"),
                                       (b"content-length", str(150 * 1024 * 1024).encode())], body_parts=2400)
    assert h.status == 413 and h.pulled == 0
    assert h.headers[b"connection"] == b"close"
    assert b"limit" in b"".join(m.get("body", b"") for m in h.sent)


@pytest.mark.parametrize("declared", [None, b"1000"])  # no length (chunked), or a length that lies
async def test_an_undeclared_oversized_body_stops_at_the_limit(gw: Gateway, declared: bytes | None) -> None:
    h = Harness(gw)
    headers = [(b"content-type", b"multipart/form-data; boundary=b")]
    headers.append((b"content-length", declared) if declared else (b"transfer-encoding", b"chunked"))
    await h.request("/api/v1/ingest", headers, body_parts=2400, part_size=64 * 1024)
    assert h.status == 413
    assert h.pulled <= LIMIT + 1024 * 1024 + 64 * 1024  # the limit, the multipart allowance, one part
    assert h.headers[b"connection"] == b"close"
    assert len([m for m in h.sent if m["type"] == "http.response.start"]) == 1  # the route's answer dropped
    assert gw.uploads.sent == []


async def test_an_unauthenticated_upload_is_answered_and_closed_unread(gw: Gateway) -> None:
    h = Harness(gw)
    scope_headers = [(b"content-type", b"multipart/form-data; boundary=b"), (b"content-length", b"1000000")]
    gw.app.state.gateway.keys = key_store(gw.store)  # no key is valid now
    await h.request("/api/v1/ingest", scope_headers, body_parts=30)
    assert h.status == 401 and h.pulled == 0 and h.headers[b"connection"] == b"close"


def test_a_large_json_body_is_refused(gw: Gateway) -> None:
    resp = client(gw).post("/api/v1/query", content=b'{"question": "' + b"x" * (2 * 1024 * 1024) + b'"}',
                           headers=JSON)
    assert resp.status_code == 413 and "bytes allowed" in resp.json()["detail"]


# --- audit ------------------------------------------------------------------------------------------

def test_every_action_and_refusal_is_audited(gw: Gateway) -> None:
    admin, member, reader = client(gw), client(gw, MEMBER), client(gw, READER)
    first = member.post("/api/v1/ingest", files={"file": ("paper.txt", b"one", "text/plain")}).json()["document_id"]
    second = member.post("/api/v1/ingest", files={"file": ("paper.txt", b"two", "text/plain")}).json()["document_id"]
    assert member.delete(f"/api/v1/documents/{second}").status_code == 200
    made = admin.post("/api/v1/keys", json={"department": "dept-b", "role": "reader"}).json()
    assert admin.delete(f"/api/v1/keys/{made['key_prefix']}").status_code == 200
    assert client(gw, made["key"]).get("/api/v1/documents").status_code == 401   # revoked
    assert client(gw, None).get("/api/v1/documents").status_code == 401          # no key
    assert client(gw, "lgk_99999999_" + "x" * 32).get("/api/v1/whoami").status_code == 401  # unknown
    assert reader.post("/api/v1/ingest", files={"file": ("r.txt", b"x", "text/plain")}).status_code == 403
    assert member.get("/api/v1/keys").status_code == 403
    ev = audit_of(gw).events
    assert audit_of(gw).actions() == [
        # the second upload of paper.txt replaces the first only once it is indexed (replacement.py
        # writes that entry then); here it is deleted before that
        ("upload", "1b1b1b1b", "dept-a", "ok"),
        ("upload", "1b1b1b1b", "dept-a", "ok"), ("delete", "1b1b1b1b", "dept-a", "ok"),
        ("key_create", "0a0a0a0a", "default", "ok"), ("key_revoke", "0a0a0a0a", "default", "ok"),
        ("denied", made["key_prefix"], "dept-b", "401"), ("denied", "", "", "401"),
        ("denied", "99999999", "", "401"), ("denied", "2c2c2c2c", "dept-a", "403"),
        ("denied", "1b1b1b1b", "dept-a", "403")]
    assert [e.target for e in ev[:5]] == [first, second, second, made["key_prefix"], made["key_prefix"]]
    assert "paper.txt" in ev[0].detail
    assert ev[5].detail == "The key was revoked." and ev[5].target == "GET /api/v1/documents"
    assert ev[8].target == "POST /api/v1/ingest" and "member key" in ev[8].detail
    assert ev[9].target == "GET /api/v1/keys" and "admin key" in ev[9].detail
    assert all(e.ts for e in ev)


def test_audit_route_is_for_admins_and_checks_since(gw: Gateway) -> None:
    assert client(gw, MEMBER).get("/api/v1/audit").status_code == 403
    resp = client(gw).get("/api/v1/audit", params={"since": "yesterday"})
    assert resp.status_code == 400 and "since" in resp.json()["detail"]


class SlowPublisher:
    def __init__(self, delay: float = 0.0, fail: bool = False) -> None:
        self.delay, self.fail = delay, fail
        self.sent: list[tuple[AuditEvent, bytes | None]] = []

    async def publish(self, message: AuditEvent, key: bytes | None = None) -> None:
        await asyncio.sleep(self.delay)
        if self.fail:
            raise ConnectionError("Kafka is down")
        self.sent.append((message, key))


def event(n: int, department: str = "dept-a") -> AuditEvent:
    return AuditEvent(action="upload", target=f"doc{n}", result="ok", department=department)


async def test_audit_log_publishes_in_order_without_waiting() -> None:
    pub = SlowPublisher(delay=0.01)
    log = AuditLog(pub, maxsize=10)
    await log.start()
    t = asyncio.get_running_loop().time()
    assert all(log.submit(event(n)) for n in range(5))
    assert asyncio.get_running_loop().time() - t < 0.01  # submitting never waits for Kafka
    await log.stop()
    assert [e.target for e, _ in pub.sent] == [f"doc{n}" for n in range(5)] and pub.sent[0][1] == b"dept-a"


async def test_audit_log_drops_when_full_and_survives_failures(caplog: pytest.LogCaptureFixture) -> None:
    log = AuditLog(SlowPublisher(delay=10), maxsize=2, publish_timeout_s=0.05)
    assert log.submit(event(1)) and log.submit(event(2)) and not log.submit(event(3))  # not started: queue full
    assert "audit queue full" in caplog.text
    failing = AuditLog(SlowPublisher(fail=True), maxsize=5)
    await failing.start()
    failing.submit(event(4))
    await failing.stop()
    assert "audit entry not published (ConnectionError" in caplog.text and "doc4" in caplog.text


def test_parse_since() -> None:
    now = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    assert parse_since("3600", now) == now - timedelta(hours=1)
    assert parse_since("30m", now) == now - timedelta(minutes=30)
    assert parse_since("2d", now) == now - timedelta(days=2)
    assert parse_since("1w", now) == now - timedelta(weeks=1)
    assert parse_since("2026-04-30T09:00", now) == datetime(2026, 4, 30, 9, 0, tzinfo=UTC)
    assert parse_since("2026-04-30T09:00+08:00", now) == datetime(2026, 4, 30, 1, 0, tzinfo=UTC)
    for bad in ("yesterday", "1y", "-5m", ""):
        with pytest.raises(ValueError, match="since="):
            parse_since(bad, now)


def test_newest_keeps_the_latest_entries_newest_first() -> None:
    n = Newest(3)
    for minute in (5, 1, 9, 3, 7):
        n.add(AuditEvent(ts=f"2026-05-01T12:0{minute}:00+00:00", action="delete", target=str(minute), result="ok"))
    assert [e.target for e in n.entries()] == ["9", "7", "5"]


def test_another_departments_document_is_a_404_and_an_audited_denial(gw: Gateway) -> None:
    admin, member = client(gw), client(gw, MEMBER)
    theirs = admin.post("/api/v1/ingest", params={"department": "dept-b"},
                        files={"file": ("theirs.txt", b"dept-b's paper", "text/plain")}).json()["document_id"]
    missing = "0" * 32
    before = len(audit_of(gw).events)
    for path in (f"/api/v1/documents/{theirs}", f"/api/v1/documents/{theirs}/pages/1.pdf",
                 f"/api/v1/chunks/{theirs}_0"):
        got, made_up = member.get(path), member.get(path.replace(theirs, missing))
        assert got.status_code == made_up.status_code == 404 and got.json() == made_up.json(), path
    assert member.delete(f"/api/v1/chunks/{theirs}_0").status_code == 404
    assert member.delete(f"/api/v1/documents/{theirs}").status_code == 404
    denied = audit_of(gw).events[before:]
    # one entry per request for the existing document, none for the made-up id
    assert [(e.action, e.key_prefix, e.department, e.result) for e in denied] == \
        [("denied", "1b1b1b1b", "dept-a", "404")] * 5
    assert [e.target for e in denied] == [
        f"GET /api/v1/documents/{theirs}", f"GET /api/v1/documents/{theirs}/pages/1.pdf",
        f"GET /api/v1/chunks/{theirs}_0", f"DELETE /api/v1/chunks/{theirs}_0", f"DELETE /api/v1/documents/{theirs}"]
    assert all("department dept-b" in e.detail for e in denied)

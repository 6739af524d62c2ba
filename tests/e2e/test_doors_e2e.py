"""The doors of the running stack: MinIO's generated credentials (its defaults refused), the Host
allow-list, oversized uploads refused before (declared) or at (undeclared) the limit — with the
bytes the gateway read and the bytes a client could push counted —, malformed JSON, and the audit
log: one entry per action and refusal, read back by the admin route and ``legco audit``.

The byte counts are printed (``pytest -s``): ``sent`` is what a raw socket client managed to
write before the 413 arrived or the connection closed (the operating system's socket buffers
take a few MB that the gateway never reads), ``read`` the gateway's own count of request body
bytes taken from its clients (``legco_gateway_request_body_bytes_total``).
"""
from __future__ import annotations

import asyncio
import json
import os
import select
import socket
import stat
import subprocess
import sys
import time
from typing import Any

import httpx
import pytest
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from minio import Minio
from minio.error import S3Error

from shared import topics
from shared.settings import read_credentials
from tests.conftest import REPO
from tests.infra import Stack

DEPARTMENT = "doors-e2e"
MB = 1024 * 1024
TEXT = ("The drainage works at the flood storage tank are expected to finish in the third quarter. "
        "The tank stays dry in normal weather and is cleaned after every rainstorm. ") * 20


def cli(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    """``legco ARGS`` of this checkout against the stack (as the admin)."""
    return subprocess.run([sys.executable, "-m", "cli.main", "--url", stack.gateway_url, *args],
                          env={**os.environ, **stack.env, "PYTHONPATH": str(REPO)}, cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def body_bytes_read(stack: Stack) -> float:
    text = httpx.get(f"{stack.gateway_url}/metrics", timeout=10).text
    line = next(ln for ln in text.splitlines() if ln.startswith("legco_gateway_request_body_bytes_total "))
    return float(line.split()[1])


# --- MinIO credentials ------------------------------------------------------------------------------

def test_minio_runs_on_generated_credentials(stack: Stack) -> None:
    path = stack.var / "minio.credentials"
    if stack.containers:
        pytest.skip("MinIO runs in a container with credentials from tests/infra.py")
    creds = read_credentials(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((stack.var / "supervisord.conf").stat().st_mode) == 0o600
    assert creds["MINIO_ACCESS_KEY"].startswith("legco-") and len(creds["MINIO_SECRET_KEY"]) == 40
    endpoint = stack.env["MINIO_ENDPOINT"]
    with pytest.raises(S3Error) as refused:
        Minio(endpoint, access_key="minioadmin", secret_key="minioadmin", secure=False).list_buckets()
    assert refused.value.code == "InvalidAccessKeyId"
    good = Minio(endpoint, access_key=creds["MINIO_ACCESS_KEY"], secret_key=creds["MINIO_SECRET_KEY"], secure=False)
    assert "legco" in [b.name for b in good.list_buckets()]
    before = path.read_bytes()
    stack.ctl("conf")  # what every `up` does first: the existing credentials are reused, not replaced
    assert path.read_bytes() == before
    assert creds["MINIO_SECRET_KEY"] in (stack.var / "supervisord.conf").read_text()


# --- Host, malformed JSON, cross-site form post --------------------------------------------------------

def test_a_foreign_host_gets_400(stack: Stack) -> None:
    port = stack.gateway_url.rsplit(":", 1)[1]
    with httpx.Client(base_url=stack.gateway_url, headers=stack.auth(), timeout=30) as c:
        refused = c.get("/api/v1/whoami", headers={"Host": f"rebind.evil.example:{port}"})
        assert refused.status_code == 400 and "ALLOWED_HOSTS" in refused.json()["detail"]
        assert c.get("/", headers={"Host": "rebind.evil.example"}).status_code == 400
        assert c.get("/api/v1/whoami", headers={"Host": f"localhost:{port}"}).status_code == 200
        assert c.get("/api/v1/whoami").status_code == 200  # 127.0.0.1
        assert c.get("/healthz", headers={"Host": "10.0.0.7:8080"}).status_code == 200  # probes by address


def test_malformed_json_gets_a_4xx_with_a_reason(stack: Stack) -> None:
    with httpx.Client(base_url=stack.gateway_url, headers=stack.auth(), timeout=30) as c:
        for body, status, reason in [(b'{"question": "\\ud800"}', 422, "surrogate"),
                                     ('{"question": "caf\u00e9"}'.encode("latin-1"), 400, "UTF-8"),
                                     ('{"question": "x"}'.encode("utf-16"), 400, "UTF-8"),
                                     (b'{"question": "q", "top_k": NaN}', 422, "finite")]:
            r = c.post("/api/v1/query", content=body, headers={"content-type": "application/json"})
            assert r.status_code == status and reason in r.text, (body, r.status_code, r.text)


def test_a_cross_site_multipart_post_without_a_key_gets_401(stack: Stack) -> None:
    body = b'--b\r\nContent-Disposition: form-data; name="file"; filename="x.txt"\r\n\r\nx\r\n--b--\r\n'
    r = httpx.post(f"{stack.gateway_url}/api/v1/ingest", content=body, timeout=30,
                   headers={"content-type": "multipart/form-data; boundary=b", "origin": "https://evil.example"})
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"


# --- oversized uploads ------------------------------------------------------------------------------

def stream_upload(stack: Stack, total: int, chunked: bool, part: int = 64 * 1024) -> tuple[int, int, str]:
    """Send an upload of ``total`` body bytes on a raw socket (``Content-Length: total``, or chunked),
    as fast as the connection takes it, until an answer arrives or the connection closes.

    Returns (status, body bytes written, the answer's body)."""
    host, port = stack.gateway_url.removeprefix("http://").split(":")
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {total}"
    head = (f"POST /api/v1/ingest?strategy=token HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Authorization: Bearer {stack.admin_key}\r\nContent-Type: multipart/form-data; boundary=b\r\n"
            f"{framing}\r\n\r\n").encode()
    preamble = b'--b\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n\r\n%PDF-1.4\n'
    sock = socket.create_connection((host, int(port)), timeout=30)
    sent = 0
    try:
        sock.sendall(head)
        sock.setblocking(False)
        pending = b""
        deadline = time.monotonic() + 120
        while sent < total and time.monotonic() < deadline:
            readable, writable, _ = select.select([sock], [sock], [], 5)
            if readable:
                break  # the answer (or the close) is here: stop sending
            if not writable:
                continue
            if not pending:
                data = (preamble if sent == 0 else b"") + b"x" * part
                data = data[:min(part, total - sent)]
                pending = (f"{len(data):x}\r\n".encode() + data + b"\r\n") if chunked else data
                payload = len(data)
            try:
                n = sock.send(pending)
            except (BrokenPipeError, ConnectionResetError):
                break
            pending = pending[n:]
            if not pending:
                sent += payload
        sock.setblocking(True)
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer) < answer.index(b"\r\n\r\n") + 20:
            try:
                got = sock.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not got:
                break
            answer += got
    finally:
        sock.close()
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0
    return status, sent, answer.partition(b"\r\n\r\n")[2].decode("utf-8", "replace")


def test_a_declared_150_mb_upload_is_refused_before_its_body_is_read(stack: Stack) -> None:
    before = body_bytes_read(stack)
    status, sent, body = stream_upload(stack, 150 * MB, chunked=False)
    read = body_bytes_read(stack) - before
    print(f"\ndeclared 150 MB upload: status {status}, client wrote {sent} body bytes before the answer, "
          f"gateway read {read:.0f}")
    assert status == 413 and "limit" in body
    assert read == 0
    assert sent < 16 * MB  # socket buffers at most; the rest was never sent


def test_an_undeclared_150_mb_upload_stops_at_the_limit(stack: Stack) -> None:
    limit = int(stack.env["MAX_UPLOAD_BYTES"])
    before = body_bytes_read(stack)
    status, sent, body = stream_upload(stack, 150 * MB, chunked=True)
    read = body_bytes_read(stack) - before
    print(f"\nchunked 150 MB upload, limit {limit}: status {status}, client wrote {sent} body bytes, "
          f"gateway read {read:.0f}")
    assert status == 413 and "limit" in body
    assert limit < read <= limit + MB + 256 * 1024  # the limit, the multipart allowance, one read
    assert sent < limit + 32 * MB


# --- audit ------------------------------------------------------------------------------------------

def wait_indexed(c: httpx.Client, doc_id: str, timeout_s: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        r = c.get(f"/api/v1/documents/{doc_id}")
        if r.status_code == 200 and r.json()["status"] in ("indexed", "failed"):
            return dict(r.json())
        time.sleep(0.5)
    raise AssertionError(f"{doc_id} not indexed after {timeout_s} s")


def audit_entries(c: httpx.Client, want: int, **params: str) -> list[dict[str, Any]]:
    """The audit entries of the last 10 minutes (waiting up to 20 s for ``want`` of them)."""
    deadline = time.monotonic() + 20
    while True:
        r = c.get("/api/v1/audit", params={"since": "10m", "limit": "1000", **params})
        assert r.status_code == 200, r.text
        entries: list[dict[str, Any]] = r.json()["entries"]
        if len(entries) >= want or time.monotonic() > deadline:
            return entries
        time.sleep(0.5)


def test_every_action_and_refusal_leaves_an_audit_entry(stack: Stack) -> None:
    made = cli(stack, "keys", "create", "--department", DEPARTMENT, "--role", "member", "--label", "doors e2e")
    assert made.returncode == 0, made.stderr
    member_key = made.stdout.splitlines()[-1]
    member_prefix = member_key.split("_")[1]
    admin = httpx.Client(base_url=stack.gateway_url, headers=stack.auth(), timeout=60)
    reader_key = admin.post("/api/v1/keys", json={"department": DEPARTMENT, "role": "reader"}).json()["key"]
    member = httpx.Client(base_url=stack.gateway_url, headers=stack.auth(member_key), timeout=60)
    reader = httpx.Client(base_url=stack.gateway_url, headers=stack.auth(reader_key), timeout=60)
    try:
        first = member.post("/api/v1/ingest", files={"file": ("audit-paper.txt", TEXT.encode())}).json()["document_id"]
        wait_indexed(member, first)
        second = member.post("/api/v1/ingest", files={"file": ("audit-paper.txt", (TEXT + " v2").encode())})
        second_id = second.json()["document_id"]
        assert wait_indexed(member, second_id)["status"] == "indexed"
        chunk = member.get(f"/api/v1/documents/{second_id}/chunks").json()["chunks"][0]["chunk_id"]
        assert member.delete(f"/api/v1/chunks/{chunk}").status_code == 200
        assert member.delete(f"/api/v1/documents/{second_id}").status_code == 200
        assert reader.post("/api/v1/ingest", files={"file": ("r.txt", b"reader")}).status_code == 403
        revoked = cli(stack, "keys", "revoke", member_prefix)
        assert revoked.returncode == 0, revoked.stderr
        assert member.get("/api/v1/documents").status_code == 401
        assert httpx.get(f"{stack.gateway_url}/api/v1/documents", timeout=30).status_code == 401

        mine = audit_entries(admin, 7, department=DEPARTMENT)
        by_action = {(e["action"], e["target"]): e for e in mine}
        assert by_action[("upload", first)]["key_prefix"] == member_prefix
        assert "audit-paper.txt" in by_action[("upload", first)]["detail"]
        assert ("upload", second_id) in by_action
        assert ("replace", first) in by_action and by_action[("replace", first)]["result"] == "ok"
        assert by_action[("chunk_delete", chunk)]["key_prefix"] == member_prefix
        assert by_action[("delete", second_id)]["result"] == "ok"
        denied = [e for e in mine if e["action"] == "denied"]
        assert {(e["result"], e["target"]) for e in denied} >= {("403", "POST /api/v1/ingest"),
                                                                 ("401", "GET /api/v1/documents")}
        assert any(e["detail"] == "The key was revoked." and e["key_prefix"] == member_prefix for e in denied)
        assert all(e["department"] == DEPARTMENT for e in mine)
        assert [e["ts"] for e in mine] == sorted((e["ts"] for e in mine), reverse=True)  # newest first

        everyone = audit_entries(admin, len(mine) + 3)
        keys_done = {(e["action"], e["target"]) for e in everyone}
        assert ("key_create", member_prefix) in keys_done and ("key_revoke", member_prefix) in keys_done
        assert any(e["action"] == "denied" and e["key_prefix"] == "" and e["result"] == "401" for e in everyone)
        assert len(audit_entries(admin, 0, limit="2")) == 2

        out = cli(stack, "audit", "--department", DEPARTMENT, "--since", "10m", "--json")
        assert out.returncode == 0, out.stderr
        assert {(e["action"], e["target"]) for e in json.loads(out.stdout)["entries"]} >= set(by_action)
        table = cli(stack, "audit", "--since", "1h")
        assert "key_create" in table.stdout and member_prefix in table.stdout
        assert member_prefix in cli(stack, "keys", "list").stdout
        assert reader.get("/api/v1/audit").status_code == 403
    finally:
        for c in (admin, member, reader):
            c.close()


def test_the_audit_topic_keeps_entries_forever(stack: Stack) -> None:
    async def retention() -> dict[str, str]:
        admin = AIOKafkaAdminClient(bootstrap_servers=stack.env["KAFKA_BOOTSTRAP"])
        await admin.start()
        try:
            [resp] = await admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topics.AUDIT)])
            [(_, _, _, _, entries)] = resp.resources
            return {e[0]: e[1] for e in entries}
        finally:
            await admin.close()
    configs = asyncio.run(retention())
    assert configs["retention.ms"] == "-1" and configs["retention.bytes"] == "-1"

"""API keys on the gateway app (in-memory stores, no services): every /api/v1 route needs a key,
roles decide who may change documents and manage keys, revoked keys stop working, keys are
stored hashed."""
from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from tests.unit.gateway.test_gateway_contract import ADMIN_KEY, Gateway, key_store

MEMBER = "lgk_1b1b1b1b_" + "M" * 32
READER = "lgk_2c2c2c2c_" + "R" * 32


@pytest.fixture
def gw() -> Gateway:
    g = Gateway()
    g.app.state.gateway.keys = key_store(g.store, (ADMIN_KEY, "default", "admin"), (MEMBER, "dept-a", "member"),
                                         (READER, "dept-a", "reader"))
    return g


def as_key(gw: Gateway, key: str | None) -> TestClient:
    return TestClient(gw.app, headers={"Authorization": f"Bearer {key}"} if key else {})


@pytest.mark.parametrize("path", ["/api/v1/documents", "/api/v1/events", "/api/v1/config", "/api/v1/whoami",
                                  "/api/v1/keys", "/api/v1/documents/0123/chunks"])
@pytest.mark.parametrize("key", [None, "lgk_1b1b1b1b_wrong-secret-wrong-secret-wrong", "not-a-key"])
def test_every_route_needs_a_valid_key(gw: Gateway, path: str, key: str | None) -> None:
    resp = as_key(gw, key).get(path)
    assert resp.status_code == 401
    assert resp.headers["www-authenticate"] == "Bearer" and resp.json()["detail"]


def test_open_routes_stay_open(gw: Gateway) -> None:
    client = as_key(gw, None)
    assert client.get("/metrics").status_code == 200
    assert client.get("/openapi.json").status_code == 200


def test_whoami(gw: Gateway) -> None:
    assert as_key(gw, READER).get("/api/v1/whoami").json() == {
        "key_prefix": "2c2c2c2c", "department": "dept-a", "role": "reader"}


def test_reader_cannot_upload_or_delete(gw: Gateway) -> None:
    reader = as_key(gw, READER)
    resp = reader.post("/api/v1/ingest", files={"file": ("a.txt", b"text", "text/plain")})
    assert resp.status_code == 403 and "member" in resp.json()["detail"]
    assert reader.delete("/api/v1/documents/" + "0" * 32).status_code == 403
    assert gw.uploads.sent == []


@pytest.mark.parametrize("key", [MEMBER, READER])
def test_key_management_is_for_admins(gw: Gateway, key: str) -> None:
    client = as_key(gw, key)
    assert client.get("/api/v1/keys").status_code == 403
    assert client.post("/api/v1/keys", json={"department": "x", "role": "admin"}).status_code == 403
    assert client.delete("/api/v1/keys/1b1b1b1b").status_code == 403


def test_create_list_revoke(gw: Gateway) -> None:
    admin = as_key(gw, ADMIN_KEY)
    made = admin.post("/api/v1/keys", json={"department": "dept-b", "role": "member", "label": "ops"})
    assert made.status_code == 201
    key = made.json()["key"]
    assert key.startswith(f"lgk_{made.json()['key_prefix']}_")
    assert as_key(gw, key).get("/api/v1/whoami").json()["department"] == "dept-b"
    listed = {k["key_prefix"]: k for k in admin.get("/api/v1/keys").json()["keys"]}
    assert "key" not in listed[made.json()["key_prefix"]] and "sha256" not in listed[made.json()["key_prefix"]]
    stored = json.dumps([json.loads(v) for k, v in gw.store.objects.items() if k.startswith("auth/keys/")])
    assert key not in stored                                    # hashed, never in plain text
    assert admin.delete(f"/api/v1/keys/{made.json()['key_prefix']}").json()["revoked"] is True
    assert as_key(gw, key).get("/api/v1/whoami").status_code == 401
    assert admin.delete("/api/v1/keys/ffffffff").status_code == 404


def test_bad_department_name_is_refused(gw: Gateway) -> None:
    resp = as_key(gw, ADMIN_KEY).post("/api/v1/keys", json={"department": "Bad Name/..", "role": "member"})
    assert resp.status_code == 400


def test_cross_site_multipart_without_a_key_is_refused(gw: Gateway) -> None:
    # a "simple" cross-site form post (no preflight) cannot carry an Authorization header
    body = b"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nx\r\n--b--\r\n"
    resp = as_key(gw, None).post("/api/v1/ingest", content=body, headers={
        "content-type": "multipart/form-data; boundary=b", "origin": "https://evil.example"})
    assert resp.status_code == 401 and gw.uploads.sent == []

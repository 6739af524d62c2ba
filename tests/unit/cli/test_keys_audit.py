"""``legco keys create|list|revoke`` and ``legco audit`` against an in-process fake gateway
(``httpx.MockTransport``): what they send, what they print, exit codes."""
from __future__ import annotations

import json

import httpx
import pytest

from cli import api
from cli.keys_cmd import key_prefix
from cli.main import main, parse_args

NEW_KEY = "lgk_5e5e5e5e_" + "K" * 32
KEYS = [{"key_prefix": "0a0a0a0a", "department": "default", "role": "admin", "label": "bootstrap admin key",
         "created_at": "2026-05-01T08:00:00.123456+00:00", "last_used_at": "2026-05-02T09:30:00+00:00",
         "revoked_at": None},
        {"key_prefix": "1b1b1b1b", "department": "dept-a", "role": "reader", "label": "",
         "created_at": "2026-05-01T08:05:00+00:00", "last_used_at": None,
         "revoked_at": "2026-05-03T10:00:00+00:00"}]
ENTRIES = [{"ts": "2026-05-03T10:00:00+00:00", "key_prefix": "0a0a0a0a", "department": "default",
            "action": "key_revoke", "target": "1b1b1b1b", "result": "ok", "detail": "reader key of dept-a"},
           {"ts": "2026-05-03T09:59:00+00:00", "key_prefix": "", "department": "", "action": "denied",
            "target": "GET /api/v1/documents", "result": "401", "detail": "An API key is required."}]


class FakeGateway:
    """The admin routes the two commands call; ``seen`` records (method, path, params, json)."""

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.seen: list[tuple[str, str, dict[str, str], object]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        self.seen.append((request.method, request.url.path, dict(request.url.params), body))
        if self.status != 200:
            return httpx.Response(self.status, json={"detail": "This needs an admin key."})
        if request.method == "POST" and request.url.path == "/api/v1/keys":
            assert isinstance(body, dict)
            return httpx.Response(201, json={"key": NEW_KEY, "key_prefix": "5e5e5e5e", "department": body["department"],
                                             "role": body["role"], "label": body["label"],
                                             "created_at": "2026-05-04T00:00:00+00:00", "last_used_at": None,
                                             "revoked_at": None})
        if request.method == "GET" and request.url.path == "/api/v1/keys":
            return httpx.Response(200, json={"keys": KEYS})
        if request.method == "DELETE" and request.url.path.startswith("/api/v1/keys/"):
            prefix = request.url.path.rsplit("/", 1)[-1]
            if prefix != "1b1b1b1b":
                return httpx.Response(404, json={"detail": "No key has that prefix."})
            return httpx.Response(200, json={"revoked": True, "key_prefix": prefix})
        if request.url.path == "/api/v1/audit":
            return httpx.Response(200, json={"entries": ENTRIES})
        return httpx.Response(404, json={"detail": "Not Found"})


@pytest.fixture
def gw(monkeypatch: pytest.MonkeyPatch) -> FakeGateway:
    fake = FakeGateway()
    monkeypatch.setattr(api, "make_client", lambda url, settings=None: httpx.AsyncClient(
        base_url=url, transport=httpx.MockTransport(fake)))
    return fake


def test_create_prints_the_key_alone_on_the_last_line(gw: FakeGateway, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["--url", "http://gw", "keys", "create", "--department", "dept-a", "--role", "member",
               "--label", "press office"])
    out = capsys.readouterr().out
    assert rc == 0
    assert gw.seen == [("POST", "/api/v1/keys", {}, {"department": "dept-a", "role": "member",
                                                     "label": "press office"})]
    assert out.splitlines()[-1] == NEW_KEY
    assert "created member key 5e5e5e5e for department dept-a" in out and "shown this once" in out
    assert out.count(NEW_KEY) == 1


def test_create_needs_department_and_a_known_role(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["keys", "create", "--role", "member"], ["keys", "create", "--department", "a", "--role", "boss"],
                 ["keys"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
    assert "usage: legco keys" in capsys.readouterr().err


def test_list_shows_every_column(gw: FakeGateway, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--url", "http://gw", "keys", "list"]) == 0
    out = capsys.readouterr().out
    header = [c.strip() for c in out.splitlines()[0].split("┃")]
    assert header == ["department", "role", "prefix", "label", "created", "last used", "revoked"]
    admin = next(ln for ln in out.splitlines() if "0a0a0a0a" in ln)
    assert "default" in admin and "admin" in admin and "bootstrap admin key" in admin
    assert "2026-05-01 08:00:00" in admin and "2026-05-02 09:30:00" in admin
    reader = next(ln for ln in out.splitlines() if "1b1b1b1b" in ln)
    assert "never" in reader and "2026-05-03 10:00:00" in reader
    assert "2 keys, 1 active" in out
    assert main(["--url", "http://gw", "keys", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"keys": KEYS}


@pytest.mark.parametrize("given", ["1b1b1b1b", "lgk_1b1b1b1b", "lgk_1b1b1b1b_" + "S" * 32, "1B1B1B1B"])
def test_revoke_takes_a_prefix_or_the_whole_key(gw: FakeGateway, capsys: pytest.CaptureFixture[str],
                                                given: str) -> None:
    assert main(["--url", "http://gw", "keys", "revoke", given]) == 0
    assert gw.seen[-1][:2] == ("DELETE", "/api/v1/keys/1b1b1b1b")
    assert "revoked key 1b1b1b1b" in capsys.readouterr().out


def test_revoke_unknown_prefix_is_one_error_line(gw: FakeGateway, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--url", "http://gw", "keys", "revoke", "ffffffff"]) == 1
    assert capsys.readouterr().err == "error: 404 No key has that prefix.\n"


def test_key_prefix() -> None:
    assert key_prefix(" lgk_0a0a0a0a_secret-with_underscores ") == "0a0a0a0a"
    assert key_prefix("0A0A0A0A") == "0a0a0a0a"


def test_audit_sends_filters_and_prints_entries(gw: FakeGateway, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--url", "http://gw", "audit", "--department", "dept-a", "--since", "1h"]) == 0
    assert gw.seen[-1][:3] == ("GET", "/api/v1/audit", {"since": "1h", "limit": "100", "department": "dept-a"})
    out = capsys.readouterr().out
    revoke = next(ln for ln in out.splitlines() if "key_revoke" in ln)
    assert "2026-05-03 10:00:00" in revoke and "0a0a0a0a" in revoke and "reader key of dept-a" in revoke
    denied = next(ln for ln in out.splitlines() if "denied" in ln)
    assert "GET /api/v1/documents" in denied and "401" in denied
    assert out.index("key_revoke") < out.index("denied")  # newest first, as served
    assert "2 entries" in out
    assert main(["--url", "http://gw", "audit", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"entries": ENTRIES}
    assert gw.seen[-1][2] == {"since": "24h", "limit": "100"}


def test_audit_with_a_member_key_is_refused(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakeGateway(status=403)
    monkeypatch.setattr(api, "make_client", lambda url, settings=None: httpx.AsyncClient(
        base_url=url, transport=httpx.MockTransport(fake)))
    assert main(["--url", "http://gw", "audit"]) == 1
    assert capsys.readouterr().err == "error: 403 This needs an admin key.\n"


def test_parse_audit_arguments() -> None:
    a = parse_args(["audit", "--since", "2d", "--limit", "5"])
    assert (a.department, a.since, a.limit, a.json) == (None, "2d", 5, False)

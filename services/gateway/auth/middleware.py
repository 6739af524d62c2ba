"""Authentication before anything else: an ASGI middleware that checks the API key of every
``/api/v1`` request before its body is read.

FastAPI reads a request's form body (an upload) before it runs the route's dependencies, so a
dependency alone would accept — and spool to disk — a 100 MB upload from a caller without a key
before answering 401. This middleware answers 401 from the headers alone and puts the ``Caller``
on ``request.state.caller`` for the route's dependencies (``principal.py``). Before it checks the
key it syncs the replica with the registry topic (``Registry.sync``), so the request — the key
check and the route — sees every document and key change acknowledged through any replica
before it arrived.

It is also the one place where refusals are audited: every ``/api/v1`` answer with status 401
(here) or 403 (a role dependency or a route) is written to the audit log as ``denied``, with the
route and the answer's ``detail``.
"""
from __future__ import annotations

import hmac
import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.gateway import audit
from services.gateway.auth.keys import key_sha256, split_key
from shared.api import Caller

API_PREFIX = "/api/v1/"
UNAUTHENTICATED = "An API key is required: send it as 'Authorization: Bearer <key>'."
REJECTED = "The API key was not accepted (unknown or revoked)."


def bearer_key(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The key of an ``Authorization: Bearer <key>`` header, or ``None``."""
    for name, value in headers:
        if name.lower() == b"authorization":
            scheme, _, key = value.decode("latin-1").partition(" ")
            return key.strip() if scheme.lower() == "bearer" and key.strip() else None
    return None


async def send_json(send: Send, status: int, body: dict[str, Any], headers: list[tuple[bytes, bytes]]) -> None:
    """Send a whole JSON response."""
    data = json.dumps(body).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
                            *headers]})
    await send({"type": "http.response.body", "body": data})


class AuthMiddleware:
    """401 for ``/api/v1`` requests without a valid key; the caller for the others.

    Args:
        app: the ASGI app; its ``state.gateway.keys`` is the ``KeyStore`` (set in the lifespan).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(API_PREFIX):
            await self.app(scope, receive, send)
            return
        state = scope["app"].state.gateway
        key = bearer_key(scope["headers"])
        challenge = [(b"www-authenticate", b"Bearer")]
        if key is None:
            await send_json(send, 401, {"detail": UNAUTHENTICATED}, challenge)
            await audit_denied(state, scope, None, 401, UNAUTHENTICATED)
            return
        # Every change any replica acknowledged before this request (documents, keys) is folded
        # here first (``changelog.py``; a lookup of the registry topic's end offsets, < 1 ms).
        await state.registry.sync()
        rec = await state.keys.verify(key)
        if rec is None:
            await send_json(send, 401, {"detail": REJECTED}, challenge)
            await audit_rejected_key(state, scope, key)
            return
        caller = Caller(key_prefix=rec.key_prefix, department=rec.department, role=rec.role)
        scope.setdefault("state", {})["caller"] = caller
        await self.app(scope, receive, audited_send(state, scope, caller, send))


def audited_send(state: Any, scope: Scope, caller: Caller, send: Send) -> Send:
    """``send`` that audits a 403 answer (with its ``detail``) once it has been sent."""
    refused: dict[str, Any] = {}

    async def wrapped(msg: Message) -> None:
        await send(msg)
        if msg["type"] == "http.response.start" and msg["status"] == 403:
            refused["body"] = b""
        elif msg["type"] == "http.response.body" and "body" in refused:
            refused["body"] += msg.get("body", b"")
            if not msg.get("more_body", False):
                await audit_denied(state, scope, caller, 403, _detail(refused.pop("body")))
    return wrapped


def _detail(body: bytes) -> str:
    try:
        detail = json.loads(body).get("detail", "")
    except (ValueError, AttributeError):
        return ""
    return detail if isinstance(detail, str) else json.dumps(detail)[:300]


async def audit_rejected_key(state: Any, scope: Scope, key: str) -> None:
    """The ``denied`` entry of a key that was refused: its prefix when well-formed, and for a
    revoked key (the right secret) its department and "revoked"."""
    parts = split_key(key)
    known = state.keys.records.get(parts[0]) if parts else None
    if known is not None and not known.active and hmac.compare_digest(known.sha256, key_sha256(key.strip())):
        await audit.record(state, None, "denied", f"{scope['method']} {scope['path']}", "401",
                           "The key was revoked.", department=known.department, key_prefix=known.key_prefix)
        return
    await audit_denied(state, scope, None, 401, REJECTED, key_prefix=parts[0] if parts else "")


async def audit_denied(state: Any, scope: Scope, caller: Caller | None, status: int, detail: str,
                       key_prefix: str | None = None) -> None:
    """A ``denied`` audit entry for this request (target ``METHOD /path``)."""
    await audit.record(state, caller, "denied", f"{scope['method']} {scope['path']}", str(status), detail,
                       key_prefix=key_prefix)

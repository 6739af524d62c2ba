"""Authentication before anything else: an ASGI middleware that checks the API key of every
``/api/v1`` request before its body is read.

FastAPI reads a request's form body (an upload) before it runs the route's dependencies, so a
dependency alone would accept — and spool to disk — a 100 MB upload from a caller without a key
before answering 401. This middleware answers 401 from the headers alone and puts the ``Caller``
on ``request.state.caller`` for the route's dependencies (``principal.py``).
"""
from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

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
        key = bearer_key(scope["headers"])
        challenge = [(b"www-authenticate", b"Bearer")]
        if key is None:
            await send_json(send, 401, {"detail": UNAUTHENTICATED}, challenge)
            return
        keys = scope["app"].state.gateway.keys
        rec = await keys.verify(key)
        if rec is None:
            await send_json(send, 401, {"detail": REJECTED}, challenge)
            return
        scope.setdefault("state", {})["caller"] = Caller(key_prefix=rec.key_prefix, department=rec.department,
                                                          role=rec.role)
        await self.app(scope, receive, send)

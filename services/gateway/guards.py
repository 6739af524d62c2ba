"""ASGI middlewares that check a request before any route sees it, from the outside in:

* ``HostGuard``: the ``Host`` header must name this server (``ALLOWED_HOSTS``), else 400. A web
  page on another site can point its own DNS name at 127.0.0.1 (DNS rebinding) and then read
  the answers as same-origin; its requests still carry its own name in ``Host``.
* ``BodyLimit``: a declared ``Content-Length`` above the limit is refused with 413 before a
  byte of the body is read; without a length (chunked) or with a wrong one, reading stops at
  the limit with the same 413. Any answer sent before the body was read to its end closes the
  connection, so the server does not go on receiving (and discarding) the rest.
* ``Utf8Json``: a JSON body must be UTF-8 (RFC 8259); a Latin-1 or UTF-16 body gets 400 with
  a reason instead of a decoding error deep inside the framework.

Limits: ``MAX_UPLOAD_BYTES`` (+ 1 MiB of multipart framing) for ``POST /api/v1/ingest``,
``MAX_REQUEST_BYTES`` for every other request. ``/healthz`` and ``/metrics`` are exempt from the
host check: probes and scrapers call them by IP address, and they serve no documents.
"""
from __future__ import annotations

from prometheus_client import Counter
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.gateway.auth.middleware import send_json
from shared.metrics import REGISTRY
from shared.settings import Settings

INGEST_PATH = "/api/v1/ingest"
MULTIPART_ALLOWANCE = 1024 * 1024  # boundary lines and part headers around the file
HOST_EXEMPT = ("/healthz", "/metrics")
CLOSE = [(b"connection", b"close")]

BODY_BYTES = Counter("legco_gateway_request_body_bytes_total",
                     "Request body bytes the gateway read from clients", registry=REGISTRY)
REFUSED = Counter("legco_gateway_refused_total",
                  "Requests refused before routing (reason: host | too_large | bad_length | not_utf8)",
                  ["reason"], registry=REGISTRY)


def _header(scope: Scope, name: bytes) -> list[bytes]:
    return [v for k, v in scope["headers"] if k.lower() == name]


def host_name(value: str) -> str | None:
    """The lower-cased host name of a ``Host`` header (``[::1]:8080`` → ``::1``, ``Example.org.``
    → ``example.org``), or ``None`` when it is malformed."""
    v = value.strip().lower()
    if v.startswith("["):
        name, sep, rest = v[1:].partition("]")
        if not sep or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return name or None
    name, sep, port = v.partition(":")
    if (sep and not port.isdigit()) or not name:
        return None
    return name.rstrip(".")


def host_allowed(name: str, allowed: list[str]) -> bool:
    """``name`` matches an entry of ``allowed``: equal, ``*.domain`` for its subdomains, or ``*``."""
    for pattern in allowed:
        if pattern == "*" or name == pattern:
            return True
        if pattern.startswith("*.") and name.endswith(pattern[1:]):
            return True
    return False


class HostGuard:
    """400 for a request whose ``Host`` is not in ``settings.allowed_hosts``."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.allowed = [h.strip().lower() for h in settings.allowed_hosts]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope["path"] in HOST_EXEMPT or "*" in self.allowed:
            await self.app(scope, receive, send)
            return
        values = _header(scope, b"host")
        name = host_name(values[0].decode("latin-1")) if len(values) == 1 else None
        if name is None or not host_allowed(name, self.allowed):
            REFUSED.labels("host").inc()
            shown = values[0].decode("latin-1")[:100] if values else ""
            await send_json(send, 400, {"detail": f"This server does not answer for the host {shown!r}; "
                                                  "its names are set by ALLOWED_HOSTS."},
                            CLOSE)
            return
        await self.app(scope, receive, send)


class BodyLimit:
    """413 for a request body above its limit, before or while it is read."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.upload_limit = settings.max_upload_bytes + MULTIPART_ALLOWANCE
        self.upload_mb = settings.max_upload_bytes // (1024 * 1024)
        self.request_limit = settings.max_request_bytes

    def _refuse_message(self, upload: bool) -> str:
        if upload:
            return f"The file is larger than the {self.upload_mb} MB limit."
        return f"The request body is larger than the {self.request_limit} bytes allowed."

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        upload = scope["path"] == INGEST_PATH
        limit = self.upload_limit if upload else self.request_limit
        lengths = {v.strip() for v in _header(scope, b"content-length")}
        if len(lengths) > 1 or not all(v.isdigit() for v in lengths):
            REFUSED.labels("bad_length").inc()
            await send_json(send, 400, {"detail": "The Content-Length header is not one number."}, CLOSE)
            return
        declared = int(next(iter(lengths))) if lengths else 0
        if declared > limit:
            REFUSED.labels("too_large").inc()
            await send_json(send, 413, {"detail": self._refuse_message(upload)}, CLOSE)
            return
        chunked = any(b"chunked" in v.lower() for v in _header(scope, b"transfer-encoding"))
        body = _LimitedBody(receive, send, limit, self._refuse_message(upload), expected=declared > 0 or chunked)
        await self.app(scope, body.receive, body.send)


class _LimitedBody:
    """One request's body as the app reads it: counted, cut off (413) beyond ``limit`` bytes.

    Args:
        receive, send: the server's channels.
        limit: bytes allowed; refusal: the 413's detail.
        expected: the request declares a body (a length above 0, or chunked).
    """

    def __init__(self, receive: Receive, send: Send, limit: int, refusal: str, expected: bool) -> None:
        self._receive, self._send, self.limit, self.refusal = receive, send, limit, refusal
        self.read = 0
        self.done = not expected
        self.started = False
        self.refused = False

    async def receive(self) -> Message:
        """The next body part; ``http.disconnect`` once the limit is passed (after sending 413)."""
        if self.refused:
            return {"type": "http.disconnect"}
        msg = await self._receive()
        if msg["type"] != "http.request":
            return msg
        size = len(msg.get("body", b""))
        self.read += size
        BODY_BYTES.inc(size)
        self.done = not msg.get("more_body", False)
        if self.read > self.limit:
            self.refused = True
            REFUSED.labels("too_large").inc()
            if not self.started:
                self.started = True
                await send_json(self._send, 413, {"detail": self.refusal}, CLOSE)
            return {"type": "http.disconnect"}  # the route stops reading; its answer is dropped
        return msg

    async def send(self, msg: Message) -> None:
        """The app's answer, with ``Connection: close`` when the body was not read to its end."""
        if self.refused:
            return
        if msg["type"] == "http.response.start":
            self.started = True
            if not self.done:  # answered before the body arrived: close instead of draining it
                msg = {**msg, "headers": [*msg.get("headers", []), *CLOSE]}
        await self._send(msg)


def _json_body(scope: Scope) -> bool:
    ctype = b"".join(_header(scope, b"content-type")[:1]).split(b";")[0].strip().lower()
    return ctype == b"application/json" or ctype.endswith(b"+json")


class Utf8Json:
    """400 for a JSON request body that is not UTF-8 text."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _json_body(scope):
            await self.app(scope, receive, send)
            return
        parts = []
        while True:
            msg = await receive()
            if msg["type"] != "http.request":
                return  # the client left, or the body was over the limit (answered already)
            parts.append(msg.get("body", b""))
            if not msg.get("more_body", False):
                break
        body = b"".join(parts)
        try:
            body.decode("utf-8")
            utf8 = b"\x00" not in body  # JSON text never holds a raw NUL; UTF-16 text of ASCII does
        except UnicodeDecodeError:
            utf8 = False
        if not utf8:
            REFUSED.labels("not_utf8").inc()
            await send_json(send, 400, {"detail": "The request body is not UTF-8 text; JSON must be sent as UTF-8."},
                            [])
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

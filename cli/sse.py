"""Server-Sent Events: a line parser and a background subscription to ``GET /api/v1/events``.

The gateway sends event ``document`` with the document's whole record (``DocumentRecord``
JSON: ``document_id``, ``status``, ``stage``, ``pages_done``, ``pages_total``, ``unit``,
``chunk_count``, ``updated_at``, ``error``, ``warnings`` …) after each change, and event
``deleted`` with ``{"document_id"}``; clients take the record as it is, they fold nothing.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from shared.settings import ClientSettings

EVENTS_PATH = "/api/v1/events"
EVENTS = ("document", "deleted")  # the events a DocumentStream passes on


@dataclass
class SseEvent:
    """One dispatched SSE event: ``event`` name (default ``"message"``) and its ``data`` text."""

    event: str = "message"
    data: str = ""


@dataclass
class SseParser:
    """Incremental SSE parser (WHATWG rules for ``event:``/``data:`` fields and comments).

    Feed it lines without their line terminators; a blank line dispatches the event.
    """

    _event: str = ""
    _data: list[str] = field(default_factory=list)

    def feed(self, line: str) -> SseEvent | None:
        """Consume one line; returns the completed event on a blank line, else ``None``
        (also ``None`` for a blank line with no data, e.g. after a ``: ping`` comment)."""
        line = line.rstrip("\r\n")
        if not line:
            if not self._data:
                self._event = ""
                return None
            ev = SseEvent(self._event or "message", "\n".join(self._data))
            self._event, self._data = "", []
            return ev
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        return None


@dataclass
class Received:
    """A ``document`` or ``deleted`` event as received: the event name, its JSON ``data`` (the
    document record, or ``{"document_id"}``) and the local receipt time (``time.time()``,
    seconds since the epoch)."""

    event: str
    data: dict[str, Any]
    received_at: float


class DocumentStream:
    """Background subscription to the gateway's document events.

    Every ``document`` and ``deleted`` event is put on ``queue`` as a ``Received``. The stream
    reconnects after a drop, ``settings.sse_reconnect_delay_s`` seconds later (events sent
    meanwhile are lost: callers should also poll the document).

    Args:
        client: an ``httpx.AsyncClient`` whose ``base_url`` is the gateway root.
        settings: connect timeout and reconnect delay; ``ClientSettings()`` when not given.
    """

    def __init__(self, client: httpx.AsyncClient, settings: ClientSettings | None = None) -> None:
        self.client = client
        self.settings = settings or ClientSettings()
        self.queue: asyncio.Queue[Received] = asyncio.Queue()
        self.connected = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> bool:
        """Start listening and wait up to ``settings.sse_connect_timeout_s`` seconds until the
        gateway accepted the subscription (response headers received: the gateway subscribes
        before answering). Returns False when it did not connect in time (the stream keeps
        retrying)."""
        self._task = asyncio.create_task(self._run())
        try:
            await asyncio.wait_for(self.connected.wait(), self.settings.sse_connect_timeout_s)
            return True
        except TimeoutError:
            return False

    async def _run(self) -> None:
        timeout = httpx.Timeout(self.settings.sse_connect_timeout_s, read=None)  # events may be minutes apart
        while True:
            try:
                async with self.client.stream("GET", EVENTS_PATH, timeout=timeout,
                                              headers={"Accept": "text/event-stream"}) as resp:
                    if resp.status_code != 200:
                        raise httpx.HTTPStatusError("SSE refused", request=resp.request, response=resp)
                    self.connected.set()
                    parser = SseParser()
                    async for line in resp.aiter_lines():
                        ev = parser.feed(line)
                        if ev is not None and ev.event in EVENTS:
                            try:
                                data = json.loads(ev.data)
                            except ValueError:
                                continue
                            if isinstance(data, dict) and data.get("document_id"):
                                self.queue.put_nowait(Received(ev.event, data, time.time()))
            except asyncio.CancelledError:
                raise
            except (httpx.HTTPError, OSError):
                pass
            await asyncio.sleep(self.settings.sse_reconnect_delay_s)

    async def close(self) -> None:
        """Stop listening."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

"""Server-Sent Events: a line parser and a background subscription to ``GET /api/v1/events``."""
from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

EVENTS_PATH = "/api/v1/events"


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
    """A ``progress`` event as received: its JSON ``data`` and the local receipt time
    (``time.time()``, seconds since the epoch)."""

    data: dict[str, Any]
    received_at: float


class ProgressStream:
    """Background subscription to the gateway's progress stream.

    Every ``progress`` event is put on ``queue`` as a ``Received``. The stream reconnects
    after a drop (events sent meanwhile are lost: callers should also poll the document).

    Args:
        client: an ``httpx.AsyncClient`` whose ``base_url`` is the gateway root.
    """

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.queue: asyncio.Queue[Received] = asyncio.Queue()
        self.connected = asyncio.Event()
        self._task: asyncio.Task | None = None

    async def start(self, timeout_s: float = 10.0) -> bool:
        """Start listening and wait up to ``timeout_s`` seconds until the gateway accepted the
        subscription (response headers received: the gateway subscribes before answering).
        Returns False when it did not connect in time (the stream keeps retrying)."""
        self._task = asyncio.create_task(self._run())
        try:
            await asyncio.wait_for(self.connected.wait(), timeout_s)
            return True
        except TimeoutError:
            return False

    async def _run(self) -> None:
        while True:
            try:
                async with self.client.stream("GET", EVENTS_PATH, timeout=httpx.Timeout(10.0, read=None),
                                              headers={"Accept": "text/event-stream"}) as resp:
                    if resp.status_code != 200:
                        raise httpx.HTTPStatusError("SSE refused", request=resp.request, response=resp)
                    self.connected.set()
                    parser = SseParser()
                    async for line in resp.aiter_lines():
                        ev = parser.feed(line)
                        if ev is not None and ev.event == "progress":
                            try:
                                data = json.loads(ev.data)
                            except ValueError:
                                continue
                            self.queue.put_nowait(Received(data, time.time()))
            except asyncio.CancelledError:
                raise
            except (httpx.HTTPError, OSError):
                pass
            await asyncio.sleep(1.0)

    async def close(self) -> None:
        """Stop listening."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
            self._task = None

"""Fan-out of document changes (``shared.api`` SSE events) to the Server-Sent-Events clients of
this gateway process."""
from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

SseMessage = dict[str, str]
"""One queued SSE message for sse-starlette: ``{"event": name, "data": JSON text}``."""


class DocumentHub:
    """Each SSE client gets a bounded queue; a slow client loses old events, never blocks others."""

    def __init__(self, queue_size: int = 1000) -> None:
        self.queue_size = queue_size
        self.clients: set[asyncio.Queue[SseMessage]] = set()

    def subscribe(self) -> asyncio.Queue[SseMessage]:
        """A new client queue (call ``unsubscribe`` when the client goes)."""
        q: asyncio.Queue[SseMessage] = asyncio.Queue(self.queue_size)
        self.clients.add(q)
        return q

    def unsubscribe(self, q: asyncio.Queue[SseMessage]) -> None:
        """Forget a client queue."""
        self.clients.discard(q)

    def broadcast(self, event: str, data: dict[str, Any]) -> None:
        """Send ``data`` as an SSE event named ``event`` to every client."""
        msg = {"event": event, "data": json.dumps(data, ensure_ascii=False)}
        for q in list(self.clients):
            if q.full():
                with contextlib.suppress(asyncio.QueueEmpty):
                    q.get_nowait()
            q.put_nowait(msg)

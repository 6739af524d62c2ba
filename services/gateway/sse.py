"""Fan-out of document changes (``shared.api`` SSE events) to the Server-Sent-Events clients of
this gateway process, each client receiving only the documents of its scope (its key's
department and the shared library; an admin: every department, or the one it names)."""
from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from shared.scope import Scope, in_scope

SseMessage = dict[str, str]
"""One queued SSE message for sse-starlette: ``{"event": name, "data": JSON text}``."""


class DocumentHub:
    """Each SSE client gets a bounded queue; a slow client loses old events, never blocks others."""

    def __init__(self, queue_size: int = 1000) -> None:
        self.queue_size = queue_size
        self.clients: dict[asyncio.Queue[SseMessage], Scope] = {}

    def subscribe(self, scope: Scope = None) -> asyncio.Queue[SseMessage]:
        """A new client queue receiving the documents of ``scope`` (``shared.scope``; ``None``:
        every department). Call ``unsubscribe`` when the client goes."""
        q: asyncio.Queue[SseMessage] = asyncio.Queue(self.queue_size)
        self.clients[q] = frozenset(scope) if scope is not None else None
        return q

    def unsubscribe(self, q: asyncio.Queue[SseMessage]) -> None:
        """Forget a client queue."""
        self.clients.pop(q, None)

    def broadcast(self, event: str, data: dict[str, Any], department: str = "default",
                  visibility: str = "department") -> None:
        """Send ``data`` as an SSE event named ``event`` to every client whose scope holds a
        document of ``department`` with ``visibility``."""
        msg = {"event": event, "data": json.dumps(data, ensure_ascii=False)}
        for q, scope in list(self.clients.items()):
            if not in_scope(department, visibility, scope):
                continue
            if q.full():
                with contextlib.suppress(asyncio.QueueEmpty):
                    q.get_nowait()
            q.put_nowait(msg)

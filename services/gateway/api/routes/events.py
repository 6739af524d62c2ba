"""``GET /api/v1/events``: every change to a document record as Server-Sent Events (sse-starlette)."""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from sse_starlette.sse import EventSourceResponse

from services.gateway.api.deps import ScopeDep, StateDep

router = APIRouter(tags=["events"])


@router.get("/events")
async def events(state: StateDep, scope: ScopeDep, request: Request) -> EventSourceResponse:
    """Stream document changes to the client: event ``document`` with the whole record (JSON
    ``DocumentRecord``) after each change (upload, progress, a chunk deleted), event ``deleted``
    with ``{"document_id"}`` when a document is gone — only for the documents the key may see
    (its department's and the shared library; an admin: all, or with ``?department=`` that
    department's and the shared library), as ``GET /api/v1/documents`` lists them. A ping
    comment every 15 s keeps proxies from closing the stream. Events sent while the client was
    disconnected are not replayed: a client that reconnects re-reads ``GET /api/v1/documents``."""
    queue = state.hub.subscribe(scope)

    async def stream() -> AsyncIterator[dict[str, str]]:
        try:
            while not await request.is_disconnected():
                try:
                    yield await asyncio.wait_for(queue.get(), timeout=5.0)
                except TimeoutError:
                    continue
        finally:
            state.hub.unsubscribe(queue)

    return EventSourceResponse(stream(), ping=15)

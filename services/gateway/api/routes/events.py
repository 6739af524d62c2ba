"""``GET /api/v1/events``: every change to a document record as Server-Sent Events (sse-starlette)."""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from sse_starlette.sse import EventSourceResponse

from services.gateway.api.deps import StateDep

router = APIRouter(tags=["events"])


@router.get("/events")
async def events(state: StateDep, request: Request) -> EventSourceResponse:
    """Stream document changes to the client: event ``document`` with the whole record (JSON
    ``DocumentRecord``) after each change (upload, progress, a chunk deleted), event ``deleted``
    with ``{"document_id"}`` when a document is gone. A ping comment every 15 s keeps proxies
    from closing the stream. Events sent while the client was disconnected are not replayed:
    a client that reconnects re-reads ``GET /api/v1/documents``."""
    queue = state.hub.subscribe()

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

"""``GET /api/v1/events``: progress of every document as Server-Sent Events (sse-starlette)."""
from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from sse_starlette.sse import EventSourceResponse

from services.gateway.api.deps import StateDep

router = APIRouter(tags=["events"])


@router.get("/events")
async def events(state: StateDep, request: Request) -> EventSourceResponse:
    """Stream ``progress`` events (JSON ``ProgressEvent``) and ``deleted`` events to the client;
    a ping comment every 15 s keeps proxies from closing the stream."""
    queue = state.hub.subscribe()

    async def stream():
        try:
            while not await request.is_disconnected():
                try:
                    yield await asyncio.wait_for(queue.get(), timeout=5.0)
                except TimeoutError:
                    continue
        finally:
            state.hub.unsubscribe(queue)

    return EventSourceResponse(stream(), ping=15)

"""``POST /api/v1/query`` and ``POST /api/v1/query/stream``: forwarded to the query service, so
the API has one origin.

Waits are bounded, so a caller learns soon that the query service is not there: a connection not
made within ``query_connect_timeout_s`` is tried ``query_forward_attempts`` times in all (503
within ~8 s with the defaults), an answer not received within ``query_forward_timeout_s`` is 504
and not tried again (the question is with the query service; a retry would double the wait).
"""
from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import StreamingResponse

from services.gateway.api.deps import ScopeDep, StateDep
from shared.api import QueryRequest, QueryResponse, ScopedQueryRequest
from shared.retry import call_with_retry
from shared.scope import Scope
from shared.settings import Settings

router = APIRouter(tags=["query"])


class NoAnswer(Exception):
    """The query service took the question but did not answer in time (not transient for
    ``shared.retry``, so it is not asked again)."""


@router.post("/query", response_model=QueryResponse,
             responses={503: {"description": "The query service is not reachable"},
                        504: {"description": "The query service did not answer in time"}})
async def query(state: StateDep, scope: ScopeDep, body: QueryRequest, request: Request) -> Any:
    """Answer a question from the documents the key may read: its department's and the shared
    library (an admin: every department, or with ``?department=`` that one and the shared
    library). ``document_ids`` of other departments match nothing. Each source names its
    ``department`` and ``visibility``. A question asked again before the index changes is
    answered from the query service's answer cache; ``Cache-Control: no-cache`` asks for a fresh
    answer. 503 when the query service cannot be reached, 504 when it does not answer within
    ``QUERY_FORWARD_TIMEOUT_S``; both with a readable ``detail``."""
    s = state.settings
    content, headers = forwarded(scope, body, request)
    timeout = httpx.Timeout(s.query_forward_timeout_s, connect=s.query_connect_timeout_s)

    async def forward() -> httpx.Response:
        try:
            return await state.http.post(f"{s.query_service_url}/api/v1/query", content=content, headers=headers,
                                         timeout=timeout)
        except httpx.ReadTimeout as e:
            raise NoAnswer from e

    resp = await reach(s, forward)
    if not resp.headers.get("content-type", "").startswith("application/json"):
        raise HTTPException(502, "The query service gave an invalid answer; try again shortly.")
    # passed on as it came: the query service wrote a QueryResponse (or an error) as JSON;
    # parsing and printing it again only cost the gateway time (services/query/README.md, profile)
    return Response(resp.content, status_code=resp.status_code, media_type="application/json")


@router.post("/query/stream", response_class=StreamingResponse,
             responses={200: {"content": {"text/event-stream": {}},
                              "description": "Server-Sent Events: sources, token…, done"},
                        503: {"description": "The query service is not reachable"},
                        504: {"description": "The query service did not start answering in time"}})
async def query_stream(state: StateDep, scope: ScopeDep, body: QueryRequest, request: Request) -> Response:
    """``POST /query`` streamed as Server-Sent Events, so a generated answer shows as it is written:
    event ``sources`` (a ``QueryResponse`` whose ``answer`` is empty while a language model
    writes it, else already final), then ``token`` events (``{"text": "…"}``, the answer's next
    piece), then ``done`` (the final ``QueryResponse``, as ``POST /query`` returns it: the figure
    guard may have replaced the generated text, and ``guard`` says why). Same scope, cache and
    errors as ``POST /query``: 503 when the query service cannot be reached, 504 when it does
    not start answering within ``QUERY_FORWARD_TIMEOUT_S``, before the stream starts. The
    stream is relayed as it comes; a gap of ``QUERY_FORWARD_TIMEOUT_S`` between two events ends it."""
    s = state.settings
    content, headers = forwarded(scope, body, request)
    timeout = httpx.Timeout(s.query_forward_timeout_s, connect=s.query_connect_timeout_s)

    async def forward() -> httpx.Response:
        req = state.http.build_request("POST", f"{s.query_service_url}/api/v1/query/stream", content=content,
                                       headers=headers, timeout=timeout)
        try:
            return await state.http.send(req, stream=True)
        except httpx.ReadTimeout as e:
            raise NoAnswer from e

    resp = await reach(s, forward)
    if resp.status_code != 200 or not resp.headers.get("content-type", "").startswith("text/event-stream"):
        try:
            await resp.aread()
        finally:
            await resp.aclose()
        if not resp.headers.get("content-type", "").startswith("application/json"):
            raise HTTPException(502, "The query service gave an invalid answer; try again shortly.")
        return Response(resp.content, status_code=resp.status_code, media_type="application/json")

    async def relay() -> AsyncIterator[bytes]:
        try:
            async for piece in resp.aiter_raw():
                yield piece
        except httpx.HTTPError:
            return  # the query service went away mid-answer: the stream ends without ``done``
        finally:
            await resp.aclose()

    return StreamingResponse(relay(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def forwarded(scope: Scope, body: QueryRequest, request: Request) -> tuple[bytes, dict[str, str]]:
    """The body (a ``ScopedQueryRequest``: the question with the caller's ``departments``; ``None``
    for every department) and headers (``Cache-Control`` passed on) sent to the query service."""
    scoped = ScopedQueryRequest(**body.model_dump(), departments=sorted(scope) if scope is not None else None)
    headers = {"Content-Type": "application/json"}
    if "cache-control" in request.headers:
        headers["Cache-Control"] = request.headers["cache-control"]
    return scoped.model_dump_json().encode("utf-8"), headers


async def reach(s: Settings, forward: Callable[[], Awaitable[httpx.Response]]) -> httpx.Response:
    """``forward()`` under the retry policy for connections (``query_forward_attempts``).

    Raises:
        HTTPException: 504 when the query service took the question but did not answer in time,
            503 when it cannot be reached.
    """
    try:
        return await call_with_retry(s, forward, attempts=s.query_forward_attempts)
    except NoAnswer:
        raise HTTPException(504, f"The query service did not answer within {s.query_forward_timeout_s:g} s; "
                                 "it may be busy. Try again in a moment.") from None
    except httpx.HTTPError:
        raise HTTPException(503, "The query service is not reachable; try again shortly.") from None

"""``POST /api/v1/query``: forwarded to the query service, so the API has one origin.

Waits are bounded, so a caller learns soon that the query service is not there: a connection not
made within ``query_connect_timeout_s`` is tried ``query_forward_attempts`` times in all (503
within ~8 s with the defaults), an answer not received within ``query_forward_timeout_s`` is 504
and not tried again (the question is with the query service; a retry would double the wait).
"""
from __future__ import annotations

from typing import Any

import httpx
from fastapi import APIRouter, HTTPException, Request, Response

from services.gateway.api.deps import ScopeDep, StateDep
from shared.api import QueryRequest, QueryResponse, ScopedQueryRequest
from shared.retry import call_with_retry

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
    scoped = ScopedQueryRequest(**body.model_dump(), departments=sorted(scope) if scope is not None else None)
    timeout = httpx.Timeout(s.query_forward_timeout_s, connect=s.query_connect_timeout_s)
    headers = {"Content-Type": "application/json"}
    if "cache-control" in request.headers:
        headers["Cache-Control"] = request.headers["cache-control"]
    content = scoped.model_dump_json().encode("utf-8")

    async def forward() -> httpx.Response:
        try:
            return await state.http.post(f"{s.query_service_url}/api/v1/query", content=content, headers=headers,
                                         timeout=timeout)
        except httpx.ReadTimeout as e:
            raise NoAnswer from e

    try:
        resp = await call_with_retry(s, forward, attempts=s.query_forward_attempts)
    except NoAnswer:
        raise HTTPException(504, f"The query service did not answer within {s.query_forward_timeout_s:g} s; "
                                 "it may be busy. Try again in a moment.") from None
    except httpx.HTTPError:
        raise HTTPException(503, "The query service is not reachable; try again shortly.") from None
    if not resp.headers.get("content-type", "").startswith("application/json"):
        raise HTTPException(502, "The query service gave an invalid answer; try again shortly.")
    # passed on as it came: the query service wrote a QueryResponse (or an error) as JSON;
    # parsing and printing it again only cost the gateway time (services/query/README.md, profile)
    return Response(resp.content, status_code=resp.status_code, media_type="application/json")

"""``POST /api/v1/query``: forwarded to the query service, so the API has one origin."""
from __future__ import annotations

from typing import Any

import httpx
from fastapi import APIRouter, HTTPException
from fastapi.responses import JSONResponse

from services.gateway.api.deps import ScopeDep, StateDep
from shared.api import QueryRequest, QueryResponse, ScopedQueryRequest
from shared.retry import call_with_retry

router = APIRouter(tags=["query"])


@router.post("/query", response_model=QueryResponse)
async def query(state: StateDep, scope: ScopeDep, body: QueryRequest) -> Any:
    """Answer a question from the documents the key may read: its department's and the shared
    library (an admin: every department, or with ``?department=`` that one and the shared
    library). ``document_ids`` of other departments match nothing. Each source names its
    ``department`` and ``visibility``. 503 when the query service is down."""
    s = state.settings
    scoped = ScopedQueryRequest(**body.model_dump(), departments=sorted(scope) if scope is not None else None)
    try:
        resp = await call_with_retry(s, lambda: state.http.post(
            f"{s.query_service_url}/api/v1/query", json=scoped.model_dump(mode="json"),
            timeout=s.query_forward_timeout_s), attempts=s.query_forward_attempts)
    except httpx.HTTPError:
        raise HTTPException(503, "The query service is not reachable; try again shortly.") from None
    try:
        payload = resp.json()
    except ValueError:
        raise HTTPException(502, "The query service gave an invalid answer; try again shortly.") from None
    return JSONResponse(payload, status_code=resp.status_code)

"""``POST /api/v1/query``: forwarded to the query service, so the API has one origin."""
from __future__ import annotations

from typing import Any

import httpx
from fastapi import APIRouter, HTTPException
from fastapi.responses import JSONResponse

from services.gateway.api.deps import StateDep
from shared.api import QueryRequest, QueryResponse
from shared.retry import call_with_retry

router = APIRouter(tags=["query"])


@router.post("/query", response_model=QueryResponse)
async def query(state: StateDep, body: QueryRequest) -> Any:
    """Answer a question from the indexed documents (see the query service). 503 when the
    query service is down."""
    s = state.settings
    try:
        resp = await call_with_retry(s, lambda: state.http.post(
            f"{s.query_service_url}/api/v1/query", json=body.model_dump(mode="json"),
            timeout=s.query_forward_timeout_s), attempts=s.query_forward_attempts)
    except httpx.HTTPError:
        raise HTTPException(503, "The query service is not reachable; try again shortly.") from None
    try:
        payload = resp.json()
    except ValueError:
        raise HTTPException(502, "The query service gave an invalid answer; try again shortly.") from None
    return JSONResponse(payload, status_code=resp.status_code)

"""``POST /api/v1/query``: forwarded to the query service, so the API has one origin."""
from __future__ import annotations

from typing import Any

import httpx
from fastapi import APIRouter, HTTPException
from fastapi.responses import JSONResponse

from services.gateway.api.deps import StateDep
from shared.api import QueryRequest, QueryResponse

router = APIRouter(tags=["query"])


@router.post("/query", response_model=QueryResponse)
async def query(state: StateDep, body: QueryRequest) -> Any:
    """Answer a question from the indexed documents (see the query service). 503 when the
    query service is down."""
    try:
        resp = await state.http.post(f"{state.settings.query_service_url}/api/v1/query",
                                     json=body.model_dump(mode="json"), timeout=120.0)
    except httpx.HTTPError:
        raise HTTPException(503, "The query service is not reachable; try again shortly.") from None
    try:
        payload = resp.json()
    except ValueError:
        raise HTTPException(502, "The query service gave an invalid answer; try again shortly.") from None
    return JSONResponse(payload, status_code=resp.status_code)

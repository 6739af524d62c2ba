"""``GET /healthz``: the gateway and the stores it needs."""
from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from services.gateway.api.deps import StateDep

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz(state: StateDep) -> JSONResponse:
    """200 with per-dependency status when Kafka, MinIO and Chroma answer, else 503."""
    checks = {
        "kafka": await state.broker.ping(timeout=state.settings.health_timeout_s),
        "minio": await asyncio.to_thread(state.store.healthy),
        "chroma": await asyncio.to_thread(state.vectors.healthy),
    }
    ok = all(checks.values())
    return JSONResponse({"status": "ok" if ok else "degraded", **checks}, status_code=200 if ok else 503)

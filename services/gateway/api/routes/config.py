"""``GET /api/v1/config``: what the gateway accepts, read by clients instead of keeping a copy."""
from __future__ import annotations

from fastapi import APIRouter

from services.gateway.api.deps import StateDep
from shared.api import ApiConfig
from shared.models import ACCEPTED_EXTENSIONS, STRATEGIES

router = APIRouter(tags=["config"])


@router.get("/config", response_model=ApiConfig)
async def config(state: StateDep) -> ApiConfig:
    """The upload rules the ingest route enforces: file extensions, chunking strategies and the
    size limit (bytes). The web frontend filters its file picker with them."""
    return ApiConfig(accepted_extensions=list(ACCEPTED_EXTENSIONS), strategies=list(STRATEGIES),
                     max_upload_bytes=state.settings.max_upload_bytes)

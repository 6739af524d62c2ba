"""``GET /api/v1/whoami``: the caller's key prefix, department and role (the web app's sign-in)."""
from __future__ import annotations

from fastapi import APIRouter

from services.gateway.auth.principal import CallerDep
from shared.api import Caller

router = APIRouter(tags=["auth"])


@router.get("/whoami", response_model=Caller)
async def whoami(caller: CallerDep) -> Caller:
    """Who this key belongs to: 401 without a valid key."""
    return caller

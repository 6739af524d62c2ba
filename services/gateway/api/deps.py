"""``Annotated`` dependency aliases so route signatures read like prose."""
from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request

from services.gateway.state import GatewayState
from shared.storage import valid_document_id


def get_state(request: Request) -> GatewayState:
    """The gateway's long-lived clients (set in the lifespan)."""
    state: GatewayState = request.app.state.gateway
    return state


StateDep = Annotated[GatewayState, Depends(get_state)]


def checked_document_id(document_id: str) -> str:
    """Reject ids that are not ours before they reach a key or a query (404, not 500)."""
    if not valid_document_id(document_id):
        raise HTTPException(404, "No such document.")
    return document_id


DocumentIdDep = Annotated[str, Depends(checked_document_id)]

"""``Annotated`` dependency aliases so route signatures read like prose."""
from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Query, Request

from services.gateway.access import NO_DOCUMENT, read_scope, visible
from services.gateway.auth.principal import CallerDep
from services.gateway.state import GatewayState
from shared.api import DocumentRecord
from shared.scope import Scope
from shared.storage import valid_document_id


def get_state(request: Request) -> GatewayState:
    """The gateway's long-lived clients (set in the lifespan)."""
    state: GatewayState = request.app.state.gateway
    return state


StateDep = Annotated[GatewayState, Depends(get_state)]


def checked_document_id(document_id: str) -> str:
    """Reject ids that are not ours before they reach a key or a query (404, not 500)."""
    if not valid_document_id(document_id):
        raise HTTPException(404, NO_DOCUMENT)
    return document_id


DocumentIdDep = Annotated[str, Depends(checked_document_id)]


def readable_document(state: StateDep, caller: CallerDep, document_id: DocumentIdDep) -> DocumentRecord:
    """The record of ``document_id`` when the caller may read it. Raises HTTPException 404 —
    the same answer for a missing document and for another department's."""
    rec = visible(caller, state.registry.get(document_id))
    if rec is None:
        raise HTTPException(404, NO_DOCUMENT)
    return rec


ReadableDocumentDep = Annotated[DocumentRecord, Depends(readable_document)]
"""A document the caller may read (its department's or shared; an admin: any), else 404."""


def caller_scope(caller: CallerDep, department: Annotated[str | None, Query(
        description="Admin keys: only this department's documents (and the shared library). Other keys "
                    "may name only their own department.")] = None) -> Scope:
    """The departments the caller reads on this request (``access.read_scope``)."""
    return read_scope(caller, department)


ScopeDep = Annotated[Scope, Depends(caller_scope)]
"""The caller's read scope with the ``?department=`` filter applied (``None``: every department)."""

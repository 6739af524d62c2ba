"""``Annotated`` dependency aliases so route signatures read like prose."""
from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Query, Request

from services.gateway import audit
from services.gateway.access import NO_DOCUMENT, read_scope, visible
from services.gateway.auth.principal import CallerDep
from services.gateway.state import GatewayState
from shared.api import Caller, DocumentRecord
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


async def visible_to(state: GatewayState, caller: Caller, document_id: str, request: Request) -> DocumentRecord | None:
    """The record of ``document_id`` when ``caller`` may read it, else ``None`` (the route answers
    404 either way). A document that exists in another department is audited: a ``denied``
    entry with result ``404``, target ``METHOD /path`` and the document's department, so an
    admin sees cross-department probes that the caller cannot tell from a missing id."""
    rec = state.registry.get(document_id)
    seen = visible(caller, rec)
    if rec is not None and seen is None:
        await audit.record(state, caller, "denied", f"{request.method} {request.url.path}", "404",
                           f"document {document_id} of department {rec.department}, answered as missing")
    return seen


async def readable_document(state: StateDep, caller: CallerDep, document_id: DocumentIdDep,
                            request: Request) -> DocumentRecord:
    """The record of ``document_id`` when the caller may read it. Raises HTTPException 404 —
    the same answer for a missing document and for another department's (audited:
    :func:`visible_to`)."""
    rec = await visible_to(state, caller, document_id, request)
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

"""Who is calling, as route dependencies: ``CallerDep`` (any valid key), ``MemberDep`` (member
or admin: uploads and deletes) and ``AdminDep`` (admin: every department, keys, audit).

The key itself is checked earlier, by ``middleware.AuthMiddleware``, before the request's body
is read: a request without a valid key never reaches a route (401 with a JSON ``detail`` and
``WWW-Authenticate: Bearer``). A valid key whose role is too low gets 403 here. Keys travel only
in the ``Authorization`` header (never in a URL or a cookie), so a cross-site form post, which
cannot set it, is refused.
"""
from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from shared.api import Caller

_bearer = HTTPBearer(auto_error=False, description="An API key: `Authorization: Bearer lgk_…`")


BearerDoc = Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)]


async def current_caller(request: Request, _: BearerDoc) -> Caller:
    """The caller the middleware authenticated (the ``HTTPBearer`` parameter only declares the
    scheme in the OpenAPI schema, so ``/docs`` can send a key).

    Raises:
        HTTPException: 401 when the request did not pass the middleware (not an ``/api/v1`` path).
    """
    caller = getattr(request.state, "caller", None)
    if not isinstance(caller, Caller):
        raise HTTPException(401, "An API key is required.", headers={"WWW-Authenticate": "Bearer"})
    return caller


CallerDep = Annotated[Caller, Depends(current_caller)]
"""Any valid key (reader, member or admin)."""


async def member_caller(caller: CallerDep) -> Caller:
    """A caller allowed to change documents. Raises HTTPException 403 for a reader."""
    if caller.role not in ("member", "admin"):
        raise HTTPException(403, "This key can read and ask questions only; uploads and deletes need a "
                                 "member key.")
    return caller


async def admin_caller(caller: CallerDep) -> Caller:
    """An admin caller. Raises HTTPException 403 for members and readers."""
    if caller.role != "admin":
        raise HTTPException(403, "This needs an admin key.")
    return caller


MemberDep = Annotated[Caller, Depends(member_caller)]
"""A member or admin key."""
AdminDep = Annotated[Caller, Depends(admin_caller)]
"""An admin key."""

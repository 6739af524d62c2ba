"""Error answers of the HTTP services that never fail themselves.

FastAPI's own handlers echo the offending input back (``422`` lists it under ``input``) and
render it as strict JSON: an input holding a lone UTF-16 surrogate or a ``NaN`` (both accepted
by Python's JSON parser) then cannot be rendered, and the refusal becomes a 500. These handlers
give the same answers with such values made printable (``\\ud800`` as that escape, ``NaN`` as
text), so malformed input always gets its 4xx with a reason.
"""
from __future__ import annotations

import math
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.utils import is_body_allowed_for_status_code
from starlette.exceptions import HTTPException as StarletteHTTPException


def printable(value: Any) -> Any:
    """``value`` with every string encodable as UTF-8, bytes decoded, non-finite floats as text."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(printable(k)): printable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [printable(v) for v in value]
    return value


async def validation_error(request: Request, exc: Exception) -> JSONResponse:
    """422 with FastAPI's error list (``loc``, ``msg``, ``input`` …), made printable."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else [{"msg": str(exc)}]
    return JSONResponse({"detail": jsonable_encoder(printable(list(errors)))}, status_code=422)


async def http_error(request: Request, exc: Exception) -> Response:
    """The ``HTTPException``'s status, ``detail`` and headers, the detail made printable."""
    if not isinstance(exc, StarletteHTTPException):
        raise exc
    if not is_body_allowed_for_status_code(exc.status_code):
        return Response(status_code=exc.status_code, headers=exc.headers)
    return JSONResponse({"detail": printable(exc.detail)}, status_code=exc.status_code, headers=exc.headers)


def install_error_handlers(app: FastAPI) -> None:
    """Use these handlers for validation errors and ``HTTPException`` on ``app``."""
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)

"""422s as one sentence for routes whose query parameters are a ``shared.api`` model.

FastAPI answers a bad query parameter with its error list (``loc``, ``msg``, ``input`` …), which
a person reading the answer (or the web page showing ``detail``) has to decode. A route made with
:class:`PlainErrorsRoute` answers ``{"detail": "page_size is documents per page: a whole number
from 1 to 200 (left out: …) — got '500'."}`` instead: each field's description in its model
is the sentence, so the documentation and the message cannot drift apart.
"""
from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel

from shared.http_errors import printable


def explain(errors: Sequence[Any], model: type[BaseModel]) -> str:
    """One sentence for pydantic's ``errors`` about the query parameters of ``model``: per
    wrong parameter, its name, its field description and the value received."""
    parts: list[str] = []
    for err in errors:
        loc = [str(x) for x in err.get("loc", ()) if x != "query" and not isinstance(x, int)]
        name = loc[0] if loc else ""
        field = model.model_fields.get(name)
        if field is None or field.description is None:
            msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
            part = f"{name}: {msg}" if name else msg
        else:
            part = f"{name} is {field.description}"
            if "input" in err and err["input"] is not None and not isinstance(err["input"], dict):
                part += f" — got {printable(err['input'])!r}"
        if part not in parts:
            parts.append(part)
    return "; ".join(parts) + "."


def plain_errors_route(model: type[BaseModel]) -> type[APIRoute]:
    """An ``APIRoute`` class whose validation errors become a 422 with :func:`explain`'s sentence
    (``route_class_override`` of ``APIRouter.add_api_route``)."""

    class PlainErrorsRoute(APIRoute):
        def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
            handler = super().get_route_handler()

            async def handle(request: Request) -> Response:
                try:
                    return await handler(request)
                except RequestValidationError as e:
                    raise HTTPException(422, explain(e.errors(), model)) from None

            return handle

    return PlainErrorsRoute

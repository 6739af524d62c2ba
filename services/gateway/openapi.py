"""The gateway's OpenAPI schema as JSON, written without starting anything: ``create_app()`` only
builds the routes and their ``shared.api`` models; its lifespan (Kafka, MinIO and Chroma clients)
never runs, so no infrastructure is needed.

The web frontend's types come from it: ``npm run gen:api`` (in ``frontend/``) writes
``frontend/openapi.json`` with this module, then ``openapi-typescript`` turns that file into
``frontend/src/api-types.ts``; ``npm run build`` repeats the second step. Both files are committed,
and ``tests/unit/gateway/test_openapi_types.py`` fails when either is stale.

Usage: ``python -m services.gateway.openapi [OUT]`` (``OUT`` default: standard output).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def openapi_schema() -> dict[str, Any]:
    """The OpenAPI document of the gateway's HTTP API (what ``/openapi.json`` serves)."""
    from services.gateway.main import create_app  # here: importing main builds the served app

    return create_app().openapi()


def render(schema: dict[str, Any]) -> str:
    """``schema`` as the text committed in ``frontend/openapi.json`` (2-space indent, UTF-8
    characters kept, newline at the end), so a regenerated file diffs cleanly."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Write the schema to the path given, or print it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, help="file to write (default: standard output)")
    args = parser.parse_args(argv)
    text = render(openapi_schema())
    if args.out is None:
        print(text, end="")  # noqa: T201 - the command's output is the schema
    else:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()

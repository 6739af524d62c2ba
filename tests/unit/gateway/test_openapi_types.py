"""The committed API schema and the frontend types generated from it are current.

``frontend/openapi.json`` must be what the gateway serves at ``/openapi.json`` now, and
``frontend/src/api-types.ts`` what ``openapi-typescript`` makes of that file with the options of the
frontend's ``gen:types`` script. When a model in ``shared/api.py`` or a route changes, regenerate
both with ``cd frontend && npm run gen:api`` and commit them.
"""
from __future__ import annotations

import difflib
import json
import shlex
import subprocess

import pytest

from services.gateway.openapi import openapi_schema, render
from tests.conftest import REPO

FRONTEND = REPO / "frontend"
HOW = "regenerate with `cd frontend && npm run gen:api` and commit the result"


def _diff(committed: str, fresh: str, name: str) -> str:
    lines = difflib.unified_diff(committed.splitlines(), fresh.splitlines(), f"{name} (committed)",
                                 f"{name} (generated)", lineterm="", n=1)
    return "\n".join(list(lines)[:60])


def test_committed_openapi_schema_is_current() -> None:
    committed = (FRONTEND / "openapi.json").read_text(encoding="utf-8")
    fresh = render(openapi_schema())
    if committed != fresh:
        pytest.fail(f"frontend/openapi.json is stale; {HOW}:\n{_diff(committed, fresh, 'openapi.json')}")


def _gen_types_command() -> tuple[list[str], str]:
    """The ``gen:types`` script as argv without its ``--output``, and the output path it names."""
    argv = shlex.split(json.loads((FRONTEND / "package.json").read_text())["scripts"]["gen:types"])
    i = argv.index("--output")
    out = argv[i + 1]
    return argv[:i] + argv[i + 2:], out


def test_committed_api_types_are_current() -> None:
    argv, out = _gen_types_command()
    tool = FRONTEND / "node_modules" / ".bin" / argv[0]
    assert tool.exists(), f"{tool} is not installed: run `bash scripts/deps.sh frontend` (make test does)"
    done = subprocess.run([str(tool), *argv[1:]], cwd=FRONTEND, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    committed = (FRONTEND / out).read_text(encoding="utf-8")
    if committed != done.stdout:
        pytest.fail(f"frontend/{out} is stale; {HOW}:\n{_diff(committed, done.stdout, out)}")

"""How a CLI command shows an API answer: its JSON body (``--json``) or a rendering of it."""
from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Coroutine
from typing import Any

from cli import api


def show(call: Coroutine[Any, Any, Any], as_json: bool, render: Callable[[Any], None]) -> int:
    """Run ``call`` (an ``api`` request); print its body as JSON when ``as_json``, else
    ``render(body)``. Returns the exit code: 0, or 1 with the API error on stderr."""
    try:
        body = asyncio.run(call)
    except api.ApiError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if as_json:
        print(json.dumps(body, ensure_ascii=False, indent=2))
    else:
        render(body)
    return 0

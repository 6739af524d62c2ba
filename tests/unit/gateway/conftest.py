"""Gateway unit tests talk to the app through Starlette's ``TestClient``, whose requests carry
``Host: testserver``: add that name to the allowed hosts of every ``Settings`` built here."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _testserver_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALLOWED_HOSTS", "testserver,localhost,127.0.0.1,::1")

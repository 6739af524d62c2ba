"""Fixtures for splitter tests."""
from __future__ import annotations

import pytest

from shared.settings import Settings


@pytest.fixture
def settings() -> Settings:
    """Default settings, ignoring any local ``.env``."""
    return Settings(_env_file=None)

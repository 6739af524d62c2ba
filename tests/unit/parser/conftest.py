"""Shared fixtures for the parser unit tests: corpus location and cached parse results."""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from services.parser.parse import ParseOutput, parse_document
from shared.settings import Settings

# tests/unit/parser/conftest.py -> parents[3] is the repo root; the corpus sits beside it.
CORPUS = (Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus").resolve()
_WS = re.compile(r"\s+")


@cache
def _parsed(relpath: str) -> ParseOutput:
    path = CORPUS / relpath
    return parse_document(path.read_bytes(), path.name, f"test-{path.stem}", Settings())


@pytest.fixture(scope="session")
def corpus() -> Path:
    """Root of the read-only test corpus (``../shared/corpus`` from the repo root)."""
    assert CORPUS.is_dir(), f"test corpus not found at {CORPUS}"
    return CORPUS


@pytest.fixture(scope="session")
def parse_corpus(corpus: Path) -> Callable[[str], ParseOutput]:
    """``parse_corpus("real/x.pdf")``: ``parse_document`` of a corpus file, cached per session."""
    return _parsed


@pytest.fixture(scope="session")
def no_ws() -> Callable[[str], str]:
    """Remove all whitespace (the corpus README's comparison rule for truth strings)."""
    return lambda text: _WS.sub("", text)


@pytest.fixture(scope="session")
def truth_of(corpus: Path) -> Callable[[str], dict]:
    """``truth_of("E")``: ground truth of a fixture by its letter."""

    def load(letter: str) -> dict:
        (path,) = sorted((corpus / "fixtures").glob(f"{letter}_*.truth.json"))
        return json.loads(path.read_text(encoding="utf-8"))

    return load


@pytest.fixture()
def settings() -> Settings:
    return Settings()

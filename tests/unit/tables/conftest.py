"""Shared fixtures for the table-stage tests: corpus paths and cached extraction."""
from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO.parent / "shared" / "corpus"
FIXTURES = CORPUS / "fixtures"
REAL = CORPUS / "real"
FIXTURE_DOCS = {
    "A": "A_詳細數字一覽表",
    "B": "B_古洞北粉嶺北新發展區概覽",
    "E": "E_基礎設施",
    "L": "L_補償及安置安排",
}


@functools.cache
def extracted(path: str):
    """extract_tables() of a corpus PDF, cached across tests."""
    from services.tables import extract_tables

    return extract_tables(Path(path).read_bytes())


def truth(letter: str) -> dict:
    return json.loads((FIXTURES / f"{FIXTURE_DOCS[letter]}.truth.json").read_text(encoding="utf-8"))


def fixture_pdf(letter: str) -> Path:
    return FIXTURES / f"{FIXTURE_DOCS[letter]}.pdf"


@pytest.fixture(scope="session", autouse=True)
def _corpus_present():
    if not FIXTURES.is_dir():
        pytest.fail(f"corpus not found at {CORPUS}: tests read ../shared/corpus next to the repo")

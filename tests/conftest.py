"""Test-wide paths. The corpus is read from ``../shared/corpus`` next to the repo, never copied."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = (REPO / ".." / "shared" / "corpus").resolve()
REAL = CORPUS / "real"
FIXTURES = CORPUS / "fixtures"
BAD = CORPUS / "bad"

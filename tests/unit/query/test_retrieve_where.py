"""Chroma filters built from the query's optional restrictions."""
from __future__ import annotations

from services.query.retrieve import build_where


def test_no_filter():
    assert build_where() is None


def test_single_and_combined_filters():
    assert build_where(lang="zh") == {"lang": "zh"}
    assert build_where(document_ids=["a", "b"], strategy="question", topic_section="(A) 排水系統", lang="en") == {
        "$and": [{"document_id": {"$in": ["a", "b"]}}, {"strategy_type": "question"},
                 {"topic_section": "(A) 排水系統"}, {"lang": "en"}]}

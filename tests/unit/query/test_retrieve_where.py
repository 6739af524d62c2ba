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


def test_department_scope_is_its_departments_or_the_shared_library():
    scope = {"$or": [{"department": {"$in": ["dept-a"]}}, {"visibility": "shared"}]}
    assert build_where(departments=["dept-a"]) == scope
    assert build_where(departments=["dept-a"], lang="zh", document_ids=["x"]) == {
        "$and": [scope, {"document_id": {"$in": ["x"]}}, {"lang": "zh"}]}
    assert build_where(departments=[]) == {"visibility": "shared"}  # no department: the shared library only
    assert build_where(departments=None) is None                     # an admin: every department

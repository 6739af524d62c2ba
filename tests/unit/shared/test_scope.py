"""The department rule (``shared.scope``) that the gateway and the query service both apply."""
from __future__ import annotations

from services.query.retrieve import to_source
from shared.scope import chroma_where, in_scope, meta_in_scope, scope_label


def test_a_scope_reads_its_departments_and_the_shared_library():
    assert in_scope("dept-a", "department", {"dept-a"})
    assert not in_scope("dept-b", "department", {"dept-a"})
    assert in_scope("dept-b", "shared", {"dept-a"})
    assert in_scope("dept-b", "shared", set())
    assert in_scope("dept-b", "department", None)  # every department


def test_records_from_before_departments_are_default_and_department_only():
    assert meta_in_scope({}, {"default"}) and not meta_in_scope({}, {"dept-a"})
    assert meta_in_scope({"department": "dept-a"}, {"dept-a"})


def test_chroma_condition_and_metrics_label():
    assert chroma_where(None) is None
    assert chroma_where(["b", "a"]) == {"$or": [{"department": {"$in": ["a", "b"]}}, {"visibility": "shared"}]}
    assert (scope_label(None), scope_label(["dept-a"]), scope_label([])) == ("all", "dept-a", "shared")


def test_sources_name_their_department_and_visibility():
    meta = {"document_id": "d" * 32, "chunk_index": 0, "department": "ops", "visibility": "shared"}
    src = to_source("d" * 32 + "_0", "text", meta, 0.5)
    assert (src.department, src.visibility) == ("ops", "shared")
    old = to_source("d" * 32 + "_0", "text", {"document_id": "d" * 32, "chunk_index": 0}, 0.5)
    assert (old.department, old.visibility) == ("default", "department")

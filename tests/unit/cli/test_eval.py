"""legco eval: metrics, groups and query-file loading."""
from __future__ import annotations

import json

import pytest

from cli.eval_corpus import document_files, load_queries
from cli.eval_metrics import group_results, summarize
from cli.main import parse_args


def test_summarize_recall_and_mrr():
    m = summarize([1, 2, None, 7, 11])
    assert m["n"] == 5 and m["R@1"] == 0.2 and m["R@3"] == 0.4 and m["R@5"] == 0.4
    assert m["MRR@10"] == pytest.approx((1 + 0.5 + 1 / 7) / 5)


def test_groups_by_language_direction_and_variant():
    base = {"file": "x.truth.json", "kind": "truth", "query": "q"}
    res = [dict(base, rank=1, query_lang="zh", doc_lang="en", variant="original"),
           dict(base, rank=None, query_lang="en", doc_lang="en", variant="original"),
           dict(base, rank=2, query_lang="zh", doc_lang="en", variant="simplified")]
    g = group_results(res)
    assert g["overall"]["n"] == 2 and g["overall"]["R@1"] == 0.5
    assert g["direction:zh->en"]["R@1"] == 1.0 and g["direction:en->en"]["R@5"] == 0.0
    assert g["simplified:truth"] == {"n": 1, "R@1": 0.0, "R@3": 1.0, "R@5": 1.0, "MRR@10": 0.5}
    assert "simplified:truth" not in {k for k in g if k.startswith("direction")}


def test_load_queries_and_documents(tmp_path):
    (tmp_path / "P.pdf").write_bytes(b"%PDF")
    (tmp_path / "P.docx").write_bytes(b"PK")
    (tmp_path / "notes.md").write_text("x")
    (tmp_path / "P.truth.json").write_text(json.dumps(
        {"file": "P.pdf", "docx": "P.docx", "lang": "zh",
         "queries": [{"query": "點樣?", "expected_qa_id": "A1", "lang": "zh"}]}))
    (tmp_path / "G.queries.json").write_text(json.dumps(
        {"file": "G.pdf", "queries": [{"query": "How?", "expected_qa_id": "Q1"}]}))
    assert [p.name for p in document_files([tmp_path])] == ["P.docx", "P.pdf"]
    qs = load_queries([tmp_path])
    assert [(q.source, q.kind, q.files, q.doc_lang) for q in qs] == [
        ("P.truth.json", "truth", ["P.pdf", "P.docx"], "zh"), ("G.queries.json", "queries", ["G.pdf"], None)]


def test_eval_arguments(tmp_path):
    a = parse_args(["--url", "http://x:1", "eval", str(tmp_path), "--json"])
    assert a.command == "eval" and a.dirs == [tmp_path] and a.json and not a.no_simplified

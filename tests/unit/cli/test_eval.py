"""legco eval: metrics, groups and query-file loading."""
from __future__ import annotations

import json

import pytest

from cli.eval_corpus import document_files, evaluation_files, load_queries
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


def test_groups_by_style_and_split_when_labelled():
    base = {"file": "U.queries.json", "kind": "queries", "query": "q", "query_lang": "zh", "doc_lang": "zh"}
    res = [dict(base, rank=1, variant="original", style="cantonese", split="test"),
           dict(base, rank=4, variant="original", style="written", split="test"),
           dict(base, rank=1, variant="simplified", style="cantonese", split="test"),
           dict(base, rank=2, variant="original", style=None, split=None)]
    g = group_results(res)
    assert g["style:cantonese"]["n"] == 1 and g["style:written"]["R@3"] == 0.0
    assert g["split:test"] == {"n": 2, "R@1": 0.5, "R@3": 0.5, "R@5": 1.0, "MRR@10": 0.625}
    assert "style:None" not in g and "split:None" not in g and g["overall"]["n"] == 3


def test_load_queries_keeps_labels_and_filters_by_split(tmp_path):
    (tmp_path / "U.queries.json").write_text(json.dumps(
        {"file": "U.pdf", "lang": "zh", "queries": [
            {"query": "洪水橋站幾時通車呀？", "expected_qa_id": "A1", "lang": "zh", "style": "cantonese",
             "split": "calibration"},
            {"query": "When does HSK station open?", "expected_qa_id": "A1", "lang": "en", "style": "english",
             "split": "test"},
            {"query": "無標籤", "expected_qa_id": "A2"}]}))
    assert [(q.style, q.split) for q in load_queries([tmp_path])] == [
        ("cantonese", "calibration"), ("english", "test"), (None, None)]
    assert [q.query for q in load_queries([tmp_path], "test")] == ["When does HSK station open?"]
    assert load_queries([tmp_path], "tset") == []


def test_evaluation_files_add_distractors_once_and_refuse_a_name_twice(tmp_path):
    own, other = tmp_path / "own", tmp_path / "other"
    own.mkdir()
    other.mkdir()
    (own / "U01.pdf").write_bytes(b"%PDF")
    (other / "E.docx").write_bytes(b"PK")
    (other / "E.truth.json").write_text("{}")
    files = evaluation_files([own], [other, tmp_path / "other" / ".." / "other"])
    assert [f.name for f in files] == ["U01.pdf", "E.docx"]
    (other / "U01.pdf").write_bytes(b"%PDF")
    with pytest.raises(ValueError, match="U01.pdf"):
        evaluation_files([own], [other])


def test_eval_distractor_and_split_arguments(tmp_path):
    a = parse_args(["eval", str(tmp_path), "--distractors", "d1", "--distractors", "d2", "--split", "test"])
    assert a.dirs == [tmp_path] and [str(d) for d in a.distractors] == ["d1", "d2"] and a.split == "test"
    assert parse_args(["eval", str(tmp_path)]).distractors == []


async def test_evaluate_ingests_distractors_and_runs_only_the_split(tmp_path, monkeypatch):
    """``evaluate`` against a fake gateway: the distractor folder's paper is uploaded with the
    evaluated folder's, its own queries are not run, and only the ``test`` queries are asked."""
    import httpx

    from cli import api, eval_cmd

    own, other = tmp_path / "own", tmp_path / "other"
    own.mkdir()
    other.mkdir()
    (own / "U.txt").write_text("問 A1：洪水橋站何時通車？\n答 A1：2030 年。\n", encoding="utf-8")
    (own / "U.queries.json").write_text(json.dumps({"file": "U.txt", "lang": "zh", "queries": [
        {"query": "洪水橋站幾時通車呀？", "expected_qa_id": "A1", "lang": "zh", "style": "cantonese", "split": "test"},
        {"query": "HSK station opening?", "expected_qa_id": "A1", "lang": "en", "style": "english",
         "split": "calibration"}]}))
    (other / "E.txt").write_text("問 A1：蓄洪池？\n答 A1：有。\n", encoding="utf-8")
    (other / "E.truth.json").write_text(json.dumps({"file": "E.txt", "lang": "zh", "queries": [
        {"query": "蓄洪池點樣？", "expected_qa_id": "A1", "lang": "zh"}]}))
    uploaded: list[str] = []
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/ingest":
            name = "U.txt" if b'filename="U.txt"' in request.content else "E.txt"
            uploaded.append(name)
            return httpx.Response(200, json={"document_id": name})
        if request.url.path == "/api/v1/documents":
            return httpx.Response(200, json={"documents": [
                {"document_id": n, "status": "indexed", "sha256": "x", "strategy": "question"} for n in uploaded]})
        if request.url.path == "/api/v1/query":
            asked.append(json.loads(request.content)["question"])
            return httpx.Response(200, json={"keyword_search": len(asked) > 1, "sources": [
                {"document_id": "E.txt", "question_id": "A1", "filename": "E.txt"},
                {"document_id": "U.txt", "question_id": "A1", "filename": "U.txt"}]})
        return httpx.Response(404, json={"detail": request.url.path})

    monkeypatch.setattr(api, "make_client", lambda url, settings=None: httpx.AsyncClient(
        base_url=url, transport=httpx.MockTransport(handler)))
    report = await eval_cmd.evaluate("http://gw", [own], simplified=False, timeout_s=5,
                                     distractors=[other], split="test")
    assert sorted(uploaded) == ["E.txt", "U.txt"] and set(report["documents"]) == {"E.txt", "U.txt"}
    # the keyword index was still loading at the first probe: the queries waited for it
    assert asked == ["evaluation", "evaluation", "洪水橋站幾時通車呀？"]
    assert [r["rank"] for r in report["results"]] == [2]  # E.txt#A1 first is the other paper's pair
    assert report["groups"]["split:test"]["n"] == 1 and report["groups"]["style:cantonese"]["MRR@10"] == 0.5
    with pytest.raises(ValueError, match="no query is labelled split"):
        await eval_cmd.evaluate("http://gw", [own], simplified=False, timeout_s=5, split="tset")

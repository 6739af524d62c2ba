"""Cross-language retrieval targets on fixtures + real papers in one collection, measured with
``legco eval --json`` through the running stack; plus the query filters, ``matched_by``, and the
language statistics surviving a query-service restart and following a delete."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from shared.vectorstore import VectorStore
from tests.conftest import FIXTURES, REAL, REPO
from tests.e2e.helpers import upload, wait_terminal

FAQ = "file:hk_ld_ec_ordinance_guide_faq_en.queries.json"
# Measured on the code before language-bias removal / question lines (same corpus, same
# command): services/query/README.md, "Measurements".
BASELINE = {"direction:zh->zh": {"R@1": 0.852, "R@3": 0.926}, "direction:en->en": {"R@1": 1.0, "R@3": 1.0}}


def run_eval(stack) -> dict:
    """``legco eval --json FIXTURES REAL`` against the test stack; the parsed report."""
    out = subprocess.run([sys.executable, "-m", "cli.main", "--url", stack.gateway_url, "eval", "--json",
                          str(FIXTURES), str(REAL)], cwd=REPO, capture_output=True, text=True, timeout=3000,
                         env={**os.environ, **stack.env})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def report(stack) -> dict:
    """One ingest of fixtures + real (question strategy) and one evaluation run."""
    return run_eval(stack)


def vectors(stack) -> VectorStore:
    """A client on the test stack's Chroma."""
    return VectorStore(stack.settings())


def test_fixture_queries_find_the_prepared_pair(report):
    """The issue's targets: Recall@1 >= 0.90, Recall@3 >= 0.98 (43 queries; baseline 0.605 / 0.721)."""
    g = report["groups"]["kind:truth"]
    assert g["n"] == 43
    assert g["R@1"] >= 0.90, report["misses"]
    assert g["R@3"] >= 0.98, report["misses"]


def test_cross_language_directions(report):
    """English → Chinese papers and Cantonese → English guide (baseline R@1 0.19 and 0.00)."""
    assert report["groups"]["direction:en->zh"]["R@3"] >= 0.9, report["misses"]
    assert report["groups"]["direction:zh->en"]["R@3"] >= 0.85, report["misses"]


def test_cantonese_queries_find_the_english_faq(report):
    assert report["groups"][FAQ]["R@3"] >= 0.85, report["misses"]


def test_simplified_queries_score_like_traditional(report):
    orig, simp = report["groups"]["kind:truth"], report["groups"]["simplified:truth"]
    for k in ("R@1", "R@3"):
        assert simp[k] >= orig[k] - 0.03, (k, orig, simp)


def test_same_language_directions_no_worse_than_before(report):
    for group, base in BASELINE.items():
        for k, v in base.items():
            assert report["groups"][group][k] >= v - 1e-9, (group, k, report["groups"][group])


def test_sources_say_why_they_matched(api, report):
    question = "到目前為止，古洞北粉嶺北發咗幾多特惠補償出去？"
    r = api.post("/api/v1/query", json={"question": question, "top_k": 5}).json()
    assert {s["matched_by"] for s in r["sources"]} <= {"dense", "question-line", "keyword"}
    assert any(s["matched_by"] == "question-line" for s in r["sources"])
    assert all(r["sources"][i]["score"] >= r["sources"][i + 1]["score"] for i in range(len(r["sources"]) - 1))


def test_english_question_reaches_the_chinese_pair_through_the_dictionary(api, report):
    """e5-small does not link "brownfield" to 棕地 (the pair ranked 6th without the keyword side);
    CC-CEDICT's brown 棕 + field 地 does, and the source says so."""
    r = api.post("/api/v1/query", json={"question": "Where can brownfield operators move their businesses after "
                                                    "clearance?", "top_k": 3}).json()
    top = r["sources"][0]
    assert top["filename"].startswith("L_補償及安置安排") and top["question_id"] == "Q8", r["sources"]
    assert "棕地 (brownfield)" in top["matched_terms"]


def test_renditions_of_one_pair_are_listed_once(api, report):
    """L is indexed as PDF and DOCX: the pair comes back once, the other copy in ``also_in``."""
    docs = {report["documents"][f]["document_id"] for f in ("L_補償及安置安排.pdf", "L_補償及安置安排.docx")}
    r = api.post("/api/v1/query", json={"question": "冇人認領嘅山墳，政府會點處理？", "top_k": 5}).json()
    top = r["sources"][0]
    assert top["question_id"] == "Q24" and top["document_id"] in docs
    assert {a["document_id"] for a in top["also_in"]} == docs - {top["document_id"]}
    assert all(a["pdf_url"] or a["filename"].endswith(".docx") for a in top["also_in"])
    keys = [(s["filename"].rsplit(".", 1)[0], s["question_id"]) for s in r["sources"] if s["question_id"]]
    assert len(keys) == len(set(keys)), keys


def test_filters_by_document_strategy_and_topic(api, report):
    l_pdf = report["documents"]["L_補償及安置安排.pdf"]["document_id"]
    r = api.post("/api/v1/query", json={"question": "農作物補償", "top_k": 5, "document_ids": [l_pdf]}).json()
    assert r["sources"] and {s["document_id"] for s in r["sources"]} == {l_pdf}
    r = api.post("/api/v1/query", json={"question": "共同溝", "top_k": 5, "topic_section": "(D) 公用設施共同溝"}).json()
    assert r["sources"] and {s["topic_section"] for s in r["sources"]} == {"(D) 公用設施共同溝"}
    r = api.post("/api/v1/query", json={"question": "共同溝", "top_k": 5, "strategy": "token"}).json()
    assert r["sources"] and all(s["strategy_type"] == "token" and s["question_id"] is None for s in r["sources"])


def test_language_statistics_follow_add_and_delete(api, stack, report, tmp_path):
    vs = vectors(stack)
    before = vs.language_sums()
    assert set(before) == {"zh", "en"} and before["en"][1] > 0
    paper = tmp_path / "retrieval_stats_probe_en.txt"
    paper.write_text("Briefing note on harbour ferry services.\n\n" + "Ferry patronage rose again this year. " * 40,
                     encoding="utf-8")
    doc_id = upload(api, paper, strategy="token")["document_id"]
    rec = wait_terminal(api, [doc_id])[doc_id]
    assert rec["status"] == "indexed" and rec["chunk_count"] >= 1
    assert vs.language_sums()["en"][1] == before["en"][1] + rec["chunk_count"]
    probe = {"question": "harbour ferry patronage", "top_k": 3}
    def probe_found_by_keyword() -> bool:  # the keyword index follows the documents.indexed event
        top = api.post("/api/v1/query", json=probe).json()["sources"][0]
        return top["document_id"] == doc_id and "ferry" in {t.lower() for t in top["matched_terms"]}

    assert wait_for(probe_found_by_keyword)
    assert api.delete(f"/api/v1/documents/{doc_id}").status_code == 200
    assert vs.language_sums()["en"][1] == before["en"][1]
    assert not vs.stats.get(where={"document_id": doc_id})["ids"]
    assert wait_for(lambda: all(s["document_id"] != doc_id
                                for s in api.post("/api/v1/query", json=probe).json()["sources"]))


def wait_for(check, timeout_s: float = 5.0) -> bool:
    """Poll ``check()`` every 0.5 s until it is true (True) or ``timeout_s`` passes (False); the
    query service follows index events within 5 s."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.5)
    return False


def test_restart_keeps_the_fitted_state(api, stack, report):
    q = {"question": "喺香港工傷，可唔可以返內地睇醫生？", "top_k": 3}
    first = api.post("/api/v1/query", json=q).json()["sources"]
    stack.ctl("restart", "query")
    deadline = time.monotonic() + 60
    while True:
        r = api.post("/api/v1/query", json=q)
        if r.status_code == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert [s["chunk_id"] for s in r.json()["sources"]] == [s["chunk_id"] for s in first]
    assert first[0]["question_id"] == "Q10"

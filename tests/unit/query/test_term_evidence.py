"""The term share of the coverage decision: the question's content terms a passage contains, in
either language, weighted by their rarity in the caller's papers."""
from __future__ import annotations

import asyncio
import math

import pytest

from services.query.answer import compose_answer
from services.query.coverage import CoverageParams
from services.query.keyword_index import KeywordIndex
from services.query.keyword_tokens import document_tokens
from services.query.lexicon import load_lexicon
from services.query.retrieve import Hit
from services.query.term_evidence import QueryTerm, inverse_document_frequency, term_share
from shared.api import Source
from shared.settings import Settings
from shared.textnorm import normalize_for_search

TEXTS = {"a_0": "政府為受影響的業務經營者提供特惠津貼。", "a_1": "政府會檢討政策。", "a_2": "政府的土地政策。",
         "b_0": "中華白海豚的保育工作。"}


def meta(doc: str, department: str) -> dict[str, str]:
    return {"document_id": doc, "lang": "zh", "department": department, "visibility": "department"}


@pytest.fixture(scope="module")
def index() -> KeywordIndex:
    """Lands' three chunks (政府 in all of them, 特惠津貼 in one) and AFCD's dolphin chunk."""
    idx = KeywordIndex(load_lexicon())
    idx.update({"a": [(k, v, meta("a", "lands")) for k, v in TEXTS.items() if k.startswith("a")],
                "b": [("b_0", TEXTS["b_0"], meta("b", "afcd"))]})
    return idx


def share(terms: list[QueryTerm], chunk_id: str) -> float:
    return term_share(terms, set(document_tokens(normalize_for_search(TEXTS[chunk_id]))))


def test_weights_are_the_inverse_document_frequency_in_the_scope(index: KeywordIndex) -> None:
    terms = {t.term: t.weight for t in index.query_terms("政府 特惠 津貼 海豚", ["lands"])}
    assert terms["政府"] == pytest.approx(inverse_document_frequency(3, 3))   # in every chunk of lands: ~0.13
    assert terms["特惠"] == pytest.approx(inverse_document_frequency(1, 3))
    assert terms["海豚"] == pytest.approx(math.log(1 + 3.5 / 0.5))            # in no chunk lands sees: the most
    assert terms["政府"] < terms["特惠"] < terms["海豚"]


def test_a_passage_with_the_rare_terms_has_the_larger_share(index: KeywordIndex) -> None:
    terms = index.query_terms("政府 特惠 津貼 海豚", ["lands"])
    total = sum(t.weight for t in terms)
    assert share(terms, "a_0") == pytest.approx((total - terms[3].weight) / total)  # all but 海豚
    assert share(terms, "a_1") == pytest.approx(terms[0].weight / total)            # only the generic 政府
    assert share(terms, "a_1") < 0.05
    assert term_share([], {"政府"}) == 0.0                                           # no terms: no evidence


def test_an_english_question_counts_the_translations_in_a_chinese_passage(index: KeywordIndex) -> None:
    terms = index.query_terms("ex-gratia allowance for dolphins", ["lands"])
    assert [t.term for t in terms] == ["ex gratia", "allowance", "dolphins"]
    assert ("特惠",) in terms[0].forms and ("津貼",) in terms[1].forms
    weight = {t.term: t.weight for t in terms}
    assert share(terms, "a_0") == pytest.approx((weight["ex gratia"] + weight["allowance"]) / sum(weight.values()))
    assert share(terms, "a_1") == 0.0


def test_another_departments_papers_neither_translate_nor_weigh_a_term(index: KeywordIndex) -> None:
    lands = {t.term: t for t in index.query_terms("ex-gratia allowance for dolphins", ["lands"])}
    every = {t.term: t for t in index.query_terms("ex-gratia allowance for dolphins")}
    assert ("海豚",) not in lands["dolphins"].forms and ("海豚",) in every["dolphins"].forms
    assert lands["dolphins"].weight > every["dolphins"].weight   # unknown to lands, rare to everyone
    assert share(list(every.values()), "b_0") > 0.0 == share(list(lands.values()), "b_0")


def hit(chunk_id: str, score: float) -> Hit:
    fields: dict[str, object] = {"chunk_id": chunk_id, "document_id": chunk_id[0], "filename": "f.pdf",
                                 "page_number": 1, "score": score, "snippet": TEXTS[chunk_id]}
    return Hit(Source.model_validate(fields), TEXTS[chunk_id])


def test_the_response_is_covered_when_a_passage_holds_the_specific_terms(index: KeywordIndex) -> None:
    params = CoverageParams(threshold=0.6, terms_weight=0.4, sources=2)
    settings = Settings(llm_base_url="", llm_model="")
    specific = index.query_terms("特惠 津貼", ["lands"])
    generic = index.query_terms("政府 煙花", ["lands"])   # only 政府, in every passage; 煙花 in none
    answered = asyncio.run(compose_answer(settings, "特惠津貼？", [hit("a_1", 0.45), hit("a_0", 0.44)],
                                          params=params, terms=specific))
    assert answered.covered and answered.coverage.source == 2 and answered.coverage.terms == 1.0
    unanswered = asyncio.run(compose_answer(settings, "政府煙花？", [hit("a_1", 0.45), hit("a_0", 0.44)],
                                            params=params, terms=generic))
    assert not unanswered.covered and unanswered.coverage.terms is not None and unanswered.coverage.terms < 0.1
    without = asyncio.run(compose_answer(settings, "特惠津貼？", [hit("a_1", 0.45), hit("a_0", 0.44)], params=params))
    assert not without.covered and without.coverage.terms == 0.0   # no terms given: no term evidence


def test_the_query_route_weighs_the_terms_in_the_callers_scope(index: KeywordIndex,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """``POST /api/v1/query`` hands the keyword index's terms of the caller's scope to the
    decision: for lands, 海豚 is a term no paper holds, so the 特惠津貼 passage holds 特惠 and 津貼
    but not the heaviest term; for every department 海豚 is AFCD's."""
    from types import SimpleNamespace

    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from services.query import routes
    from services.query.answer_cache import AnswerCache

    async def fake_retrieve(*args: object, **kwargs: object) -> list[Hit]:
        return [hit("a_0", 0.5)]

    monkeypatch.setattr(routes, "retrieve", fake_retrieve)
    app = FastAPI()
    app.include_router(routes.router)
    settings = Settings(llm_base_url="", llm_model="", query_covered_sources=1, query_covered_terms_weight=1.0)
    app.state.query = SimpleNamespace(settings=settings, vectors=None, questions=None, searcher=None, means=None,
                                      params=None, cache=None, keywords=index, keywords_ready=True,
                                      answers=AnswerCache(0))
    client = TestClient(app)

    def terms(departments: list[str] | None) -> float:
        resp = client.post("/api/v1/query", json={"question": "特惠 津貼 海豚", "top_k": 1, "departments": departments})
        assert resp.status_code == 200
        return float(resp.json()["coverage"]["terms"])

    weight = {t.term: t.weight for t in index.query_terms("特惠 津貼 海豚", ["lands"])}
    assert terms(["lands"]) == pytest.approx((weight["特惠"] + weight["津貼"]) / sum(weight.values()), abs=1e-4)
    assert terms(None) == pytest.approx(2 / 3, abs=1e-4)   # every department: each term in one chunk, equal weights

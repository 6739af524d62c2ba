"""The "not covered" decision on the sources' scores, and the response it gives."""
from __future__ import annotations

import asyncio

import pytest

from services.query.answer import NOT_COVERED, compose_answer, evidence_of
from services.query.coverage import CoverageParams, SourceEvidence, assess, decision_value, is_covered
from services.query.retrieve import Hit
from shared.api import Source
from shared.settings import Settings

PARAMS = CoverageParams(threshold=0.5, margin_weight=1.0)
WEIGHTED = CoverageParams(threshold=0.5, question_weight=0.5, unknown_weight=0.4)


def ev(*scores: float, question: float | None = None, terms: float = 0.0) -> list[SourceEvidence]:
    """Evidence of sources with these scores; the first has ``question`` and ``terms``."""
    return [SourceEvidence(s, question if n == 0 else None, terms if n == 0 else 0.0) for n, s in enumerate(scores)]


def test_decision_value_adds_the_weighted_margin():
    assert decision_value(ev(0.6, 0.5, 0.1), 0.0, PARAMS) == 0.6 + (0.6 - 0.5)
    assert decision_value(ev(0.6), 0.0, CoverageParams(0.5, margin_weight=2.0)) == 0.6  # one source: no margin
    assert decision_value([], 0.0, PARAMS) is None


def test_question_line_and_term_share_raise_and_unknown_terms_lower_the_value():
    assert decision_value(ev(0.4, question=0.3), 0.0, WEIGHTED) == 0.4 + 0.5 * 0.3
    assert decision_value(ev(0.4), 0.0, WEIGHTED) == 0.4                 # not a Q&A pair
    assert decision_value(ev(0.4), 0.25, WEIGHTED) == 0.4 - 0.4 * 0.25   # a quarter of the terms unknown
    terms = CoverageParams(0.5, terms_weight=0.5)
    assert decision_value(ev(0.4, terms=0.6), 0.0, terms) == 0.4 + 0.5 * 0.6
    assert decision_value(ev(0.4, terms=0.6), 0.0, WEIGHTED) == 0.4       # weight 0: the share is ignored


def test_the_value_comes_from_the_best_supported_of_the_first_sources():
    evidence = [SourceEvidence(0.50, None, 0.1), SourceEvidence(0.45, 0.4, 0.8), SourceEvidence(0.44, 0.5, 0.9)]
    one = CoverageParams(0.5, question_weight=0.5, terms_weight=0.5)
    two = CoverageParams(0.5, question_weight=0.5, terms_weight=0.5, sources=2)
    assert decision_value(evidence, 0.0, one) == 0.50 + 0.5 * 0.1                 # only the first
    assert decision_value(evidence, 0.0, two) == 0.45 + 0.5 * 0.4 + 0.5 * 0.8      # the second supports more
    c = assess(evidence, 0.0, two)
    assert (c.source, c.question_line, c.terms, c.best, c.second) == (2, 0.4, 0.8, 0.50, 0.45)
    assert assess(evidence, 0.0, one).source == 1


def test_english_questions_have_their_own_threshold():
    p = CoverageParams(threshold=0.5, english_threshold=0.4)
    assert not is_covered(assess(ev(0.45), 0.0, p, "zh"))
    assert is_covered(assess(ev(0.45), 0.0, p, "en"))
    assert assess(ev(0.45), 0.0, p, "en").threshold == 0.4
    assert assess(ev(0.45), 0.0, CoverageParams(threshold=0.5), "en").threshold == 0.5  # unset: the one threshold


def test_covered_when_the_value_reaches_the_threshold():
    assert is_covered(assess(ev(0.45, 0.30), 0.0, PARAMS))         # 0.45 + 0.15 = 0.60
    assert not is_covered(assess(ev(0.45, 0.44), 0.0, PARAMS))     # 0.45 + 0.01 = 0.46: several equally weak
    assert not is_covered(assess(ev(0.55), 0.25, WEIGHTED))        # 0.55 - 0.10: it names unknown subjects
    assert is_covered(assess(ev(0.45, question=0.2), 0.0, WEIGHTED))  # 0.45 + 0.10: a close prepared question
    assert not is_covered(assess([], 0.0, PARAMS))
    c = assess(ev(0.45, 0.30, question=0.2), 0.5, PARAMS)
    assert (c.best, c.second, c.question_line, c.unknown, c.threshold) == (0.45, 0.30, 0.2, 0.5, 0.5)


def test_unknown_share_counts_terms_no_paper_contains():
    from services.query.keyword_index import KeywordIndex
    from services.query.lexicon import load_lexicon

    idx = KeywordIndex(load_lexicon())
    idx.update({"d": [("d_0", "政府為受影響的業務經營者提供特惠津貼。", {"document_id": "d", "lang": "zh"})]})
    assert idx.unknown_share("政府 特惠 津貼") == 0.0
    assert idx.unknown_share("政府 海豚") == 0.5            # 海豚 is in no paper, nor "dolphin"
    assert idx.unknown_share("ex-gratia allowance") == 0.0   # known through its translations
    assert idx.unknown_share("ex gratia allowance") == 0.0   # a dictionary phrase, written without its hyphen
    assert idx.unknown_share("dolphin fireworks allowance") == 2 / 3


def hit(chunk_id: str, score: float, qa: bool = False) -> Hit:
    text = "Q1. 煙花匯演的預算是多少？\n預算為 1,000 萬元。" if qa else "一段文字。另一句。"
    fields: dict[str, object] = {"chunk_id": chunk_id, "document_id": "d", "filename": "f.pdf", "page_number": 2,
                                 "score": score, "snippet": text}
    if qa:
        fields |= {"question_id": "Q1", "question_text": "煙花匯演的預算是多少？", "answer": text}
    return Hit(Source.model_validate(fields), text)


def test_not_covered_says_so_and_returns_the_closest_passages():
    resp = asyncio.run(compose_answer(Settings(llm_base_url="", llm_model=""), "國慶煙花預算？",
                                      [hit("a", 0.40), hit("b", 0.39), hit("c", 0.38), hit("d", 0.30)],
                                      params=PARAMS))
    assert not resp.covered and resp.direct is None
    assert resp.answer.startswith(NOT_COVERED)
    assert [s.chunk_id for s in resp.closest] == ["a", "b", "c"]
    assert [s.chunk_id for s in resp.sources] == ["a", "b", "c", "d"]  # the ranking is unchanged


def test_covered_gives_the_direct_answer_and_does_not_repeat_the_sources():
    resp = asyncio.run(compose_answer(Settings(llm_base_url="", llm_model=""), "煙花預算？",
                                      [hit("a", 0.9, qa=True), hit("b", 0.5)], params=PARAMS))
    assert resp.covered and resp.direct is not None and resp.direct.kind == "qa"
    assert resp.direct.text == "預算為 1,000 萬元。"
    assert resp.answer_mode == "extractive" and resp.notice
    assert "f.pdf" not in resp.answer and "[1]" not in resp.answer
    assert resp.answer.startswith("**Q1 煙花匯演的預算是多少？**")


def test_the_entity_match_part_of_a_score_is_no_evidence_of_an_answer():
    """A question naming a paper ranks that paper's passages first, but naming it is not an
    answer: coverage reads the score without its entity-match part."""
    named = hit("a", 0.55)._replace(ranking_bonus=0.3)
    [ev_named] = evidence_of([named], [], PARAMS)
    [ev_plain] = evidence_of([hit("a", 0.25)], [], PARAMS)
    assert ev_named.score == pytest.approx(ev_plain.score) and ev_named.terms == ev_plain.terms
    resp = asyncio.run(compose_answer(Settings(llm_base_url="", llm_model=""), "國慶煙花預算？", [named],
                                      params=PARAMS))
    assert not resp.covered
    assert resp.sources[0].score == 0.55  # the ranking score shown is unchanged


def test_unknown_share_counts_only_the_callers_papers():
    """Another department's papers never make a term known (nor the decision depend on them)."""
    from services.query.keyword_index import KeywordIndex
    from services.query.lexicon import load_lexicon

    idx = KeywordIndex(load_lexicon())
    idx.update({"a": [("a_0", "政府為受影響的業務經營者提供特惠津貼。",
                       {"document_id": "a", "lang": "zh", "department": "lands", "visibility": "department"})],
                "b": [("b_0", "中華白海豚的保育工作。",
                       {"document_id": "b", "lang": "zh", "department": "afcd", "visibility": "department"})],
                "s": [("s_0", "煙花匯演的安排。",
                       {"document_id": "s", "lang": "zh", "department": "isd", "visibility": "shared"})]})
    assert idx.unknown_share("政府 海豚") == 0.0                       # every department: 海豚 is in b
    assert idx.unknown_share("政府 海豚", ["lands"]) == 0.5            # lands does not see b
    assert idx.unknown_share("政府 海豚", ["afcd"]) == 0.5             # and afcd does not see a's 政府
    assert idx.unknown_share("海豚 保育", ["afcd"]) == 0.0
    assert idx.unknown_share("政府 煙花", ["lands"]) == 0.0            # the shared library is everyone's

"""Language-bias removal and the question-line blend, on hand-made vectors."""
from __future__ import annotations

import numpy as np

from services.query.langbias import debias, unit
from services.query.scoring import Candidate, ScoringParams, score_candidates
from shared.settings import Settings

# Two "content" directions and two "language" directions, orthogonal.
TOPIC_A, TOPIC_B, ZH, EN = np.eye(4)


def params(**overrides: object) -> ScoringParams:
    """The default scoring parameters (from ``Settings()``) with ``overrides``."""
    return ScoringParams.from_settings(Settings(), **overrides)


def vec(*parts: np.ndarray) -> np.ndarray:
    return unit(np.sum(parts, axis=0))


def cand(cid: str, v: np.ndarray, lang: str, **meta) -> Candidate:
    return Candidate(cid, "text " * 20, {"lang": lang, "content_chars": 100, **meta}, v)


def test_debias_removes_the_shared_language_offset():
    means = {"zh": 0.8 * ZH, "en": 0.8 * EN}
    q = vec(TOPIC_A, EN)  # English question about topic A
    right = cand("zh-a", vec(TOPIC_A, ZH), "zh")  # Chinese chunk about A
    wrong = cand("en-b", vec(0.3 * TOPIC_B, EN), "en")  # English chunk about B
    raw = score_candidates(q, "en", means, [right, wrong], params(debias=False))
    assert raw[0].chunk_id == "en-b"  # same-language bias wins without centring
    fixed = score_candidates(q, "en", means, [right, wrong], params())
    assert fixed[0].chunk_id == "zh-a"


def test_debias_without_mean_only_normalises():
    v = np.array([3.0, 4.0])
    assert np.allclose(debias(v, None), [0.6, 0.8])


def test_question_line_blend_and_matched_by():
    q = vec(TOPIC_A, ZH)
    qa = cand("qa", vec(0.2 * TOPIC_A, TOPIC_B, ZH), "zh", chunk_kind="qa")
    qa.question_vector = vec(TOPIC_A, ZH)
    other = cand("sec", vec(0.5 * TOPIC_A, TOPIC_B, ZH), "zh", chunk_kind="section")
    out = score_candidates(q, "zh", {}, [qa, other], params(question_weight=0.5, qa_prior=0.0))
    assert out[0].chunk_id == "qa" and out[0].matched_by == "question-line"
    assert out[0].score == (out[0].dense + out[0].question) / 2
    assert out[1].matched_by == "dense" and out[1].question is None


def test_title_only_chunks_sink():
    q = vec(TOPIC_A, ZH)
    title = Candidate("t", "Part II", {"lang": "zh", "content_chars": 6}, vec(TOPIC_A, ZH))
    body = cand("b", vec(0.5 * TOPIC_A, TOPIC_B, ZH), "zh")
    assert [c.chunk_id for c in score_candidates(q, "zh", {}, [title, body], params())] == ["b", "t"]


def test_language_neutral_search_vector_scores_language_means_equally():
    from services.query.langbias import language_neutral

    rng = np.random.default_rng(0)
    means = {"zh": rng.normal(size=8), "en": rng.normal(size=8), "pt": rng.normal(size=8)}
    s = language_neutral(rng.normal(size=8), means)
    assert np.isclose(np.linalg.norm(s), 1.0)
    assert np.allclose([s @ means["zh"]] * 2, [s @ means["en"], s @ means["pt"]])


def test_keyword_score_adds_and_can_decide_matched_by():
    q = vec(TOPIC_A, ZH)
    near = cand("near", vec(TOPIC_A, 0.2 * TOPIC_B, ZH), "zh")
    kw = cand("kw", vec(0.6 * TOPIC_A, TOPIC_B, ZH), "zh")
    kw.keyword = 1.0
    assert score_candidates(q, "zh", {}, [near, kw], params(keyword_weight=0.0))[0].chunk_id == "near"
    out = score_candidates(q, "zh", {}, [near, kw], params(keyword_weight=0.5))
    assert out[0].chunk_id == "kw" and out[0].matched_by == "keyword"
    assert out[0].score == out[0].dense + 0.5
    assert out[1].matched_by == "dense"


def reference_scores(query, lang, means, candidates, p, translation=None):
    """The scores one candidate at a time, as ``score_candidates`` computed them before it
    scored every candidate with one matrix product (the formulas of its docstring)."""
    q = debias(np.asarray(query, dtype=np.float64), means.get(lang))
    wt = p.translation_weight if translation is not None else 0.0
    t = debias(np.asarray(translation[0], dtype=np.float64), means.get(translation[1])) if wt > 0 else q
    out = {}
    for c in candidates:
        mu = means.get(c.meta["lang"])
        dense = (1 - wt) * (q @ debias(c.vector, mu)) + wt * (t @ debias(c.vector, mu))
        score = dense
        if c.meta.get("chunk_kind") == "qa" and c.question_vector is not None:
            question = q @ debias(c.question_vector, mu)
            score = (1 - p.question_weight) * dense + p.question_weight * question + p.qa_prior
        other = p.cross_language_bonus if c.meta["lang"] != lang else 0.0
        out[c.chunk_id] = score + p.keyword_weight * c.keyword + other
    return out


def test_scoring_every_candidate_at_once_gives_the_scores_of_one_at_a_time():
    rng = np.random.default_rng(16)
    means = {"zh": rng.standard_normal(384) * 0.3, "en": rng.standard_normal(384) * 0.3}
    cands = []
    for n in range(60):
        lang = ("zh", "en", "xx")[n % 3]  # "xx": a language without a mean is only normalised
        qa = n % 2 == 0
        cands.append(Candidate(f"c{n}", "", {"lang": lang, "content_chars": 100, "chunk_kind": "qa" if qa else "text"},
                               rng.standard_normal(384), rng.standard_normal(384) if qa else None,
                               keyword=float(rng.random())))
    query, translation = rng.standard_normal(384), (rng.standard_normal(384), "zh")
    p = params(translation_weight=0.35)
    want = reference_scores(query, "en", means, cands, p, translation)
    got = score_candidates(query, "en", means, cands, p, translation)
    assert [c.chunk_id for c in got] == sorted(want, key=lambda cid: -want[cid])
    assert all(abs(c.score - want[c.chunk_id]) < 1e-12 for c in got)


def test_cross_language_bonus_lifts_the_other_language_and_stays_out_of_coverage():
    """e5 keeps a residual preference for the question's own language after centring: a Chinese
    question's English answer scored just below a Chinese neighbour. The bonus
    (QUERY_CROSS_LANGUAGE_BONUS) is added to chunks in the other language only, and
    ``retrieve.finish`` reports it as ranking-only, so the "not covered" evidence is the same."""
    from services.query.answer import evidence_of
    from services.query.coverage import CoverageParams
    from services.query.keyword_index import KeywordHits
    from services.query.retrieve import Stage, finish

    q = vec(TOPIC_A, 0.2 * TOPIC_B)
    english = cand("en-a", vec(TOPIC_A, 0.6 * TOPIC_B), "en", document_id="en")
    chinese = cand("zh-b", vec(TOPIC_A, 0.4 * TOPIC_B), "zh", document_id="zh")
    off = score_candidates(q, "zh", {}, [english, chinese], params(cross_language_bonus=0.0))
    assert [c.chunk_id for c in off] == ["zh-b", "en-a"]
    before = {c.chunk_id: c.score for c in off}  # scored in place: keep the values
    assert 0 < before["zh-b"] - before["en-a"] < 0.1
    on = score_candidates(q, "zh", {}, [english, chinese], params(cross_language_bonus=0.1))
    assert [c.chunk_id for c in on] == ["en-a", "zh-b"]
    assert abs(on[0].score - (before["en-a"] + 0.1)) < 1e-12 and on[1].score == before["zh-b"]
    assert params().cross_language_bonus == Settings().query_cross_language_bonus > 0

    stage = Stage(q, "zh", {}, [english, chinese], "", KeywordHits({}, {}), {})
    hits = finish(stage, params(cross_language_bonus=0.1), 2, {"en-a": "text " * 20, "zh-b": "文字" * 20})
    assert [h.source.chunk_id for h in hits] == ["en-a", "zh-b"]
    assert [round(h.ranking_bonus, 6) for h in hits] == [0.1, 0.0]
    evidence = evidence_of(hits, [], CoverageParams.from_settings(Settings()))
    assert abs(evidence[0].score - before["en-a"]) < 1e-3  # without the bonus (sources round to 4 places)

"""Language means when a language is held by one chunk (``langbias.PRIOR_CHUNKS``).

CI once failed ``test_keyword_index_follows_upload_and_delete``: the stack held one Chinese paper
(13 chunks) and the English probe paper (one chunk). The probe was the English mean, so centred
it was rounding noise, its dense score a coin toss, and one unique word in five it ranked below
the Chinese chunks despite its keyword match (reproduced on a stack: 3 misses in 15).
"""
from __future__ import annotations

import numpy as np

from services.query.langbias import LanguageMeans, debias, unit
from services.query.scoring import Candidate, ScoringParams, score_candidates

D = 384


def _unit_rows(rng: np.random.Generator, n: int, offset: np.ndarray) -> np.ndarray:
    """``n`` unit vectors sharing ``offset`` (e5's vectors share a large common direction)."""
    return unit(offset + 0.5 * rng.normal(size=(n, D)) / np.sqrt(D))


def test_a_language_of_one_chunk_is_not_centred_to_noise():
    rng = np.random.default_rng(7)
    common = unit(rng.normal(size=D))
    zh = _unit_rows(rng, 13, common + 0.3 * unit(rng.normal(size=D)))
    en = _unit_rows(rng, 1, common + 0.3 * unit(rng.normal(size=D)))[0]
    means = LanguageMeans()
    means.load([("zh-paper", "zh", zh.sum(axis=0).tolist(), 13), ("en-paper", "en", en.tolist(), 1)])
    got = means.get()
    query = unit(en + 0.5 * unit(rng.normal(size=D)))  # an English question about the English paper
    cands = [Candidate(f"zh_{i}", "", {"lang": "zh", "chunk_kind": "page"}, v) for i, v in enumerate(zh)]
    cands.append(Candidate("en_0", "", {"lang": "en", "chunk_kind": "page"}, en))
    params = ScoringParams.from_settings(keyword_weight=0.0, entity_weight=0.0, translation_weight=0.0)
    ranked = score_candidates(query, "en", got, cands, params)
    probe = next(c for c in ranked if c.chunk_id == "en_0")
    # centred on the exact mean it would be the zero vector (dense 0.0); shrunk, it keeps its direction
    assert float(np.linalg.norm(en - got["en"])) > 0.1
    assert probe.dense > 0.3, probe.dense
    assert ranked[0].chunk_id == "en_0"


def test_a_language_of_many_chunks_keeps_its_mean():
    """With hundreds of chunks the prior moves the mean by well under 1%: the centring that
    makes languages comparable is unchanged."""
    rng = np.random.default_rng(3)
    common = unit(rng.normal(size=D))
    zh = _unit_rows(rng, 300, common)
    means = LanguageMeans()
    means.load([("zh-paper", "zh", zh.sum(axis=0).tolist(), 300)])
    exact = zh.mean(axis=0)
    assert np.linalg.norm(means.get()["zh"] - exact) / np.linalg.norm(exact) < 0.005
    v = zh[0]
    assert float(debias(v, means.get()["zh"]) @ debias(v, exact)) > 0.999

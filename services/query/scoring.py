"""Scoring retrieved candidates (pure numpy; no I/O).

For a query vector ``q`` in language ``lq`` and a chunk with vector ``p`` in language ``l``
(``μ`` = per-language mean chunk vector, see ``langbias``)::

    dense    = unit(q - μ[lq]) · unit(p - μ[l])
    question = unit(q - μ[lq]) · unit(v - μ[l])      (v: the pair's question-line vector)
    score    = (1 - w)·dense + w·question + qa_prior  (Q&A chunks with a question vector)
             = dense                                   (other chunks)
    score   += w_k·keyword   (keyword: BM25 with dictionary translation, 0..1, ``keyword_index``)
    score   += w_e·entity    (entity: share of the best document's entity match, 0..1, ``gazetteer``)
    score   += w_m           when the question names a paper and not this one (w_m <= 0)
    score   += w_x           when the chunk's language is not the question's (w_x >= 0)
    score   -= 1   when the chunk has fewer than min_content_chars non-space characters

With dense query translation (``translation_weight``, ``query_translation``) the question's
translation ``t`` (language ``lt``) is a second query, weighted ``w_t`` (``translation_weight``)::

    dense    = (1 - w_t)·unit(q - μ[lq]) · unit(p - μ[l]) + w_t·unit(t - μ[lt]) · unit(p - μ[l])

``question`` stays the question's own (a translation is a bag of words, nearer a passage than a
prepared question).

``matched_by`` names the signal under which the chunk ranks best among the candidates
(dense, question-line or keyword; ties go to the first of these).

Weights and the reasons for them: ``services/query/README.md``.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from services.query.langbias import debias
from shared.api import MatchedBy
from shared.settings import Settings, get_settings


@dataclass
class Candidate:
    """One chunk that may be returned: its stored text, metadata, chunk vector and (Q&A only)
    question-line vector; ``score``/``matched_by``/``dense``/``question`` are filled by
    :func:`score_candidates`, and ``ranking_bonus``: the part of ``score`` that only ranks (the
    entity match and the cross-language bonus; cosine units)."""

    chunk_id: str
    text: str
    meta: dict[str, Any]
    vector: np.ndarray
    question_vector: np.ndarray | None = None
    score: float = 0.0
    dense: float = 0.0
    question: float | None = None
    keyword: float = 0.0
    entity: float = 0.0
    entity_miss: bool = False
    ranking_bonus: float = 0.0
    matched_by: MatchedBy = "dense"
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScoringParams:
    """``question_weight`` w in [0, 1]; ``qa_prior`` added to Q&A chunks (cosine units);
    ``keyword_weight`` w_k (cosine units per unit of normalised keyword score);
    ``entity_weight`` w_e (cosine units per unit of entity share: the paper the question names);
    ``entity_miss_weight`` w_m added when the question names another paper (cosine units);
    ``entity_min_named``: how strong a match names a paper (``gazetteer.Gazetteer.matches``);
    ``min_content_chars``: shorter chunks sink; ``debias``: subtract language means;
    ``translation_weight`` w_t: share of the translation's similarity in ``dense`` (0: off);
    ``cross_language_bonus`` w_x added to a chunk in another language than the question's
    (cosine units; ranking only, ``retrieve.Hit.ranking_bonus``).

    No defaults here: the values are the ``QUERY_*`` settings (``from_settings``), so they are
    written down once, in ``shared/settings.py``."""

    question_weight: float
    qa_prior: float
    keyword_weight: float
    min_content_chars: int
    debias: bool
    entity_weight: float
    entity_miss_weight: float
    entity_min_named: float
    translation_weight: float = 0.0
    cross_language_bonus: float = 0.0

    @classmethod
    def from_settings(cls, s: Settings | None = None, **overrides: Any) -> ScoringParams:
        """The ``QUERY_*`` values of ``s`` (default: the process settings), with ``overrides``."""
        s = s or get_settings()
        return replace(cls(question_weight=s.query_question_weight, qa_prior=s.query_qa_prior,
                           keyword_weight=s.query_keyword_weight, min_content_chars=s.query_min_content_chars,
                           debias=s.query_language_debias, entity_weight=s.query_entity_weight,
                           entity_miss_weight=s.query_entity_miss_weight,
                           entity_min_named=s.query_entity_min_named,
                           translation_weight=s.query_translation_weight,
                           cross_language_bonus=s.query_cross_language_bonus), **overrides)


def score_candidates(query: np.ndarray, query_lang: str, means: dict[str, np.ndarray],
                     candidates: list[Candidate], params: ScoringParams,
                     translation: tuple[np.ndarray, str] | None = None) -> list[Candidate]:
    """Score ``candidates`` in place and return them best first.

    Args:
        query: raw query embedding, shape ``(d,)``.
        query_lang: ``"zh"``/``"en"`` (``shared.lang.detect_language`` of the normalised query).
        means: language → mean chunk vector; a missing language is not centred.
        translation: raw embedding of the question's translation and its language (used when
            ``params.translation_weight`` > 0).
    """
    if not candidates:
        return []
    use = means if params.debias else {}
    q = debias(np.asarray(query, dtype=np.float64), use.get(query_lang))
    wt = params.translation_weight if translation is not None else 0.0
    t = debias(np.asarray(translation[0], dtype=np.float64), use.get(translation[1])) if wt > 0 and translation else q
    # every candidate's vector centred on its language's mean and normalised at once, one
    # matrix-vector product per query vector (a loop over candidates cost ~40 numpy calls each)
    langs = [str(c.meta.get("lang", "")) for c in candidates]
    chunk = _centred([c.vector for c in candidates], langs, use)
    dense = (1 - wt) * (chunk @ q) + wt * (chunk @ t)
    qa = [n for n, c in enumerate(candidates) if c.meta.get("chunk_kind") == "qa" and c.question_vector is not None]
    question = dict(zip(qa, (_centred([candidates[n].question_vector for n in qa], [langs[n] for n in qa], use) @ q
                             ).tolist(), strict=True)) if qa else {}
    for n, c in enumerate(candidates):
        c.dense = float(dense[n])
        c.score, c.question = c.dense, None
        if n in question:
            c.question = question[n]
            w = params.question_weight
            c.score = (1 - w) * c.dense + w * c.question + params.qa_prior
        c.score += params.keyword_weight * c.keyword + params.entity_weight * c.entity
        c.ranking_bonus = params.entity_weight * c.entity
        if c.entity_miss:
            c.score += params.entity_miss_weight
            c.ranking_bonus += params.entity_miss_weight
        if params.cross_language_bonus and crosses_language(c.meta, query_lang):
            c.score += params.cross_language_bonus
            c.ranking_bonus += params.cross_language_bonus
        chars = c.meta.get("content_chars")
        if isinstance(chars, int) and chars < params.min_content_chars:
            c.score -= 1.0
    _assign_matched_by(candidates)
    return sorted(candidates, key=lambda c: -c.score)


def crosses_language(meta: dict[str, Any], query_lang: str) -> bool:
    """Whether a chunk (its metadata's ``lang``) is in another language than the question's
    (``"zh"``/``"en"``); a chunk or question without a language is not."""
    lang = str(meta.get("lang", "") or "")
    return bool(lang and query_lang and lang != query_lang)


def _centred(vectors: list[Any], langs: list[str], means: dict[str, np.ndarray]) -> np.ndarray:
    """``debias`` of each vector with its language's mean (none for a language without one),
    as rows ``(n, d)``."""
    rows = np.asarray(np.stack([np.asarray(v, dtype=np.float64) for v in vectors]))
    if means:
        zero = np.zeros(rows.shape[1])
        rows = rows - np.stack([means.get(lang, zero) for lang in langs])
    return debias(rows, None)


def _assign_matched_by(candidates: list[Candidate]) -> None:
    """Set each candidate's ``matched_by`` to the signal under which it ranks best (1-based
    rank among the candidates; a missing signal never wins)."""
    ranks: dict[str, dict[str, int]] = {}
    signals: dict[MatchedBy, Callable[[Candidate], float | None]] = {
        "dense": lambda c: c.dense, "question-line": lambda c: c.question, "keyword": lambda c: c.keyword or None}
    for name, get in signals.items():
        scored = [(v, c) for c in candidates if (v := get(c)) is not None]
        have = [c for _, c in sorted(scored, key=lambda vc: -vc[0])]
        ranks[name] = {c.chunk_id: n for n, c in enumerate(have, start=1)}
    for c in candidates:
        c.matched_by = min(signals, key=lambda s: ranks[s].get(c.chunk_id, len(candidates) + 1))

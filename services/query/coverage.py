""""Not covered": whether any retrieved source answers the question (pure; no I/O).

Retrieval always returns the nearest passages, even for a question no paper answers (a
fireworks budget). The decision is one calibrated threshold (one per question language) on a
value made of these signals::

    support(i) = score(i) + question_weight · question_line(i) + terms_weight · terms(i)
    value      = max(support(1), …, support(sources)) − unknown_weight · unknown
                 + margin_weight · (best − second)
    covered    = value ≥ threshold (english_threshold for an English question)

* ``score(i)``: the i-th source's ranking score (``scoring``: cosine after language-bias removal,
  blended with the question line for Q&A pairs, plus the keyword bonus); ``best``/``second``: the
  first two (``second`` = ``best`` with one source). ``sources``: how many of the first sources
  may carry the answer (the right passage is often second when a neighbouring pair outranks it).
* ``question_line(i)``: the source's question-line similarity when it is a Q&A pair (0
  otherwise): a prepared question close to the officer's is the strongest sign of an answer.
* ``terms(i)``: the source's term share (``term_evidence``): the rarity-weighted share of the
  question's content terms the passage contains in either language. An unanswerable question's
  nearest passages share its generic words (``budget``, ``政府``), not its specific ones.
* ``unknown``: the share of the question's content terms that no indexed paper contains in
  either language (``keyword_index.unknown_terms``): ``dolphins``, ``fireworks``, ``電子煙``.
* English questions have their own threshold: nearly all of them are asked of Chinese papers,
  where cosines across languages run lower and the dictionary misses words (``elderly`` is not
  glossed 長者), so answered and unanswered English questions both score lower than Chinese ones.

The weights and thresholds are fitted by ``bench/abstention.py`` on the calibration queries and
the unanswerable questions of ``bench/calibration/`` (never on the evaluation queries) and kept
as the ``QUERY_COVERED_*`` settings; the figures are in ``services/query/README.md``.
"""
from __future__ import annotations

from dataclasses import dataclass

from shared.api import Coverage
from shared.settings import Settings, get_settings


@dataclass(frozen=True)
class CoverageParams:
    """``threshold`` (cosine units; questions not in English), ``english_threshold`` (English
    questions; ``None``: ``threshold``), the weights (cosine units per unit of each signal) and
    ``sources`` (how many of the first sources the value may come from, ≥ 1)."""

    threshold: float
    question_weight: float = 0.0
    unknown_weight: float = 0.0
    margin_weight: float = 0.0
    terms_weight: float = 0.0
    sources: int = 1
    english_threshold: float | None = None

    @classmethod
    def from_settings(cls, s: Settings | None = None) -> CoverageParams:
        """The ``QUERY_COVERED_*`` settings of ``s`` (default: the process settings)."""
        s = s or get_settings()
        return cls(threshold=s.query_covered_threshold, question_weight=s.query_covered_question_weight,
                   unknown_weight=s.query_covered_unknown_weight, margin_weight=s.query_covered_margin_weight,
                   terms_weight=s.query_covered_terms_weight, sources=s.query_covered_sources,
                   english_threshold=s.query_covered_english_threshold)

    def threshold_for(self, lang: str) -> float:
        """The threshold of a question in ``lang`` (``shared.lang.detect_language``)."""
        return self.english_threshold if lang == "en" and self.english_threshold is not None else self.threshold


@dataclass(frozen=True)
class SourceEvidence:
    """One source's signals: its ranking ``score``, its ``question_line`` similarity (``None``:
    not a Q&A pair) and its term share ``terms`` (0..1, ``term_evidence.term_share``)."""

    score: float
    question_line: float | None = None
    terms: float = 0.0


def support(e: SourceEvidence, params: CoverageParams) -> float:
    """``score + question_weight · question_line + terms_weight · terms`` of one source."""
    return e.score + params.question_weight * (e.question_line or 0.0) + params.terms_weight * e.terms


def supporting_source(evidence: list[SourceEvidence], params: CoverageParams) -> int | None:
    """0-based index of the source with the highest :func:`support` among the first
    ``params.sources`` (the first on ties); ``None`` without sources."""
    first = evidence[:max(1, params.sources)]
    return max(range(len(first)), key=lambda i: (support(first[i], params), -i)) if first else None


def decision_value(evidence: list[SourceEvidence], unknown: float, params: CoverageParams) -> float | None:
    """The value compared with the threshold (module doc); ``None`` without sources.

    Args:
        evidence: the sources' signals, best-ranked first.
        unknown: share (0..1) of the question's content terms unknown to the index.
    """
    i = supporting_source(evidence, params)
    if i is None:
        return None
    best = evidence[0].score
    second = evidence[1].score if len(evidence) > 1 else best
    return support(evidence[i], params) - params.unknown_weight * unknown + params.margin_weight * (best - second)


def assess(evidence: list[SourceEvidence], unknown: float, params: CoverageParams, lang: str = "zh") -> Coverage:
    """The coverage of a result (arguments as :func:`decision_value`; ``lang``: the question's
    language, which picks the threshold): covered when the value reaches it; never covered
    without sources."""
    value = decision_value(evidence, unknown, params)
    i = supporting_source(evidence, params)
    first = evidence[0] if evidence else None
    chosen = evidence[i] if i is not None else None
    return Coverage(best=first.score if first else None, second=evidence[1].score if len(evidence) > 1 else None,
                    question_line=_round(chosen.question_line) if chosen else None,
                    terms=_round(chosen.terms) if chosen else None, source=i + 1 if i is not None else None,
                    unknown=round(unknown, 4), value=_round(value), threshold=params.threshold_for(lang))


def _round(x: float | None) -> float | None:
    return round(x, 4) if x is not None else None


def is_covered(coverage: Coverage) -> bool:
    """``coverage.value ≥ coverage.threshold`` (``False`` without sources)."""
    return coverage.value is not None and coverage.value >= coverage.threshold

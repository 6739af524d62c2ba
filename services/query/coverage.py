""""Not covered": whether any retrieved source answers the question (pure; no I/O).

Retrieval always returns the nearest passages, even for a question no paper answers (a
fireworks budget). The decision is one calibrated threshold on a value made of three signals::

    value   = best + question_weight · question_line − unknown_weight · unknown
              + margin_weight · (best − second)
    covered = value ≥ threshold

* ``best``: the first source's ranking score (``scoring``: cosine after language-bias removal,
  blended with the question line for Q&A pairs, plus the keyword bonus); ``second``: the next
  passage's (= ``best`` with one source).
* ``question_line``: the first source's question-line similarity when it is a Q&A pair (0
  otherwise): a prepared question close to the officer's is the strongest sign of an answer.
* ``unknown``: the share of the question's content terms that no indexed paper contains in
  either language (``keyword_index.unknown_terms``): ``dolphins``, ``fireworks``, ``電子煙`` —
  an unanswerable question tends to name a subject the papers never mention, while the
  nearest passages still share its generic words (``budget``, ``政府``).

The weights and the threshold are fitted by ``bench/abstention.py`` on the calibration queries
and the unanswerable questions of ``bench/calibration/`` (never on the evaluation queries) and
kept as the ``QUERY_COVERED_*`` settings; the figures are in ``services/query/README.md``.
"""
from __future__ import annotations

from dataclasses import dataclass

from shared.api import Coverage
from shared.settings import Settings, get_settings


@dataclass(frozen=True)
class CoverageParams:
    """``threshold`` (cosine units) and the weights (cosine units per unit of each signal)."""

    threshold: float
    question_weight: float = 0.0
    unknown_weight: float = 0.0
    margin_weight: float = 0.0

    @classmethod
    def from_settings(cls, s: Settings | None = None) -> CoverageParams:
        """The ``QUERY_COVERED_*`` settings of ``s`` (default: the process settings)."""
        s = s or get_settings()
        return cls(threshold=s.query_covered_threshold, question_weight=s.query_covered_question_weight,
                   unknown_weight=s.query_covered_unknown_weight, margin_weight=s.query_covered_margin_weight)


def decision_value(scores: list[float], question_line: float | None, unknown: float,
                   params: CoverageParams) -> float | None:
    """The value compared with the threshold (module doc); ``None`` without sources.

    Args:
        scores: the sources' ranking scores, best first.
        question_line: the best source's question-line similarity (``None``: not a Q&A pair).
        unknown: share (0..1) of the question's content terms unknown to the index.
    """
    if not scores:
        return None
    best = scores[0]
    second = scores[1] if len(scores) > 1 else best
    return (best + params.question_weight * (question_line or 0.0) - params.unknown_weight * unknown
            + params.margin_weight * (best - second))


def assess(scores: list[float], question_line: float | None, unknown: float, params: CoverageParams) -> Coverage:
    """The coverage of a result (arguments as :func:`decision_value`): covered when the value
    reaches ``params.threshold``; never covered without sources."""
    value = decision_value(scores, question_line, unknown, params)
    best = scores[0] if scores else None
    second = scores[1] if len(scores) > 1 else None
    return Coverage(best=best, second=second, question_line=round(question_line, 4) if question_line is not None
                    else None, unknown=round(unknown, 4),
                    value=round(value, 4) if value is not None else None, threshold=params.threshold)


def is_covered(coverage: Coverage) -> bool:
    """``coverage.value ≥ coverage.threshold`` (``False`` without sources)."""
    return coverage.value is not None and coverage.value >= coverage.threshold

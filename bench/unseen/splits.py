"""The fixed calibration/test split of the unseen queries, stratified per paper and by
(direction, style).

Within one paper the queries of one stratum (e.g. ``en->zh`` + ``english``) alternate between
the halves in document order; which half a stratum starts with is the half that stratum has
fewer of so far over the papers before it; on a tie, the half this paper has fewer of so far,
then the half the whole set has fewer of, then ``calibration``. So each paper's stratum differs
by at most one between the halves, each stratum over the whole set by at most one, and the
papers and the set stay close to half and half.
"""
from __future__ import annotations

from collections import Counter, defaultdict

from bench.unseen.model import Paper

HALVES = ("calibration", "test")


def assign_splits(papers: list[Paper]) -> dict[str, dict[int, str]]:
    """Paper stem → query index (in ``paper.queries``) → ``calibration`` or ``test``."""
    totals: Counter[tuple[str, str, str]] = Counter()
    overall: Counter[str] = Counter()
    out: dict[str, dict[int, str]] = {}
    for paper in papers:
        strata: dict[tuple[str, str], list[int]] = defaultdict(list)
        for n, query in enumerate(paper.queries):
            strata[(f"{query.lang}->{paper.lang}", query.style)].append(n)
        mine: Counter[str] = Counter()
        out[paper.stem] = {}
        for key, indexes in strata.items():
            first = min((0, 1), key=lambda h: (totals[(*key, HALVES[h])], mine[HALVES[h]], overall[HALVES[h]], h))
            for k, n in enumerate(indexes):
                half = HALVES[(first + k) % 2]
                out[paper.stem][n] = half
                totals[(*key, half)] += 1
                mine[half] += 1
                overall[half] += 1
    return out

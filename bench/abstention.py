"""Fitting the "not covered" threshold, and measuring it on held-out questions.

A response is *not covered* when ``best + question_weight · question_line − unknown_weight ·
unknown + margin_weight · (best − second) < threshold`` (``services/query/coverage.py``).
This script runs every question in-process with the query service's own ``retrieve`` against
the running stack's Chroma and embedder (the corpus indexed, as after ``bench/retrieval.py``):

* **fit** on the calibration set: the answerable queries of ``bench/calibration/*.queries.json``
  (Q&A pairs) and ``bench/calibration/passages.answerable.json`` (passages of papers without
  Q&A pairs), and the unanswerable ``bench/calibration/unanswerable.json``. For every weight
  combination of a small grid (``--question-weights``, ``--unknown-weights``,
  ``--margin-weights``) the threshold is chosen to maximise the smaller of precision and recall
  of "not covered" (ties: the middle of the best run of thresholds, so neither class sits on the
  edge); the best combination wins, ties to the one with the smallest weights.
* **held-out** report with the fitted values: the fixture truth queries
  (``../shared/corpus/fixtures/*.truth.json``, answerable) and
  ``bench/calibration/unanswerable_heldout.json``. They are never used to fit.

Precision of "not covered" = unanswerable questions judged not covered / all judged not covered;
recall = unanswerable questions judged not covered / all unanswerable questions. Also printed:
R@3 of the sources (the abstention does not change the ranking) and R@3 of the *covered*
answers (an answerable query judged not covered loses its direct answer).

Scope: the department of the API key (``GET /api/v1/whoami``; ``--department`` to name another,
an admin key without it: every department). Retrieval, the keyword index (BM25 statistics and the
vocabulary of ``unknown``) and the language means are built from that department's chunks only,
so another department's documents — a soak benchmark's, which come and go — do not move the
figures. Upload the corpus into that department first (``legco eval`` with its key).

Run from the repo root:
    .cache/venv/bin/python bench/abstention.py [--margin-weights 0,0.5,1,2] [--json]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import time
from dataclasses import dataclass, replace
from pathlib import Path

from _common import CORPUS, ROOT, indexed_ids_by_file, load_note

from cli import api
from cli.eval_corpus import load_queries
from cli.eval_metrics import hit_rank
from services.query.coverage import CoverageParams, decision_value
from services.query.keyword_index import KeywordIndex
from services.query.keyword_tokens import query_search_form
from services.query.langbias import LanguageMeans
from services.query.lexicon import load_lexicon
from services.query.retrieve import retrieve
from services.query.scoring import ScoringParams
from shared.embeddings import EmbeddingClient
from shared.scope import Scope, meta_in_scope
from shared.settings import get_settings
from shared.vectorstore import VectorStore

CALIBRATION = ROOT / "bench" / "calibration"


@dataclass
class Row:
    """One question: its text, whether a paper answers it, the sources' scores (best first),
    the best source's question-line similarity (``None``: not a Q&A pair), the share of its
    terms unknown to the index, and whether the expected source is in the top 3 (answerable)."""

    query: str
    answerable: bool
    scores: list[float]
    question: float | None
    unknown: float
    rank: int | None = None


def unanswerable(path: Path) -> list[str]:
    """The questions of an ``unanswerable*.json`` file."""
    return [q["query"] for q in json.loads(path.read_text(encoding="utf-8"))["queries"]]


def load_scoped(vectors: VectorStore, scope: Scope) -> tuple[LanguageMeans, KeywordIndex]:
    """The language means and the keyword index of the chunks in ``scope`` only (``None``: every
    department): another department's documents (a soak benchmark's, which come and go) change
    neither the BM25 statistics, the vocabulary of ``unknown``, nor the means."""
    means, keywords = LanguageMeans(), KeywordIndex(load_lexicon())
    vectors.refresh()
    records = [r for r in vectors.iter_chunks() if meta_in_scope(r[2], scope)]
    keywords.load(records)
    docs = {str(meta.get("document_id", "")) for _, _, meta in records}
    means.load([rec for rec in vectors.stats_records() if rec[0] in docs])
    return means, keywords


async def run(answerable: list[tuple[str, set[str], str | None]], unanswered: list[str],
              scope: Scope = None) -> list[Row]:
    """Retrieve every question (top ``QUERY_TOP_K``, the service's default) within ``scope`` and
    record its row; ``answerable``: (query, expected document ids, expected Q&A id; ``None``: any
    chunk of them)."""
    s = get_settings()
    vectors, embedder = VectorStore(s), EmbeddingClient(s)
    means, keywords = load_scoped(vectors, scope)
    params = ScoringParams.from_settings(s)
    rows: list[Row] = []
    todo = [(q, True, docs, qa) for q, docs, qa in answerable] + [(q, False, set(), None) for q in unanswered]
    for q, ok, docs, qa in todo:
        hits = await retrieve(vectors, embedder, q, s.query_top_k, means=means, params=params,
                              candidates=s.query_candidates, keywords=keywords,
                              keyword_candidates_n=s.query_keyword_candidates,
                              duplicate_threshold=s.query_duplicate_threshold, departments=scope)
        found = [h.source.model_dump() for h in hits]
        rank = None
        if ok and qa is not None:
            rank = hit_rank(found, docs, qa)
        elif ok:
            rank = next((n for n, f in enumerate(found, start=1) if f["document_id"] in docs), None)
        rows.append(Row(q, ok, [h.source.score for h in hits], hits[0].question if hits else None,
                        keywords.unknown_share(query_search_form(q), scope), rank))
    return rows


async def caller_scope(url: str, department: str | None) -> list[str] | None:
    """The departments searched: ``[department]`` when given, else the API key's department
    (``GET /api/v1/whoami``), or ``None`` (every department) for an admin key."""
    if department:
        return [department]
    async with api.make_client(url) as client:
        me = await api.call(client, "GET", f"{api.API}/whoami")
    return None if me["role"] == "admin" else [str(me["department"])]


def value(r: Row, p: CoverageParams) -> float | None:
    """The decision value of row ``r`` under ``p``."""
    return decision_value(r.scores, r.question, r.unknown, p)


def confusion(rows: list[Row], p: CoverageParams) -> dict[str, float]:
    """Precision and recall of "not covered" (positives: unanswerable) and the counts."""
    tp = fp = fn = 0
    for r in rows:
        v = value(r, p)
        not_covered = v is None or v < p.threshold
        if not_covered and not r.answerable:
            tp += 1
        elif not_covered:
            fp += 1
        elif not r.answerable:
            fn += 1
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return {"precision": precision, "recall": recall, "tp": tp, "fp": fp, "fn": fn}


def fit_threshold(rows: list[Row], p: CoverageParams) -> tuple[CoverageParams, float]:
    """``p`` with the threshold maximising min(precision, recall) on ``rows`` — the middle of
    the best run of candidate cuts (midpoints between sorted decision values) — and that min."""
    values = sorted({v for r in rows if (v := value(r, p)) is not None})
    cuts = [(a + b) / 2 for a, b in zip(values, values[1:], strict=False)]
    scores = [min(m["precision"], m["recall"]) for t in cuts for m in [confusion(rows, replace(p, threshold=t))]]
    best = max(scores)
    runs: list[list[int]] = []
    for n, sc in enumerate(scores):
        if sc == best and runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        elif sc == best:
            runs.append([n])
    run = max(runs, key=len)
    return replace(p, threshold=round((cuts[run[0]] + cuts[run[-1]]) / 2, 3)), best


def r_at_3(rows: list[Row], p: CoverageParams | None = None) -> float:
    """R@3 of the answerable rows; with ``p``, a row judged not covered counts as a miss."""
    ans = [r for r in rows if r.answerable]
    ok = 0
    for r in ans:
        covered = p is None or (value(r, p) or -9.0) >= p.threshold
        ok += r.rank is not None and r.rank <= 3 and covered
    return ok / len(ans) if ans else float("nan")


def report(name: str, rows: list[Row], p: CoverageParams) -> str:
    """One line: precision, recall, false positives / negatives, R@3 of sources and covered."""
    c = confusion(rows, p)
    return (f"{name}: P {c['precision']:.3f} R {c['recall']:.3f} (answerable judged not covered {c['fp']}, "
            f"unanswerable judged covered {c['fn']}); R@3 {r_at_3(rows):.3f}, covered R@3 {r_at_3(rows, p):.3f}")


def main() -> None:
    """Fit on the calibration set, report on it and on the held-out set."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None, help="gateway URL (default $LEGCO_URL or http://localhost:8080)")
    ap.add_argument("--question-weights", default="0,0.25,0.5")
    ap.add_argument("--unknown-weights", default="0,0.1,0.2,0.3")
    ap.add_argument("--margin-weights", default="0,0.5,1")
    ap.add_argument("--department", default=None,
                    help="department whose documents are searched (default: the API key's; an admin key: every one)")
    ap.add_argument("--json", action="store_true", help="also print every row as JSON")
    a = ap.parse_args()
    url = api.resolve_url(a.url)
    scope = asyncio.run(caller_scope(url, a.department))
    ids = asyncio.run(indexed_ids_by_file(url))

    def answerable(dirs: list[Path]) -> list[tuple[str, set[str], str | None]]:
        qs = load_queries(dirs)
        return [(q.query, set().union(*(ids.get(f, set()) for f in q.files)), q.expected_qa_id) for q in qs]

    passages = json.loads((CALIBRATION / "passages.answerable.json").read_text(encoding="utf-8"))["queries"]
    t0 = time.perf_counter()
    cal = asyncio.run(run(answerable([CALIBRATION]) + [(q["query"], ids.get(q["file"], set()), None)
                                                       for q in passages],
                          unanswerable(CALIBRATION / "unanswerable.json"), scope))
    held = asyncio.run(run(answerable([CORPUS / "fixtures"]), unanswerable(CALIBRATION / "unanswerable_heldout.json"),
                           scope))
    where = ", ".join(scope) if scope else "every department"
    print(f"{load_note()}; {time.perf_counter() - t0:.0f} s; scope: {where}")
    print(f"calibration: {sum(r.answerable for r in cal)} answerable ({len(passages)} of them passages), "
          f"{sum(not r.answerable for r in cal)} unanswerable; held-out: {sum(r.answerable for r in held)} "
          f"answerable (fixture truth), {sum(not r.answerable for r in held)} unanswerable")
    grid = [CoverageParams(0.0, float(q), float(u), float(m)) for q in a.question_weights.split(",")
            for u in a.unknown_weights.split(",") for m in a.margin_weights.split(",")]
    fits = sorted((fit_threshold(cal, p) for p in grid),
                  key=lambda f: (-f[1], f[0].question_weight + f[0].unknown_weight + f[0].margin_weight))
    print("best weight combinations (fitted on calibration):")
    for p, _ in fits[:5]:
        print(f"  question {p.question_weight} unknown {p.unknown_weight} margin {p.margin_weight} "
              f"threshold {p.threshold:.3f} | {report('calibration', cal, p)} | {report('held-out', held, p)}")
    simple = next(f[0] for f in fits if f[0].question_weight == f[0].unknown_weight == f[0].margin_weight == 0)
    print(f"  score only: threshold {simple.threshold:.3f} | {report('calibration', cal, simple)} | "
          f"{report('held-out', held, simple)}")
    p = fits[0][0]
    print(f"chosen: QUERY_COVERED_THRESHOLD={p.threshold} QUERY_COVERED_QUESTION_WEIGHT={p.question_weight} "
          f"QUERY_COVERED_UNKNOWN_WEIGHT={p.unknown_weight} QUERY_COVERED_MARGIN_WEIGHT={p.margin_weight}")
    print(report("calibration", cal, p))
    print(report("held-out", held, p))
    if a.json:
        print(json.dumps([r.__dict__ | {"set": name} for name, rows in (("calibration", cal), ("heldout", held))
                          for r in rows], ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()

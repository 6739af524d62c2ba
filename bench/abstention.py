"""Fitting the "not covered" weights and thresholds, and measuring them on held-out questions.

A response is *covered* when ``max_i≤sources (score_i + question_weight · question_line_i +
terms_weight · terms_i) − unknown_weight · unknown + margin_weight · (best − second)`` reaches
the threshold of the question's language (``services/query/coverage.py``). This script runs
every question in-process with the query service's own ``retrieve`` and coverage code against
the running stack's Chroma and embedder (the corpus indexed, as after ``bench/retrieval.py``):

* **fit** on the calibration set: the answerable queries of ``bench/calibration/*.queries.json``
  (Q&A pairs) and ``bench/calibration/passages.answerable.json`` (passages of papers without
  Q&A pairs), and the unanswerable ``bench/calibration/unanswerable.json``. For every
  combination of a small grid (``--question-weights``, ``--terms-weights``,
  ``--unknown-weights``, ``--margin-weights``, ``--sources``, ``--english-offsets``) the
  threshold is chosen to maximise the smaller of precision and recall of "not covered" (ties:
  the middle of the best run of thresholds, so neither class sits on the edge); an English
  question's threshold is that threshold minus the combination's English offset. The best
  combination wins, ties to the smallest weights, then the fewest sources.
* **held-out** report with the fitted values: the fixture truth queries
  (``../shared/corpus/fixtures/*.truth.json``, answerable) and
  ``bench/calibration/unanswerable_heldout.json``. They are never used to fit. Also printed:
  both sets together ("combined"), and the calibration questions by batch (``"batch": 2``: the
  questions added with the term-share signal; "batch 1 + held-out" is the set of the figures
  measured before them).

Precision of "not covered" = unanswerable questions judged not covered / all judged not covered;
recall = unanswerable questions judged not covered / all unanswerable questions. Also printed:
R@3 of the sources (the abstention does not change the ranking) and R@3 of the *covered*
answers (an answerable query judged not covered loses its direct answer).

Scope: the department of the API key (``GET /api/v1/whoami``; ``--department`` to name another,
an admin key without it: every department). Retrieval, the keyword index (BM25 statistics, the
vocabulary of ``unknown`` and the term weights) and the language means are built from that
department's chunks only, so another department's documents — a soak benchmark's, which come
and go — do not move the figures. Upload the corpus into that department first (``legco eval``
with its key).

Run from the repo root:
    .cache/venv/bin/python bench/abstention.py [--sources 1,2] [--json]
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from _common import CORPUS, ROOT, floats, indexed_ids_by_file, load_note

import numpy as np

from cli import api
from cli.eval_corpus import load_queries
from cli.eval_metrics import hit_rank
from services.query.answer import evidence_of
from services.query.coverage import CoverageParams, SourceEvidence, decision_value
from services.query.keyword_index import KeywordIndex
from services.query.keyword_tokens import query_search_form
from services.query.langbias import LanguageMeans
from services.query.lexicon import load_lexicon
from services.query.retrieve import retrieve
from services.query.scoring import ScoringParams
from shared.embeddings import EmbeddingClient
from shared.lang import detect_language
from shared.scope import Scope, meta_in_scope
from shared.settings import get_settings
from shared.textnorm import normalize_for_search
from shared.vectorstore import VectorStore

CALIBRATION = ROOT / "bench" / "calibration"


@dataclass
class Row:
    """One question: its text, whether a paper answers it, every source's coverage signals (best
    first; term shares for all of them), the share of its terms unknown to the index, its
    language and the rank of the expected source (answerable; ``None``: not in the top k)."""

    query: str
    answerable: bool
    evidence: list[SourceEvidence]
    unknown: float
    lang: str
    rank: int | None = None


def unanswerable(path: Path) -> list[str]:
    """The questions of an ``unanswerable*.json`` file."""
    return [q["query"] for q in json.loads(path.read_text(encoding="utf-8"))["queries"]]


def batches(*paths: Path) -> dict[str, int]:
    """Question → the batch it was written in (``"batch"``; 1 when absent) in these files."""
    return {q["query"]: int(q.get("batch", 1)) for f in paths
            for q in json.loads(f.read_text(encoding="utf-8"))["queries"]}


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
        kw = query_search_form(q)
        every = CoverageParams(0.0, sources=max(1, len(hits)))  # term shares of every source
        rows.append(Row(q, ok, evidence_of(hits, keywords.query_terms(kw, scope), every),
                        keywords.unknown_share(kw, scope), detect_language(normalize_for_search(q)), rank))
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
    return decision_value(r.evidence, r.unknown, p)


def judged_covered(r: Row, p: CoverageParams) -> bool:
    """Whether the service would call row ``r`` covered under ``p``."""
    v = value(r, p)
    return v is not None and v >= p.threshold_for(r.lang)


def confusion(rows: list[Row], p: CoverageParams) -> dict[str, float]:
    """Precision and recall of "not covered" (positives: unanswerable) and the counts."""
    tp = fp = fn = 0
    for r in rows:
        not_covered = not judged_covered(r, p)
        if not_covered and not r.answerable:
            tp += 1
        elif not_covered:
            fp += 1
        elif not r.answerable:
            fn += 1
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return {"precision": precision, "recall": recall, "tp": tp, "fp": fp, "fn": fn}


def fit_threshold(rows: list[Row], p: CoverageParams, english_offset: float = 0.0) -> tuple[CoverageParams, float]:
    """``p`` with the threshold maximising min(precision, recall) on ``rows`` — the middle of
    the best run of candidate cuts (midpoints between sorted decision values) — and that min.
    An English question's value is raised by ``english_offset`` for the fit, i.e. its threshold
    is the fitted one minus the offset (``english_threshold``; ``None`` for offset 0)."""
    vals = np.array([v + (english_offset if r.lang == "en" else 0.0) if (v := value(r, p)) is not None
                     else -np.inf for r in rows])
    positive = np.array([not r.answerable for r in rows])
    finite = np.unique(vals[np.isfinite(vals)])
    cuts = (finite[1:] + finite[:-1]) / 2
    if not len(cuts):
        return p, 0.0
    tp = np.searchsorted(np.sort(vals[positive]), cuts)     # unanswerable below the cut: not covered
    fp = np.searchsorted(np.sort(vals[~positive]), cuts)    # answerable below the cut
    precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1), 1.0)
    recall = tp / max(int(positive.sum()), 1)
    scores = np.round(np.minimum(precision, recall), 12)
    best = float(scores.max())
    runs: list[list[int]] = []
    for n in np.flatnonzero(scores == best):
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(int(n))
        else:
            runs.append([int(n)])
    run = max(runs, key=len)
    t = round(float(cuts[run[0]] + cuts[run[-1]]) / 2, 3)
    return replace(p, threshold=t, english_threshold=round(t - english_offset, 3) if english_offset else None), best


def r_at_3(rows: list[Row], p: CoverageParams | None = None) -> float:
    """R@3 of the answerable rows; with ``p``, a row judged not covered counts as a miss."""
    ans = [r for r in rows if r.answerable]
    ok = sum(r.rank is not None and r.rank <= 3 and (p is None or judged_covered(r, p)) for r in ans)
    return ok / len(ans) if ans else float("nan")


def report(name: str, rows: list[Row], p: CoverageParams) -> str:
    """One line: precision, recall, the counts, R@3 of sources and of covered answers."""
    c = confusion(rows, p)
    return (f"{name}: P {c['precision']:.3f} R {c['recall']:.3f} (unanswerable judged not covered {c['tp']}, "
            f"answerable judged not covered {c['fp']}, unanswerable judged covered {c['fn']}); "
            f"R@3 {r_at_3(rows):.3f}, covered R@3 {r_at_3(rows, p):.3f}")


def describe(p: CoverageParams) -> str:
    """The weights and thresholds of ``p`` on one line."""
    en = f" english threshold {p.english_threshold:.3f}" if p.english_threshold is not None else ""
    return (f"question {p.question_weight} terms {p.terms_weight} unknown {p.unknown_weight} "
            f"margin {p.margin_weight} sources {p.sources} threshold {p.threshold:.3f}{en}")


def main() -> None:
    """Fit on the calibration set, report on it, on the held-out set and on both."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None, help="gateway URL (default $LEGCO_URL or http://localhost:8080)")
    ap.add_argument("--question-weights", default="0,0.25,0.5,0.75,1,1.25,1.5")
    ap.add_argument("--terms-weights", default="0,0.3,0.5,0.7,1")
    ap.add_argument("--unknown-weights", default="0,0.1,0.2,0.3,0.4")
    ap.add_argument("--margin-weights", default="0")
    ap.add_argument("--sources", default="1,2,3", help="how many of the first sources may carry the answer")
    ap.add_argument("--english-offsets", default="0,0.02,0.04,0.06,0.08,0.1,0.12,0.14,0.16,0.2",
                    help="how much lower the threshold of English questions may be")
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
    grid = [(CoverageParams(0.0, question_weight=q, unknown_weight=u, margin_weight=m, terms_weight=t, sources=int(k)),
             e) for q, t, u, m, k, e in itertools.product(floats(a.question_weights), floats(a.terms_weights),
                                                           floats(a.unknown_weights), floats(a.margin_weights),
                                                           floats(a.sources), floats(a.english_offsets))]
    fits = sorted(((*fit_threshold(cal, p, e), e) for p, e in grid),
                  key=lambda f: (-f[1], f[0].question_weight + f[0].terms_weight + f[0].unknown_weight
                                 + f[0].margin_weight + f[2], f[0].sources))
    both = cal + held
    batch = batches(CALIBRATION / "unanswerable.json", CALIBRATION / "passages.answerable.json")
    first = [r for r in cal if batch.get(r.query, 1) == 1]  # the set the earlier figures were measured on
    print("best combinations (fitted on calibration):")
    for p, _, _ in fits[:5]:
        print(f"  {describe(p)} | {report('calibration', cal, p)} | {report('held-out', held, p)}")
    for label, keep in (("score only", lambda p: p.question_weight == p.terms_weight == p.unknown_weight
                         == p.margin_weight == 0 and p.sources == 1 and p.english_threshold is None),
                        ("without term share", lambda p: p.terms_weight == 0 and p.sources == 1
                         and p.english_threshold is None)):
        other = next((f[0] for f in fits if keep(f[0])), None)
        if other is not None:
            print(f"  {label}: {describe(other)} | {report('calibration', cal, other)} | "
                  f"{report('held-out', held, other)}")
    p = fits[0][0]
    en = p.english_threshold if p.english_threshold is not None else ""
    print(f"chosen: QUERY_COVERED_THRESHOLD={p.threshold} QUERY_COVERED_ENGLISH_THRESHOLD={en} "
          f"QUERY_COVERED_QUESTION_WEIGHT={p.question_weight} QUERY_COVERED_TERMS_WEIGHT={p.terms_weight} "
          f"QUERY_COVERED_UNKNOWN_WEIGHT={p.unknown_weight} QUERY_COVERED_MARGIN_WEIGHT={p.margin_weight} "
          f"QUERY_COVERED_SOURCES={p.sources}")
    now = CoverageParams.from_settings()
    for name, q in (("chosen", p), ("settings now", now)):
        print(f"{name}: {describe(q)}")
        for set_name, rows in (("calibration", cal), ("held-out", held), ("combined", both),
                               ("calibration batch 1", first), ("calibration batch 1 + held-out", first + held),
                               ("calibration batch 2", [r for r in cal if r not in first])):
            print("  " + report(set_name, rows, q))
    if a.json:
        print(json.dumps([asdict(r) | {"set": name} for name, rows in (("calibration", cal), ("heldout", held))
                          for r in rows], ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()

"""Choosing the retrieval weights on a held-out calibration set, never on the evaluation queries.

``bench/calibration/*.queries.json`` holds 58 queries written by someone who had not seen the
evaluation queries (``*.truth.json`` / ``hk_ld_ec_ordinance_guide_faq_en.queries.json``): one
paraphrased question per Q&A pair of the fixture papers L, E (A1–D7), B and the English FAQ
guide, about half across languages. This script sweeps one scoring weight in-process against
the running stack's Chroma and embedder (same code as the query service: ``retrieve``) and
prints Recall@1/3 and MRR@10 per value, overall and by direction.

Run from the repo root after ``bench/retrieval.py`` (or ``legco eval``) has indexed the corpus:
    .cache/venv/bin/python bench/calibrate.py [--param keyword_weight] [--values 0,0.05,0.1,0.2]
        [--queries bench/calibration]

Settings (Chroma/embeddings host and port) come from the environment like the services'.
"""
from __future__ import annotations

import argparse
import asyncio
import dataclasses
import time
from pathlib import Path

from _common import ROOT, indexed_ids_by_file

from cli import api
from cli.eval_corpus import EvalQuery, load_queries
from cli.eval_metrics import hit_rank, summarize
from services.query.follow import Follower
from services.query.keyword_index import KeywordIndex
from services.query.langbias import LanguageMeans
from services.query.lexicon import load_lexicon
from services.query.retrieve import retrieve
from services.query.scoring import ScoringParams
from shared.embeddings import EmbeddingClient
from shared.lang import detect_language
from shared.settings import get_settings
from shared.vectorstore import VectorStore

CALIBRATION = ROOT / "bench" / "calibration"


async def sweep(queries: list[EvalQuery], ids: dict[str, set[str]], param: str, values: list[float]) -> None:
    """Print the metrics of every value of ``param`` (a ``ScoringParams`` field)."""
    s = get_settings()
    vectors, embedder = VectorStore(s), EmbeddingClient(s)
    means, keywords = LanguageMeans(), KeywordIndex(load_lexicon())
    Follower(vectors, keywords, means).load()  # the query service's start-up scan
    base = ScoringParams.from_settings(s)
    print(f"{param:>16} {'group':14} {'n':>3} {'R@1':>6} {'R@3':>6} {'MRR@10':>7}")
    for value in values:
        params = dataclasses.replace(base, **{param: value})
        groups: dict[str, list[int | None]] = {}
        for q in queries:
            expected = set().union(*(ids.get(f, set()) for f in q.files))
            hits = await retrieve(vectors, embedder, q.query, 10, means=means, params=params,
                                  candidates=s.query_candidates, keywords=keywords,
                                  keyword_candidates_n=s.query_keyword_candidates,
                                  duplicate_threshold=s.query_duplicate_threshold)
            rank = hit_rank([h.source.model_dump() for h in hits], expected, q.expected_qa_id)
            qlang = q.lang or detect_language(q.query)
            for g in ("overall", f"{qlang}->{q.doc_lang or '?'}"):
                groups.setdefault(g, []).append(rank)
        for g, ranks in sorted(groups.items()):
            m = summarize(ranks)
            print(f"{value:>16} {g:14} {m['n']:>3} {m['R@1']:>6.3f} {m['R@3']:>6.3f} {m['MRR@10']:>7.3f}")


def main() -> None:
    """Parse the flags and run the sweep."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None, help="gateway URL (default $LEGCO_URL or http://localhost:8080)")
    ap.add_argument("--param", default="keyword_weight", choices=[f.name for f in dataclasses.fields(ScoringParams)])
    ap.add_argument("--values", default="0,0.025,0.05,0.075,0.1,0.15,0.2,0.3")
    ap.add_argument("--queries", type=Path, nargs="*", default=[CALIBRATION],
                    help="folders with *.queries.json / *.truth.json (default bench/calibration; pass the "
                         "evaluation folders only to report a sensitivity table, never to pick a value)")
    a = ap.parse_args()
    queries = load_queries(a.queries)
    ids = asyncio.run(indexed_ids_by_file(api.resolve_url(a.url)))
    missing = sorted({f for q in queries for f in q.files[:1] if f not in ids})
    if missing:
        raise SystemExit(f"not indexed in the stack: {', '.join(missing)} (run bench/retrieval.py first)")
    t0 = time.perf_counter()
    asyncio.run(sweep(queries, ids, a.param, [float(v) for v in a.values.split(",")]))
    print(f"{len(queries)} calibration queries; {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()

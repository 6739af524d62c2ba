"""Retrieval quality of the running stack: ``legco eval`` on the corpus fixtures and the real
papers together, in one collection (every paper is a distractor for every other).

Run from the repo root (stack up; documents not yet indexed are ingested with the question
strategy, already indexed ones are reused by SHA-256):
    .cache/venv/bin/python bench/retrieval.py [--url URL] [--json]
    .cache/venv/bin/python bench/retrieval.py --unseen [--split test|calibration]

``--unseen`` runs the queries of ``bench/unseen/papers`` (13 generated papers, 237 queries; see
``bench/unseen/README.md``) instead, with the fixtures and the real papers in the same collection
as distractors whose own queries are not run.

Prints Recall@1/3/5 and MRR@10 overall, by query language, by direction (query language →
document language), per query file, for the Simplified-Chinese variants, and the misses.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import time

from _common import CORPUS, ROOT, load_note

from cli import api
from cli.eval_cmd import evaluate, format_report


def main() -> None:
    """Parse the flags, run the evaluation and print the table (or JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None, help="gateway URL (default $LEGCO_URL or http://localhost:8080)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--unseen", action="store_true", help="bench/unseen queries, corpus as distractors")
    ap.add_argument("--split", default=None, choices=("calibration", "test"), help="with --unseen: one half only")
    a = ap.parse_args()
    t0 = time.perf_counter()
    corpus = [CORPUS / "fixtures", CORPUS / "real"]
    if a.unseen:
        report = asyncio.run(evaluate(api.resolve_url(a.url), [ROOT / "bench" / "unseen" / "papers"],
                                      distractors=corpus, split=a.split))
    elif a.split:
        ap.error("--split needs --unseen")
    else:
        report = asyncio.run(evaluate(api.resolve_url(a.url), corpus))
    if a.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    print(f"{len(report['documents'])} documents, {sum(1 for r in report['results'] if r['variant'] == 'original')} "
          f"queries; {time.perf_counter() - t0:.0f} s; {load_note()}")
    print(format_report(report))


if __name__ == "__main__":
    main()

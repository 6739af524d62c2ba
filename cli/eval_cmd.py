"""``legco eval DIR... [--distractors DIR]... [--split NAME] [--json]``: retrieval quality of the
running stack on evaluation folders.

1. Ingests every PDF/DOCX/TXT in the folders (and in the ``--distractors`` folders, whose query
   files are not run: their papers only compete in the same collection) with the question
   strategy; a document already indexed (or failed) with the same SHA-256 and strategy is
   reused, not uploaded again.
2. Runs every query (with ``--split NAME``, only those labelled ``"split": NAME``, e.g. the
   ``test`` half of ``bench/unseen/papers``) of the folders' ``*.truth.json`` / ``*.queries.json`` files through
   ``POST /api/v1/query`` (top 10) — plus, unless ``--no-simplified``, each query converted
   to Simplified Chinese with OpenCC ``t2s`` (English queries stay as they are).
3. Prints Recall@1/3/5 and MRR@10 overall, by query language, by direction (query language →
   document language), per query file, by query style and split where the queries have them,
   and the misses (rank > 1).

A hit is a source whose ``question_id`` is the expected one and whose document is the expected
paper (the file the query file names, or its DOCX/TXT rendition) — or one of the renditions
collapsed into it (``also_in``): the same passage counts once, at its best place. Exit code 0, or 1 on an API
error / a document that is not indexed.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from cli import api
from cli.eval_corpus import EvalQuery, evaluation_files, load_queries, sha256_file
from cli.eval_metrics import group_results, hit_rank
from shared.lang import detect_language
from shared.settings import ClientSettings

STRATEGY = "question"
TOP_K = 10


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``eval`` subcommand."""
    p = sub.add_parser("eval", help="measure retrieval (Recall@k, MRR) on evaluation folders")
    p.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="folders with documents and query files")
    p.add_argument("--distractors", action="append", type=Path, default=[], metavar="DIR",
                   help="folder whose documents are ingested too but whose queries are not run (repeatable)")
    p.add_argument("--split", default=None, metavar="NAME",
                   help="run only the queries labelled with this split (e.g. calibration, test)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--no-simplified", action="store_true", help="skip the Simplified-Chinese query variants")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds to wait for ingestion (default $LEGCO_WAIT_TIMEOUT_S or 1800)")
    p.add_argument("--concurrency", type=int, default=4, help="queries in flight (default 4)")
    p.set_defaults(func=run)


async def ensure_ingested(client: Any, files: list[Path], timeout_s: float) -> dict[str, dict[str, Any]]:
    """Upload the files not yet in the stack (by SHA-256 + strategy) and wait until every one is
    ``indexed`` or ``failed``. Returns filename → document record.

    Raises:
        api.ApiError: an upload or listing failed; TimeoutError: not done within ``timeout_s``.
    """
    listing = await api.list_documents(client)
    by_sha = {(d.get("sha256"), d.get("strategy")): d for d in listing.get("documents", [])}
    ids: dict[str, str] = {}
    for f in files:
        known = by_sha.get((sha256_file(f), STRATEGY))
        ids[f.name] = known["document_id"] if known else (await api.upload(client, f, STRATEGY))["document_id"]
    deadline = time.monotonic() + timeout_s
    while True:
        docs = {d["document_id"]: d for d in (await api.list_documents(client)).get("documents", [])}
        recs = {name: docs.get(i) for name, i in ids.items()}
        done = {name: r for name, r in recs.items() if r and r.get("status") in ("indexed", "failed")}
        if len(done) == len(recs):
            return done
        if time.monotonic() > deadline:
            pending = [n for n, r in recs.items() if not r or r.get("status") not in ("indexed", "failed")]
            raise TimeoutError(f"not indexed after {timeout_s:.0f}s: {', '.join(pending)}")
        await asyncio.sleep(1.0)


async def document_language(client: Any, document_id: str) -> str:
    """``zh``/``en`` of an indexed document, from its stored chunk texts."""
    got = await api.call(client, "GET", f"{api.API}/documents/{document_id}/chunks")
    return detect_language(" ".join(c.get("text", "") for c in got.get("chunks", [])))


def to_simplified(text: str) -> str:
    """``text`` converted to Simplified Chinese (OpenCC ``t2s``)."""
    import opencc

    converted: str = opencc.OpenCC("t2s").convert(text)
    return converted


async def run_queries(client: Any, queries: list[EvalQuery], records: dict[str, dict[str, Any]],
                      simplified: bool, concurrency: int) -> list[dict[str, Any]]:
    """Query the stack for every query (and its Simplified variant) and rank the expected pair.

    Returns one result dict per query run: ``query``, ``variant``, ``file``, ``kind``, ``style``,
    ``split``, ``expected_qa_id``, ``query_lang``, ``doc_lang``, ``rank`` (1-based or ``None``) and ``top``
    (the first three sources as ``filename#question_id``).
    """
    doc_langs: dict[str, str] = {}
    jobs: list[tuple[EvalQuery, str, str]] = []
    for q in queries:
        jobs.append((q, q.query, "original"))
        if simplified:  # every query, so the variant group compares with the original one
            jobs.append((q, to_simplified(q.query), "simplified"))
    sem = asyncio.Semaphore(max(concurrency, 1))

    async def one(q: EvalQuery, text: str, variant: str) -> dict[str, Any]:
        expected = {records[f]["document_id"] for f in q.files if records.get(f)}
        for doc_id in expected:
            if doc_id not in doc_langs:
                doc_langs[doc_id] = q.doc_lang or await document_language(client, doc_id)
        async with sem:
            resp = await api.call(client, "POST", f"{api.API}/query", json={"question": text, "top_k": TOP_K})
        sources = resp.get("sources", [])
        rank = hit_rank(sources, expected, q.expected_qa_id)
        main_doc = records.get(q.files[0], {}).get("document_id")
        return {"query": q.query, "asked": text, "variant": variant, "file": q.source, "kind": q.kind,
                "style": q.style, "split": q.split,
                "expected_qa_id": q.expected_qa_id, "query_lang": q.lang or detect_language(q.query),
                "doc_lang": doc_langs.get(main_doc or "", q.doc_lang or "?"), "rank": rank,
                "top": [f"{s.get('filename')}#{s.get('question_id') or '-'}:{s.get('matched_by')}"
                        for s in sources[:3]]}

    return list(await asyncio.gather(*(one(*j) for j in jobs)))


def format_report(report: dict[str, Any]) -> str:
    """Plain-text tables: metrics per group, then the misses."""
    lines = [f"{'group':48} {'n':>4} {'R@1':>6} {'R@3':>6} {'R@5':>6} {'MRR@10':>7}"]
    for g, m in report["groups"].items():
        lines.append(f"{g:48} {m['n']:>4} {m['R@1']:>6.3f} {m['R@3']:>6.3f} {m['R@5']:>6.3f} {m['MRR@10']:>7.3f}")
    lines.append("")
    lines.append("misses (rank > 1):")
    for r in report["misses"]:
        lines.append(f"  [{r['rank'] or '>10'}] {r['file']} {r['expected_qa_id']} ({r['variant']}, "
                     f"{r['query_lang']}->{r['doc_lang']}) {r['asked']}  top: {', '.join(r['top'])}")
    failed = [n for n, d in report["documents"].items() if d["status"] != "indexed"]
    if failed:
        lines.append("")
        lines.append("documents not indexed: " + ", ".join(failed))
    return "\n".join(lines)


async def wait_for_keyword_search(client: Any, timeout_s: float, poll_s: float = 1.0) -> None:
    """Wait until answers include the keyword side (``QueryResponse.keyword_search``): right after
    a restart of the query service its keyword index is still loading, and figures measured then
    are dense-only (R@1 0.842 instead of 0.965 on fixtures + real, once).

    Raises:
        TimeoutError: still loading after ``timeout_s`` seconds.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        resp = await api.call(client, "POST", f"{api.API}/query", json={"question": "evaluation", "top_k": 1})
        if resp.get("keyword_search", True):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"the keyword index was still loading after {timeout_s:.0f} s")
        await asyncio.sleep(poll_s)


async def evaluate(url: str, dirs: list[Path], simplified: bool = True, timeout_s: float | None = None,
                   concurrency: int = 4, settings: ClientSettings | None = None,
                   distractors: list[Path] | None = None, split: str | None = None) -> dict[str, Any]:
    """Ingest (or reuse) the folders' documents, run their queries and return the report:
    ``documents`` (filename → status, document_id), ``groups`` (see ``group_results``),
    ``results`` (every query) and ``misses`` (results with rank ≠ 1).

    ``timeout_s``: seconds to wait for ingestion, default ``settings.wait_timeout_s``;
    ``settings``: the client settings, default ``ClientSettings()``; ``distractors``: folders
    whose documents are ingested as well but whose queries are not run; ``split``: run only the
    queries with that ``split`` label.

    Raises:
        api.ApiError, TimeoutError, ValueError (bad query file, two documents with one name, or
        no query in ``split``).
    """
    settings = settings or ClientSettings()
    queries = load_queries(dirs, split)
    if split is not None and not queries:
        raise ValueError(f"no query is labelled split {split!r} in {', '.join(map(str, dirs))}")
    files = evaluation_files(dirs, distractors or [])
    async with api.make_client(url, settings) as client:
        records = await ensure_ingested(client, files, settings.wait_timeout_s if timeout_s is None else timeout_s)
        await wait_for_keyword_search(client, settings.wait_timeout_s if timeout_s is None else timeout_s)
        results = await run_queries(client, queries, records, simplified, concurrency)
    return {"documents": {n: {"status": r["status"], "document_id": r["document_id"],
                              "chunk_count": r.get("chunk_count")} for n, r in records.items()},
            "groups": group_results(results), "results": results,
            "misses": [r for r in results if r["rank"] != 1]}


def run(args: argparse.Namespace) -> int:
    """Run the command; exit code 1 on an API error or timeout."""
    missing = [d for d in args.dirs + args.distractors if not d.is_dir()]
    if missing:
        print(f"error: not a folder: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    try:
        report = asyncio.run(evaluate(args.url, args.dirs, not args.no_simplified, args.timeout,
                                      args.concurrency, args.client, args.distractors, args.split))
    except (api.ApiError, TimeoutError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(json.dumps(report, ensure_ascii=False, indent=2) if args.json else format_report(report))
    return 0

"""Retrieval metrics over ranked results (pure functions).

A query's ``rank`` is the 1-based position of the first hit among the returned sources, or
``None`` when no hit is in them. Recall@k = share of queries with rank ≤ k; MRR@10 = mean of
1/rank over queries (0 when rank is ``None`` or > 10) — the usual IR definitions
(Manning, Raghavan & Schütze, *Introduction to Information Retrieval*, ch. 8).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any

KS: tuple[int, ...] = (1, 3, 5)


def hit_rank(sources: list[dict[str, Any]], expected_documents: set[str], qa_id: str) -> int | None:
    """1-based position of the first source that is the expected Q&A pair (``question_id``) of
    one of ``expected_documents`` — itself or through a rendition collapsed into it
    (``also_in``); ``None`` when none is."""
    for n, s in enumerate(sources, start=1):
        docs = {s.get("document_id")} | {r.get("document_id") for r in s.get("also_in") or []}
        if str(s.get("question_id")) == qa_id and docs & expected_documents:
            return n
    return None


def summarize(ranks: list[int | None]) -> dict[str, float | int]:
    """``{"n", "R@1", "R@3", "R@5", "MRR@10"}`` for a list of ranks (values 0..1; ``n`` = count)."""
    n = len(ranks)
    out: dict[str, float | int] = {"n": n}
    for k in KS:
        out[f"R@{k}"] = sum(1 for r in ranks if r is not None and r <= k) / n if n else 0.0
    out["MRR@10"] = sum(1 / r for r in ranks if r is not None and r <= 10) / n if n else 0.0
    return out


def group_results(results: list[dict[str, Any]]) -> dict[str, dict[str, float | int]]:
    """Metrics per group. Every result has ``rank``, ``query_lang``, ``doc_lang``, ``file``,
    ``kind`` (``truth``/``queries``) and ``variant`` (``original``/``simplified``).

    Groups: ``overall`` (original queries), ``lang:<query lang>``, ``direction:<q>-><doc>``,
    ``kind:<kind>``, ``file:<query file>``, and for results that carry them ``style:<style>``
    and ``split:<split>``; the Simplified-Chinese variants only in ``simplified:<kind>`` and
    ``simplified:overall`` (compare with ``kind:<kind>``/``overall``).
    """
    groups: dict[str, list[int | None]] = defaultdict(list)
    for r in results:
        if r["variant"] == "simplified":
            groups[f"simplified:{r['kind']}"].append(r["rank"])
            groups["simplified:overall"].append(r["rank"])
            continue
        groups["overall"].append(r["rank"])
        groups[f"lang:{r['query_lang']}"].append(r["rank"])
        groups[f"direction:{r['query_lang']}->{r['doc_lang']}"].append(r["rank"])
        groups[f"kind:{r['kind']}"].append(r["rank"])
        groups[f"file:{r['file']}"].append(r["rank"])
        for label in ("style", "split"):
            if r.get(label):
                groups[f"{label}:{r[label]}"].append(r["rank"])
    return {k: summarize(v) for k, v in sorted(groups.items())}

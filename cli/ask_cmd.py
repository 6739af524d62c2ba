"""``legco ask "question" [--top-k N] [--json]``: ask the query API and print the answer with
its sources."""
from __future__ import annotations

import argparse
from typing import Any

from cli import api
from cli.output import show

KEYWORDS_LOADING = ("keyword search is still loading after a restart of the query service; this answer comes "
                    "from meaning alone and may miss exact names and figures. Ask again in a minute.")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``ask`` subcommand."""
    p = sub.add_parser("ask", help="ask a question about the indexed documents")
    p.add_argument("question")
    p.add_argument("--top-k", type=int, default=5, help="number of sources (1-50, default 5)")
    p.add_argument("--json", action="store_true", help="print the raw JSON response")
    p.set_defaults(func=run)


def format_source(n: int, src: dict[str, Any], base_url: str) -> list[str]:
    """Lines describing source ``n`` (1-based): filename, page or question id and text,
    score, and the absolute URL of the page PDF (``base_url`` + the API's relative link)."""
    where = []
    if src.get("question_id"):
        where.append(f"question {src['question_id']}")
    if src.get("page_number"):
        where.append(f"page {src['page_number']}")
    rng = src.get("source_page_range")
    if rng and rng[0] != rng[1]:
        where.append(f"pages {rng[0]}-{rng[1]}")
    lines = [f"[{n}] {src.get('filename') or src.get('document_id')}"
             + (f" - {', '.join(where)}" if where else "") + f"  (score {src.get('score', 0):.3f})"]
    if src.get("question_text"):
        lines.append(f"    Q: {src['question_text']}")
    if src.get("topic_section"):
        lines.append(f"    topic: {src['topic_section']}")
    if src.get("pdf_url"):
        lines.append(f"    {base_url}{src['pdf_url']}")
    return lines


def print_answer(resp: dict[str, Any], base_url: str) -> None:
    """Print the answer, its mode/notice and the numbered sources."""
    print(resp.get("answer", "").strip())
    print()
    mode = resp.get("answer_mode", "?")
    if resp.get("llm_model"):
        mode += f" ({resp['llm_model']})"
    print(f"answer mode: {mode}")
    if resp.get("notice"):
        print(f"notice: {resp['notice']}")
    if resp.get("guard"):
        print(f"guard: {resp['guard']} (the generated answer was replaced by the answer from the papers)")
    if resp.get("keyword_search") is False:
        print(f"notice: {KEYWORDS_LOADING}")
    sources = resp.get("sources") or []
    print(f"\nsources ({len(sources)}):")
    for i, src in enumerate(sources, start=1):
        print("\n".join(format_source(i, src, base_url)))


async def _ask(args: argparse.Namespace) -> dict[str, Any]:
    async with api.make_client(args.url, args.client) as client:
        return await api.query(client, args.question, args.top_k)


def run(args: argparse.Namespace) -> int:
    """Run the command; exit code 1 on an API error."""
    return show(_ask(args), args.json, lambda resp: print_answer(resp, args.url))

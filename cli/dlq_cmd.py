"""``legco dlq list [--all] [--json]`` and ``legco dlq replay [DOCUMENT_ID...|--all] [--stage S]``:
the events the pipeline's stages gave up on (the dead-letter topic, read back by the gateway),
and their replay once the cause is fixed (admin keys)."""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from cli import api
from cli.output import show
from shared.settings import ClientSettings


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``dlq`` subcommand and its ``list`` / ``replay`` actions."""
    p = sub.add_parser("dlq", help="dead letters: list them, replay them (admin)")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    ls = actions.add_parser("list", help="dead-lettered documents, newest first")
    ls.add_argument("--all", action="store_true", help="every dead letter, not only the latest per document")
    ls.add_argument("--json", action="store_true", help="print the raw JSON response")
    ls.set_defaults(func=run_list)
    rp = actions.add_parser("replay", help="republish dead-lettered events to the stage that gave up")
    rp.add_argument("documents", nargs="*", metavar="DOCUMENT_ID", help="documents to replay")
    rp.add_argument("--all", action="store_true", help="every dead-lettered document that is failed")
    rp.add_argument("--stage", default=None, help="only dead letters of this stage (parsing, tables, splitting, "
                                                  "embedding), consumer group or source topic")
    rp.add_argument("--json", action="store_true", help="print the raw JSON response")
    rp.set_defaults(func=run_replay)


def _console() -> Console:
    return Console() if sys.stdout.isatty() else Console(width=200)


def print_letters(listing: dict[str, Any]) -> None:
    """One row per dead letter: time, document, department, stage, attempts, status, reason."""
    table = Table(show_edge=False, pad_edge=False)
    for col in ("time", "filename", "department", "stage", "attempts", "status", "document", "reason"):
        table.add_column(col, justify="right" if col == "attempts" else "left")
    letters = listing.get("deadletters", [])
    for d in letters:
        stage = d.get("stage", "") + (f" p.{d['page_number']}" if d.get("page_number") else "")
        table.add_row((d.get("ts") or "")[:19].replace("T", " "), d.get("filename") or "", d.get("department", ""),
                      stage, str(d.get("attempts", 0)), d.get("status") or "deleted", d.get("document_id", ""),
                      (d.get("reason") or "")[:120])
    console = _console()
    console.print(table, highlight=False, markup=False)
    console.print(f"{len(letters)} dead letters", highlight=False)


def print_replay(result: dict[str, Any]) -> int:
    """One line per document; returns 0 when at least one was replayed (or none was asked), else 1."""
    docs = result.get("documents", [])
    console = _console()
    for d in docs:
        name = d.get("filename") or d.get("document_id")
        if d.get("replayed"):
            console.print(f"replayed {name}: {d['replayed']} event(s) to {d.get('stage')}", highlight=False,
                          markup=False)
        else:
            console.print(f"skipped {name}: {d.get('skipped')}", highlight=False, markup=False)
    replayed = sum(1 for d in docs if d.get("replayed"))
    console.print(f"{replayed} of {len(docs)} documents replayed", highlight=False)
    return 0 if replayed or not docs else 1


async def _call(url: str, settings: ClientSettings, fn: Any, *args: Any) -> dict[str, Any]:
    async with api.make_client(url, settings) as client:
        result: dict[str, Any] = await fn(client, *args)
        return result


def run_list(args: argparse.Namespace) -> int:
    """``legco dlq list``; exit code 1 on an API error."""
    return show(_call(args.url, args.client, api.list_deadletters, args.all), args.json, print_letters)


def run_replay(args: argparse.Namespace) -> int:
    """``legco dlq replay``; exit code 2 without documents or ``--all``, 1 on an API error or when
    nothing could be replayed."""
    if not args.all and not args.documents:
        print("error: name the documents to replay, or --all", file=sys.stderr)
        return 2
    try:
        result = asyncio.run(_call(args.url, args.client, api.replay_deadletters, args.documents, args.all,
                                   args.stage))
    except api.ApiError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
        return 0
    return print_replay(result)

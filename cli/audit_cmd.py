"""``legco audit [--department X] [--since 1h] [--limit N] [--json]``: the audit log, newest
first (needs an admin key): time, key prefix, department, action, target, result, detail."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from cli import api
from cli.output import show


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``audit`` subcommand."""
    p = sub.add_parser("audit", help="read the audit log (admin key needed)")
    p.add_argument("--department", default=None, help="only this department's entries")
    p.add_argument("--since", default="24h",
                   help="how far back: seconds, 30m, 1h, 2d, 1w or an ISO-8601 time (default 24h)")
    p.add_argument("--limit", type=int, default=100, help="at most this many entries (default 100)")
    p.add_argument("--json", action="store_true", help="print the raw JSON response")
    p.set_defaults(func=run)


def print_entries(body: dict[str, Any]) -> None:
    """One table row per entry, newest first."""
    table = Table(show_edge=False, pad_edge=False)
    for col in ("time", "key", "department", "action", "target", "result", "detail"):
        table.add_column(col)
    for e in body.get("entries", []):
        table.add_row((e.get("ts") or "")[:19].replace("T", " "), e.get("key_prefix") or "-",
                      e.get("department") or "-", e.get("action", ""), e.get("target", ""), e.get("result", ""),
                      e.get("detail", ""))
    console = Console() if sys.stdout.isatty() else Console(width=240)
    console.print(table, highlight=False, markup=False)
    console.print(f"{len(body.get('entries', []))} entries", highlight=False)


async def _audit(args: argparse.Namespace) -> dict[str, Any]:
    async with api.make_client(args.url, args.client) as client:
        return await api.audit(client, args.department, args.since, args.limit)


def run(args: argparse.Namespace) -> int:
    """Print the entries; exit code 1 on an API error (400 for a bad --since, 403 not an admin key)."""
    return show(_audit(args), args.json, print_entries)

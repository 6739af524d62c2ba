"""``legco docs [--json]``: list the documents with department, status, strategy and chunk count."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from cli import api
from cli.output import show
from shared.settings import ClientSettings


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``docs`` subcommand."""
    p = sub.add_parser("docs", help="list the documents")
    p.add_argument("--json", action="store_true", help="print the raw JSON response")
    p.set_defaults(func=run)


def print_documents(listing: dict[str, Any]) -> None:
    """Print one table row per document and the totals. ``department``: the document's
    department, ``shared`` for the shared library (an admin's listing spans every department)."""
    table = Table(show_edge=False, pad_edge=False)
    for col in ("filename", "department", "status", "stage", "strategy", "pages", "chunks", "uploaded", "id"):
        table.add_column(col, justify="right" if col in ("pages", "chunks") else "left")
    for d in listing.get("documents", []):
        strategy = d.get("strategy", "")
        if d.get("strategy_used") and d["strategy_used"] != strategy:
            strategy += f"→{d['strategy_used']}"
        department = "shared" if d.get("visibility") == "shared" else d.get("department", "")
        table.add_row(d.get("filename", ""), department, d.get("status", ""), d.get("stage", ""), strategy,
                      str(d.get("page_count") or ""), str(d.get("chunk_count", 0)),
                      (d.get("upload_date") or "")[:19].replace("T", " "), d.get("document_id", ""))
    console = Console() if sys.stdout.isatty() else Console(width=200)
    console.print(table, highlight=False)
    console.print(f"{listing.get('total_documents', 0)} documents, {listing.get('total_chunks', 0)} chunks",
                  highlight=False)
    for d in listing.get("documents", []):
        if d.get("error"):
            console.print(f"{d['filename']}: {d['error']}", highlight=False, markup=False)


async def _docs(url: str, settings: ClientSettings) -> dict[str, Any]:
    async with api.make_client(url, settings) as client:
        return await api.list_documents(client)


def run(args: argparse.Namespace) -> int:
    """Run the command; exit code 1 on an API error."""
    return show(_docs(args.url, args.client), args.json, print_documents)

"""``legco ingest FILE... [--strategy token|question] [--department NAME] [--shared] [--wait]``:
upload files to the gateway (admin keys may name the department, or the shared library) and
optionally follow them (one progress bar per file, drawn from the gateway's document records)
until indexed or failed."""
from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from cli import api
from cli.sse import DocumentStream
from cli.tracking import DocProgress, Tracker


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``ingest`` subcommand."""
    p = sub.add_parser("ingest", help="upload files for indexing")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE", help="PDF, DOCX or TXT files")
    p.add_argument("--strategy", choices=("token", "question"), default="token",
                   help="chunking strategy (default: token)")
    p.add_argument("--department", default=None, help="admin keys: file under this department (default: the key's)")
    p.add_argument("--shared", action="store_true",
                   help="admin keys: into the shared library, readable by every department")
    p.add_argument("--wait", action="store_true", help="show progress until every file is indexed or failed")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds to wait with --wait (default $LEGCO_WAIT_TIMEOUT_S or 1800)")
    p.set_defaults(func=run)


class Bars:
    """One rich progress bar per document, updated from ``DocProgress`` states."""

    def __init__(self, console: Console) -> None:
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[unit]}"), TimeElapsedColumn(),
                                 console=console, transient=False)
        self.tasks: dict[str, TaskID] = {}

    def update(self, doc: DocProgress) -> None:
        """Redraw the bar of ``doc`` (created on first call)."""
        label = escape(f"{doc.filename} · {doc.stage_label}")
        total = doc.pages_total or None
        done = doc.pages_done
        if doc.status == "indexed":
            total = done = max(doc.chunk_count or doc.pages_done, 1)
        tid = self.tasks.get(doc.document_id)
        if tid is None:
            tid = self.tasks[doc.document_id] = self.progress.add_task(label, total=total, unit=doc.unit)
        self.progress.update(tid, description=label, total=total, completed=done, unit=doc.unit)
        if doc.done:
            self.progress.stop_task(tid)


def print_summary(console: Console, docs: list[DocProgress]) -> None:
    """Print each document's final status, chunk count, warnings and failure reason."""
    for d in docs:
        if d.status == "indexed":
            console.print(f"[green]indexed[/] {d.filename}: {d.chunk_count or 0} chunks "
                          f"(id {d.document_id})", highlight=False)
        elif d.status == "failed":
            console.print(f"[red]failed[/]  {d.filename}: {d.error or 'no reason given'} "
                          f"(id {d.document_id})", highlight=False)
        else:
            console.print(f"[yellow]unfinished[/] {d.filename}: still {d.stage}/{d.status} "
                          f"(id {d.document_id})", highlight=False)
        for w in d.warnings:
            console.print(f"    warning: {w}", highlight=False, markup=False)


async def _ingest(args: argparse.Namespace) -> int:
    out, err = Console(), Console(stderr=True)
    failures = 0
    timeout_s = args.client.wait_timeout_s if args.timeout is None else args.timeout
    async with api.make_client(args.url, args.client) as client:
        if not args.wait:
            for path in args.files:
                try:
                    r = await api.upload(client, path, args.strategy, args.department, args.shared)
                except (api.ApiError, OSError) as e:
                    err.print(f"error: {path.name}: {e}", markup=False, highlight=False)
                    failures += 1
                    continue
                replaces = f"; replaces {', '.join(r['replaced'])} once indexed" if r.get("replaced") else ""
                out.print(f"queued {r['filename']} (id {r['document_id']}, strategy {r['strategy']}){replaces}",
                          highlight=False, markup=False)
            return 1 if failures else 0
        stream = DocumentStream(client, args.client)
        if not await stream.start():
            err.print("warning: no progress stream; following documents by polling", highlight=False)
        bars = Bars(out)
        tracker = Tracker(client, stream, on_update=bars.update, poll_s=args.client.poll_interval_s)
        try:
            with bars.progress:
                runner = asyncio.create_task(tracker.run(timeout_s))
                for path in args.files:
                    try:
                        r = await api.upload(client, path, args.strategy, args.department, args.shared)
                    except (api.ApiError, OSError) as e:
                        bars.progress.console.print(f"error: {path.name}: {e}", markup=False, highlight=False)
                        failures += 1
                        continue
                    tracker.add(r["document_id"], r["filename"])
                tracker.uploads_done.set()
                finished = await runner
        finally:
            await stream.close()
        docs = list(tracker.docs.values())
        for d in docs:  # the registry has the final chunk count and warnings
            try:
                rec = await api.get_document(client, d.document_id)
                d.chunk_count = rec.get("chunk_count", d.chunk_count)
                d.warnings = rec.get("warnings") or d.warnings
                d.error = d.error or rec.get("error")
            except api.ApiError:
                pass
    print_summary(out, docs)
    if not finished:
        err.print(f"error: timed out after {timeout_s:.0f} s", highlight=False)
    failures += sum(1 for d in docs if d.status != "indexed")
    return 1 if failures else 0


def run(args: argparse.Namespace) -> int:
    """Run the command; exit code 1 when an upload was refused or a document failed."""
    missing = [p for p in args.files if not p.is_file()]
    for p in missing:
        print(f"error: {p}: no such file", file=sys.stderr)
    if missing:
        return 1
    return asyncio.run(_ingest(args))

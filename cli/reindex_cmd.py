"""``legco reindex [--department D] [--model M] [--no-wait]``: rebuild the index — every Chroma
collection and the query service's keyword index — from the chunk sets in MinIO (admin keys),
with a progress bar until the job is done. Queries keep using the current index until the new
one is complete; ``--model`` re-embeds everything with another embedding model."""
from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cli import api
from shared.settings import ClientSettings

POLL_S = 1.0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``reindex`` subcommand."""
    p = sub.add_parser("reindex", help="rebuild the index from the chunk sets in MinIO (admin)")
    p.add_argument("--department", default=None, help="only this department's documents, in place")
    p.add_argument("--model", default=None, help="re-embed with this embedding model (every department)")
    p.add_argument("--no-wait", action="store_true", help="start the job and return")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds to wait (default $LEGCO_WAIT_TIMEOUT_S or 1800)")
    p.set_defaults(func=run)


def describe(job: dict[str, Any]) -> str:
    """One line: generation, model, state and counts."""
    where = f"department {job['department']} in place" if job.get("in_place") else f"generation {job['generation']}"
    return (f"reindex {job['job_id'][:8]} ({where}, {job['model']}): {job['state']}, "
            f"{job['documents_done']}/{job['documents_total']} documents, {job['chunks']} chunks")


async def _follow(url: str, settings: ClientSettings, department: str | None, model: str | None,
                  wait: bool, timeout_s: float, console: Console) -> dict[str, Any]:
    async with api.make_client(url, settings) as client:
        job = await api.start_reindex(client, department, model)
        if not wait:
            return job
        deadline = time.monotonic() + timeout_s
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=console, transient=False) as bars:
            task = bars.add_task("building", total=None)
            while True:
                job = await api.reindex_status(client)
                bars.update(task, description=f"{job['phase']}", completed=job["documents_done"],
                            total=job["documents_total"] or None)
                if job["state"] != "running":
                    return job
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the reindex was not done after {timeout_s:.0f} s ({job['phase']})")
                await asyncio.sleep(POLL_S)


def run(args: argparse.Namespace) -> int:
    """Run the command; exit code 1 on an API error, a failed job or a timeout."""
    console = Console(stderr=True)
    try:
        job = asyncio.run(_follow(args.url, args.client, args.department, args.model, not args.no_wait,
                                  args.timeout or args.client.wait_timeout_s, console))
    except (api.ApiError, TimeoutError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(describe(job))
    for failure in job.get("failures", []):
        print(f"  not rebuilt: {failure}")
    if job.get("error"):
        print(f"error: {job['error']}", file=sys.stderr)
    return 0 if job["state"] in ("running", "done") else 1

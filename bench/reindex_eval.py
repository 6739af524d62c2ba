"""Chroma's data lost, rebuilt from MinIO: ``legco eval`` before and after ``legco reindex``.

Run from the repo root against a running stack (``make up``; ``LEGCO_VAR``/``PORT_OFFSET`` name
another stack):
    .cache/venv/bin/python bench/reindex_eval.py [--url URL] [DIR ...]

1. ``legco eval`` on the folders (default: the fixtures and the real corpus), which indexes
   what is missing: the figures before.
2. Chroma stopped, its data directory (``$LEGCO_VAR/chroma``) deleted, Chroma started empty.
3. ``legco reindex``: every collection and the keyword index rebuilt from the chunk sets in
   MinIO (timed).
4. ``legco eval`` again: prints both tables, the number of queries whose rank changed, and
   exits 1 when any figure or rank differs.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from _common import CORPUS, ROOT, load_note

import httpx

from cli import api
from cli.eval_cmd import evaluate, format_report
from shared.settings import ClientSettings


def stack(*args: str) -> None:
    subprocess.run([str(ROOT / "scripts" / "stack.sh"), *args], check=True, capture_output=True,
                   env=os.environ.copy())


def wipe_chroma(var: Path, port: int) -> None:
    """Stop Chroma, delete its data directory, start it and wait for its heartbeat."""
    stack("stop", "chroma")
    shutil.rmtree(var / "chroma")
    stack("start", "chroma")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(1)
    raise SystemExit("Chroma did not come back within 120 s")


def ranks(report: dict) -> dict[tuple[str, str, str], int | None]:
    return {(r["file"], r["expected_qa_id"], r["variant"]): r["rank"] for r in report["results"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=Path, default=[CORPUS / "fixtures", CORPUS / "real"])
    ap.add_argument("--url", default=None)
    a = ap.parse_args()
    settings = ClientSettings()
    url = api.resolve_url(a.url, settings)
    var = Path(os.environ.get("LEGCO_VAR", ROOT / "var"))
    port = 8000 + int(os.environ.get("PORT_OFFSET", "0"))

    before = asyncio.run(evaluate(url, a.dirs, settings=settings))
    chunks = sum(d["chunk_count"] or 0 for d in before["documents"].values())
    print(f"before: {len(before['documents'])} documents, {chunks} chunks, {len(before['results'])} queries; "
          f"{load_note()}")
    print(format_report(before))
    wipe_chroma(var, port)
    t0 = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "cli.main", "--url", url, "reindex"], capture_output=True, text=True,
                         env=os.environ.copy(), cwd=ROOT)
    took = time.monotonic() - t0
    print(f"\nlegco reindex after Chroma's data was deleted: exit {out.returncode}, {took:.1f} s")
    if out.returncode != 0:
        print(out.stdout[-2000:], out.stderr[-2000:])
        return 1
    time.sleep(5)  # the query service follows the switch (index.switched)
    after = asyncio.run(evaluate(url, a.dirs, settings=settings))
    print(format_report(after))
    changed = [k for k, v in ranks(before).items() if ranks(after).get(k) != v]
    same_groups = before["groups"] == after["groups"]
    print(f"\ngroups identical: {same_groups}; queries whose rank changed: {len(changed)} of {len(before['results'])}")
    for k in changed[:20]:
        print(f"  {k}: {ranks(before)[k]} -> {ranks(after).get(k)}")
    return 0 if same_groups and not changed else 1


if __name__ == "__main__":
    raise SystemExit(main())

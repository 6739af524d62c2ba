"""Query latency at 1 client while the real corpus is being ingested, against the idle latency
of the same run: do questions wait behind ingest?

Run from the repo root (stack up):
    .cache/venv/bin/python bench/query_under_ingest.py [--url URL] [--idle 60] [--top-k 5]

1. The corpus (every PDF of ``../shared/corpus/real``; the 64-page FAQ guide with the question
   strategy, the others with the token strategy) is indexed first if a copy of each is not
   (so both phases search an index of the same size).
2. Idle: ``--idle`` questions one after another (1 client), nothing else running.
3. Under ingest: the corpus is uploaded again (each upload replaces its copy once indexed) and
   questions are sent one after another until every upload is indexed or failed.

Questions are the ``queries`` of the fixture truth files and the real corpus query files,
round-robin, through the gateway (``POST /api/v1/query``, with the API key). Prints p50/p95/max
per phase, the number of 503 answers and other errors, and the ratio of the p95s.
"""
from __future__ import annotations

import argparse
import asyncio
import time
from itertools import cycle
from pathlib import Path

from _common import CORPUS, fixture_queries, load_note, percentile, table

import httpx

from cli import api
from shared.settings import ClientSettings

QUESTION_STRATEGY = {"hk_ld_ec_ordinance_guide_faq_en.pdf"}


def strategy_of(path: Path) -> str:
    return "question" if path.name in QUESTION_STRATEGY else "token"


async def wait_terminal(client: httpx.AsyncClient, ids: list[str], timeout_s: float) -> dict[str, dict]:
    """Poll until every document is indexed or failed; returns their records."""
    deadline = time.monotonic() + timeout_s
    while True:
        docs = {d["document_id"]: d for d in (await api.list_documents(client))["documents"]}
        done = {i: docs[i] for i in ids if docs.get(i, {}).get("status") in ("indexed", "failed")}
        if len(done) == len(ids):
            return done
        if time.monotonic() > deadline:
            raise SystemExit(f"ingest not finished after {timeout_s:.0f} s")
        await asyncio.sleep(2)


async def upload_all(client: httpx.AsyncClient, files: list[Path]) -> list[str]:
    return [(await api.upload(client, f, strategy_of(f)))["document_id"] for f in files]


class Probe:
    """Questions one after another (1 client): latencies (ms) of the 200s, 503s, other errors."""

    def __init__(self, client: httpx.AsyncClient, questions: list[str], top_k: int) -> None:
        self.client = client
        self.questions = cycle(questions)
        self.top_k = top_k

    async def ask(self, lat: list[float], errors: dict[str, int]) -> None:
        t = time.perf_counter()
        try:
            r = await self.client.post("/api/v1/query", json={"question": next(self.questions), "top_k": self.top_k})
            code = str(r.status_code)
        except httpx.HTTPError as e:
            code = type(e).__name__
        if code == "200":
            lat.append((time.perf_counter() - t) * 1000)
        else:
            errors[code] = errors.get(code, 0) + 1

    async def run(self, n: int) -> tuple[list[float], dict[str, int]]:
        lat: list[float] = []
        errors: dict[str, int] = {}
        for _ in range(n):
            await self.ask(lat, errors)
        return lat, errors

    async def run_until(self, done: asyncio.Task) -> tuple[list[float], dict[str, int]]:
        lat: list[float] = []
        errors: dict[str, int] = {}
        while not done.done():
            await self.ask(lat, errors)
        return lat, errors


async def bench(url: str, idle: int, top_k: int, timeout_s: float, settings: ClientSettings) -> None:
    files = sorted((CORPUS / "real").glob("*.pdf"))
    async with api.make_client(url, settings) as client:
        indexed = {d["filename"] for d in (await api.list_documents(client))["documents"] if d["status"] == "indexed"}
        missing = [f for f in files if f.name not in indexed]
        if missing:
            print(f"indexing {len(missing)} missing corpus files first ...")
            await wait_terminal(client, await upload_all(client, missing), timeout_s)
        listing = await api.list_documents(client)
        print(f"{len(files)} corpus PDFs; {listing['total_documents']} documents / {listing['total_chunks']} chunks "
              f"indexed; {load_note()}")
        probe = Probe(client, fixture_queries(), top_k)
        await probe.run(3)  # warm-up
        idle_lat, idle_err = await probe.run(idle)
        t0 = time.perf_counter()
        ids = await upload_all(client, files)
        ingest = asyncio.create_task(wait_terminal(client, ids, timeout_s))
        busy_lat, busy_err = await probe.run_until(ingest)
        records = await ingest
        wall = time.perf_counter() - t0
    failed = [r["filename"] for r in records.values() if r["status"] != "indexed"]
    chunks = sum(r.get("chunk_count") or 0 for r in records.values())
    print(f"ingest: {len(files)} PDFs, {chunks} chunks in {wall:.0f} s; not indexed: {', '.join(failed) or 'none'}; "
          f"{load_note()}")
    rows = []
    for name, lat, err in (("idle", idle_lat, idle_err), ("during ingest", busy_lat, busy_err)):
        rows.append([name, len(lat), err.get("503", 0), sum(v for k, v in err.items() if k != "503"),
                     percentile(lat, 50), percentile(lat, 95), max(lat, default=float("nan"))])
    print(table(["phase", "ok", "503", "other errors", "p50 ms", "p95 ms", "max ms"], rows))
    print(f"p95 during ingest / idle p95: {percentile(busy_lat, 95) / percentile(idle_lat, 95):.2f}")


def main() -> None:
    """Parse the flags and run the two phases."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None, help="gateway URL (default $LEGCO_URL or http://localhost:8080)")
    ap.add_argument("--idle", type=int, default=60, help="questions in the idle phase (default 60)")
    ap.add_argument("--top-k", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait for an ingest")
    a = ap.parse_args()
    settings = ClientSettings()
    asyncio.run(bench(api.resolve_url(a.url, settings), a.idle, a.top_k, a.timeout, settings))


if __name__ == "__main__":
    main()

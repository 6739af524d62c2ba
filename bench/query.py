"""Latency of ``POST /api/v1/query`` through the gateway at 1 and 8 concurrent clients.

Run from the repo root (stack up, some documents indexed):
    .cache/venv/bin/python bench/query.py [--url URL] [--requests 40] [--levels 1,8] [--top-k 5]
        [--query-url http://localhost:8104]

Questions are the ``queries`` of ``../shared/corpus/fixtures/*.truth.json`` (and the real
corpus ``*.queries.json``), used round-robin. Each level sends ``--requests`` requests from
that many concurrent workers sharing one keep-alive ``httpx.AsyncClient``; p50/p95 in ms.
"""
from __future__ import annotations

import argparse
import asyncio
import time
from itertools import cycle

from _common import fixture_queries, load_note, percentile, table

import httpx

from cli import api
from shared.settings import ClientSettings


async def run_level(url: str, questions: list[str], concurrency: int, requests: int,
                    top_k: int, headers: dict[str, str]) -> tuple[list[float], int, float]:
    """Send ``requests`` queries with ``concurrency`` workers.

    Returns (latencies in ms of the successful requests, error count, wall seconds).
    """
    qs = cycle(questions)
    todo = asyncio.Queue()
    for _ in range(requests):
        todo.put_nowait(next(qs))
    lat: list[float] = []
    errors = 0
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=ClientSettings().request_timeout_s, limits=limits,
                                 headers=headers) as client:
        await client.post("/api/v1/query", json={"question": questions[0], "top_k": top_k})  # warm-up

        async def worker() -> None:
            nonlocal errors
            while not todo.empty():
                q = todo.get_nowait()
                t = time.perf_counter()
                try:
                    r = await client.post("/api/v1/query", json={"question": q, "top_k": top_k})
                    ok = r.status_code == 200
                except httpx.HTTPError:
                    ok = False
                if ok:
                    lat.append((time.perf_counter() - t) * 1000)
                else:
                    errors += 1
        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return lat, errors, time.perf_counter() - t0


def main() -> None:
    """Parse the flags and print one table row per concurrency level."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None, help="gateway URL (default $LEGCO_URL or http://localhost:8080)")
    ap.add_argument("--requests", type=int, default=40, help="requests per level (default 40)")
    ap.add_argument("--levels", default="1,8", help="comma-separated concurrency levels (default 1,8)")
    ap.add_argument("--top-k", type=int, default=5)
    ap.add_argument("--query-url", default=None,
                    help="send the queries straight to this query service (e.g. http://localhost:8104) instead "
                         "of the gateway, to compare two query-service builds on one stack")
    a = ap.parse_args()
    client_settings = ClientSettings()
    url = api.resolve_url(a.url, client_settings)
    questions = fixture_queries()
    key = client_settings.api_key_or_file()  # LEGCO_API_KEY, else var/admin.key
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    listing = httpx.get(f"{url}/api/v1/documents", timeout=client_settings.request_timeout_s, headers=headers).json()
    print(f"{len(questions)} questions, {listing['total_documents']} documents / {listing['total_chunks']} chunks "
          f"indexed; {load_note()}")
    rows = []
    for level in (int(x) for x in a.levels.split(",")):
        lat, errors, wall = asyncio.run(run_level(a.query_url or url, questions, level, a.requests, a.top_k, headers))
        rows.append([level, len(lat), errors, percentile(lat, 50), percentile(lat, 95), max(lat, default=float("nan")),
                     len(lat) / wall])
    print(table(["clients", "ok", "errors", "p50 ms", "p95 ms", "max ms", "req/s"], rows))


if __name__ == "__main__":
    main()

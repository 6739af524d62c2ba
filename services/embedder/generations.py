"""Which index generation (``shared.generation``) and embedding model the embedder writes with.

A document from the pipeline goes into the *current* generation, read from the pointer in
Chroma before each document, with the generation's model; if a rebuild switched generations
while the document was embedded, it is embedded again into the new one (upserts are
idempotent, and the old generation is dropped soon after). A rebuild event names its target
generation and model itself. Each model has its own request stream (``FairBatcher``) to the
embeddings endpoint; the configured model's is the process's default one.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

from services.embedder.batcher import EmbedFn, FairBatcher
from shared.deletion import Check, guarded, never_gone
from shared.embeddings import EmbeddingClient
from shared.generation import IndexGeneration
from shared.settings import Settings
from shared.vectorstore import VectorStore

log = logging.getLogger("legco.embedder.generations")


class Generations:
    """Pinned vector stores per generation and request streams per model, for one process.

    Args:
        settings: the embeddings endpoint and the default model.
        vectors: the store that follows the pointer (its client is shared).
        batcher: the default model's request stream.
    """

    def __init__(self, settings: Settings, vectors: VectorStore, batcher: FairBatcher) -> None:
        self.settings = settings
        self.vectors = vectors
        self._batchers: dict[str, FairBatcher] = {settings.embeddings_model: batcher}
        self._own: list[FairBatcher] = []

    async def current(self) -> IndexGeneration:
        """The current generation, read from the pointer now.

        Raises:
            chromadb errors when Chroma is down (an outage).
        """
        return await asyncio.to_thread(self.vectors.refresh)

    def store(self, generation: IndexGeneration) -> VectorStore:
        """A store pinned to ``generation``, new for each document (it shares the client): its
        collections are looked up afresh, so a generation rebuilt after Chroma lost its data
        (same name, new collections) is written where it now is."""
        return self.vectors.at(generation)

    def embed(self, model: str, department: str, check: Check = never_gone) -> EmbedFn:
        """The embedding function for one document: texts of ``model`` through its request
        stream (fair by ``department``), with ``check`` asked before and after each batch and
        while it is embedded, so a document deleted meanwhile stops within about the check's
        interval (``DocumentGone``)."""
        if model not in self._batchers:
            client = EmbeddingClient(self.settings.model_copy(update={"embeddings_model": model}))
            self._batchers[model] = FairBatcher.from_settings(client.embed_passages, self.settings)
            self._own.append(self._batchers[model])
        batcher = self._batchers[model]

        async def embed(texts: list[str], tokens: Sequence[int] | None = None) -> list[list[float]]:
            await check()
            vectors = await guarded(check, batcher.embed_passages(texts, tokens, key=department))
            await check()
            return vectors

        return embed

    async def close(self) -> None:
        """Stop the request streams this object started (not the default one)."""
        for batcher in self._own:
            await batcher.close()


async def in_current_generation(generations: Generations,
                                work: Callable[[IndexGeneration], Awaitable[int | None]]) -> int | None:
    """Run ``work(generation)`` for the current generation, again for the new one if the
    generation changed meanwhile (a rebuild switched); returns its last result."""
    while True:
        generation = await generations.current()
        stored = await work(generation)
        if stored is None:
            return None
        now = await generations.current()
        if now == generation:
            return stored
        log.info("the index switched to generation %d while a document was embedded into %d; again",
                 now.generation, generation.generation)

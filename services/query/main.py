"""Query service (FastAPI): ``POST /api/v1/query`` embeds the question, retrieves the top-k
chunks from ChromaDB and answers (LLM with citations, or extractive); the gateway forwards
``/api/v1/query`` here. The keyword index and language means live in memory: loaded from Chroma
at start, then kept in step by the ``documents.indexed`` / ``documents.deleted`` events and, after
a rebuild, ``index.switched`` (``follow.py``; a FastStream broker run in the lifespan). The route is in ``routes.py``.
Run: ``python -m services.query`` (PORT, default 8104).
"""
from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from services.query import routes
from services.query.follow import Follower, subscribe
from services.query.keyword_index import KeywordIndex
from services.query.langbias import LanguageMeans
from services.query.lexicon import load_lexicon
from services.query.scoring import ScoringParams
from services.query.state import QueryState
from services.query.vector_cache import VectorCache
from shared.embeddings import EmbeddingClient
from shared.generation import IndexGeneration
from shared.kafka import make_broker
from shared.metrics import add_metrics_route
from shared.settings import Settings, get_settings
from shared.vectorstore import VectorStore


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the query service; clients and the in-memory index are created in its lifespan."""
    settings = settings or get_settings()
    broker = make_broker(settings, "query")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        """Create the clients, load the keyword index and language means from Chroma (the
        service answers only once they are loaded), then follow the index events."""
        state = QueryState(settings=settings, vectors=VectorStore(settings), embedder=EmbeddingClient(settings),
                           cache=VectorCache(), means=LanguageMeans(),
                           params=ScoringParams.from_settings(settings), keywords=KeywordIndex(load_lexicon()))
        def follow_model(generation: IndexGeneration) -> None:
            """Questions are embedded with the model the current generation was built with; a new
            model gets a new client and an empty vector cache (its keys are text hashes)."""
            if generation.model != state.embedder.settings.embeddings_model:
                state.embedder = EmbeddingClient(settings.model_copy(update={"embeddings_model": generation.model}))
                state.cache = VectorCache()

        follower = Follower(state.vectors, state.keywords, state.means, on_switch=follow_model)
        subscribe(broker, follower, settings)
        await follower.catch_up(settings)
        app.state.query = state
        await broker.start()
        try:
            yield
        finally:
            await broker.stop()

    app = FastAPI(title="LegCo query service", lifespan=lifespan)
    app.include_router(routes.router)
    add_metrics_route(app)
    return app


app = create_app()

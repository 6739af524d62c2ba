"""Query service (FastAPI): ``POST /api/v1/query`` embeds the question, retrieves the top-k
chunks from ChromaDB and answers (LLM with citations, or extractive); the gateway forwards
``/api/v1/query`` here. The keyword index and language means live in memory: loaded from Chroma
at start (in the background: ``warmup.py``; dense search answers meanwhile), then kept in step by
the ``documents.indexed`` / ``documents.deleted`` events and, after a rebuild, ``index.switched``
(``follow.py``). The route is in ``routes.py``.
Run: ``python -m services.query`` (PORT, default 8104).
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from fastapi import FastAPI

from services.query import routes
from services.query.answer_cache import AnswerCache
from services.query.follow import Follower, subscribe
from services.query.keyword_index import KeywordIndex
from services.query.keyword_store import open_store
from services.query.langbias import LanguageMeans
from services.query.lexicon import Lexicon
from services.query.question_vectors import QuestionVectors
from services.query.retrieve import CandidateSearch
from services.query.scoring import ScoringParams
from services.query.state import QueryState
from services.query.vector_cache import VectorCache
from services.query.warmup import warm_up
from shared.embeddings import EmbeddingClient
from shared.generation import IndexGeneration
from shared.http_errors import install_error_handlers
from shared.kafka import make_broker
from shared.metrics import add_metrics_route
from shared.settings import Settings, get_settings
from shared.vectorstore import VectorStore

log = logging.getLogger("legco.query")


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the query service; clients and the in-memory index are created in its lifespan."""
    settings = settings or get_settings()
    broker = make_broker(settings, "query")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        """Create the clients and start the warm-up (``warmup.py``): the service answers once the
        language means are loaded (at most ``query_start_wait_s``), the keyword side follows; then
        it follows the index events (and ``index.switched`` after a rebuild)."""
        # questions have their own embeddings endpoint when one is set (make up: the e5-query
        # process), so they never wait behind the embedder's batches
        embedder = EmbeddingClient(settings, base_url=settings.query_embeddings_base_url or None)

        def question_vectors(client: EmbeddingClient) -> QuestionVectors:
            return QuestionVectors(client, settings.query_embed_batch_size, settings.query_vector_cache_size)

        # Chroma calls and the keyword search run in worker threads, several per question (the
        # chunk and question-line searches at once): the default pool (cores + 4) made eight
        # clients' questions queue for a thread
        asyncio.get_running_loop().set_default_executor(
            ThreadPoolExecutor(settings.query_threads, thread_name_prefix="query"))
        vectors = VectorStore(settings)
        state = QueryState(settings=settings, vectors=vectors, embedder=embedder,
                           cache=VectorCache(), means=LanguageMeans(), params=ScoringParams.from_settings(settings),
                           keywords=KeywordIndex(Lexicon.from_lines([]),
                                                 open_store(settings.query_index_dir, settings.query_instance)),
                           questions=question_vectors(embedder),
                           answers=AnswerCache(settings.query_answer_cache_size),
                           searcher=CandidateSearch(vectors, max(1, settings.query_embed_batch_size)))

        def follow_model(generation: IndexGeneration) -> None:
            """Questions are embedded with the model the current generation was built with; a new
            model gets a new client, no question vectors and an empty vector cache (its keys are
            text hashes). The answers are dropped by ``on_change`` right after."""
            if generation.model != state.embedder.settings.embeddings_model:
                state.embedder = EmbeddingClient(settings.model_copy(update={"embeddings_model": generation.model}),
                                                 base_url=settings.query_embeddings_base_url or None)
                state.questions = question_vectors(state.embedder)
                state.cache = VectorCache()

        follower = Follower(state.vectors, state.keywords, state.means, on_switch=follow_model,
                            on_change=state.answers.invalidate)
        subscribe(broker, follower, settings)
        app.state.query = state
        warming = asyncio.create_task(warm_up(state, follower, broker, settings), name="query-warm-up")
        warming.add_done_callback(_report_failure)
        with contextlib.suppress(TimeoutError):  # Chroma down: answer (503) rather than not listen
            await asyncio.wait_for(state.means_ready.wait(), settings.query_start_wait_s)
        try:
            yield
        finally:
            warming.cancel()
            await state.questions.close()
            await broker.stop()

    app = FastAPI(title="LegCo query service", lifespan=lifespan)
    app.include_router(routes.router)
    install_error_handlers(app)  # a request the gateway did not check (direct callers): 4xx, never 500
    add_metrics_route(app)
    return app


def _report_failure(task: asyncio.Task[None]) -> None:
    """Log the warm-up's exception (its steps retry what they can; anything else would
    otherwise leave the keyword side unready without a word)."""
    if not task.cancelled() and task.exception() is not None:
        log.error("the warm-up failed; the keyword side stays off", exc_info=task.exception())


app = create_app()

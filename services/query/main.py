"""Query service (FastAPI): ``POST /api/v1/query`` embeds the question, retrieves the top-k
chunks from ChromaDB and answers (LLM with citations, or extractive). The gateway forwards
``/api/v1/query`` here. The keyword index and language means live in memory: loaded from Chroma
at start, then kept in step by the ``documents.indexed`` / ``documents.deleted`` events
(``follow.py``; a FastStream broker run in the lifespan). Run: ``python -m services.query``
(PORT, default 8104).
"""
from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, HTTPException

from services.query.answer import compose_answer
from services.query.follow import Follower, subscribe
from services.query.keyword_index import KeywordIndex
from services.query.langbias import LanguageMeans
from services.query.lexicon import load_lexicon
from services.query.retrieve import retrieve
from services.query.scoring import ScoringParams
from services.query.vector_cache import VectorCache
from shared.api import QueryRequest, QueryResponse
from shared.embeddings import EmbeddingClient
from shared.kafka import make_broker
from shared.metrics import QUERY_LATENCY, add_metrics_route
from shared.settings import get_settings
from shared.vectorstore import VectorStore

log = logging.getLogger("legco.query")
settings = get_settings()
clients: dict[str, Any] = {}
broker = make_broker(settings, "query")


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Create the clients, load the keyword index and language means from Chroma (the service
    answers only once they are loaded), then follow the index events until shutdown."""
    clients.update(vectors=VectorStore(settings), embedder=EmbeddingClient(settings), cache=VectorCache(),
                   means=LanguageMeans(), params=ScoringParams.from_settings(settings),
                   keywords=KeywordIndex(load_lexicon()))
    follower = Follower(clients["vectors"], clients["keywords"], clients["means"])
    subscribe(broker, follower, settings)
    await follower.catch_up(settings)
    await broker.start()
    try:
        yield
    finally:
        await broker.stop()
app = FastAPI(title="LegCo query service", lifespan=lifespan)
add_metrics_route(app)


@app.get("/healthz")
async def healthz() -> dict[str, Any]:
    """Liveness, and what the keyword index holds (documents, chunks)."""
    kw = clients["keywords"]
    return {"status": "ok", "llm": settings.llm_enabled,
            "keyword_index": {"documents": len(kw.document_ids), "chunks": len(kw.snapshot.ids)}}


@app.post("/api/v1/query", response_model=QueryResponse)
async def query(body: QueryRequest) -> QueryResponse:
    """Answer ``body.question`` from the top ``body.top_k`` chunks.

    Without an LLM (or when it fails) the answer is extractive and says so in ``notice``.
    503 when the embeddings endpoint or Chroma is down.
    """
    start = time.perf_counter()
    try:
        hits = await retrieve(clients["vectors"], clients["embedder"], body.question, body.top_k,
                              body.document_ids, means=clients["means"], params=clients["params"],
                              candidates=settings.query_candidates, strategy=body.strategy,
                              topic_section=body.topic_section, cache=clients["cache"],
                              keywords=clients["keywords"],
                              keyword_candidates_n=settings.query_keyword_candidates,
                              duplicate_threshold=settings.query_duplicate_threshold)
    except Exception as e:
        log.exception("retrieval failed")
        raise HTTPException(503, f"Search is unavailable ({type(e).__name__}); try again shortly.") from None
    sources, texts = [s for s, _ in hits], [t for _, t in hits]
    answer, mode, notice = await compose_answer(settings, body.question, sources, texts)
    QUERY_LATENCY.labels(mode).observe(time.perf_counter() - start)
    return QueryResponse(answer=answer, answer_mode=mode, notice=notice,
                         llm_model=settings.llm_model if mode == "llm" else None, sources=sources)

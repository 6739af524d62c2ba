"""Query service (FastAPI): ``POST /api/v1/query`` embeds the question, retrieves the top-k
chunks from ChromaDB and answers (LLM with citations, or extractive). The gateway forwards
``/api/v1/query`` here. Run: ``python -m services.query`` (PORT, default 8104).
"""
from __future__ import annotations

import asyncio
import logging
import time
from contextlib import asynccontextmanager

from fastapi import FastAPI, HTTPException

from services.query.answer import extractive_answer, llm_answer
from services.query.keyword_index import KeywordIndex
from services.query.langbias import LanguageMeans
from services.query.lexicon import load_lexicon
from services.query.retrieve import retrieve
from services.query.scoring import ScoringParams
from services.query.vector_cache import VectorCache
from shared.api import QueryRequest, QueryResponse
from shared.embeddings import EmbeddingClient
from shared.metrics import QUERY_LATENCY, add_metrics_route
from shared.settings import get_settings
from shared.vectorstore import VectorStore

log = logging.getLogger("legco.query")
settings = get_settings()
clients: dict = {}


@asynccontextmanager
async def lifespan(app: FastAPI):
    """Create the Chroma and embeddings clients and the language-mean cache once."""
    clients["vectors"] = VectorStore(settings)
    clients["embedder"] = EmbeddingClient(settings)
    clients["cache"] = VectorCache()
    clients["means"] = LanguageMeans(clients["vectors"], settings.query_stats_ttl_s)
    clients["params"] = ScoringParams.from_settings(settings)
    clients["keywords"] = KeywordIndex(clients["vectors"], load_lexicon(), settings.query_stats_ttl_s)
    try:  # build the keyword index before the first query (Chroma may still be starting)
        await asyncio.to_thread(clients["keywords"].refresh)
    except Exception as e:
        log.warning("keyword index not built at start (%s); the first query builds it", e)
    yield


app = FastAPI(title="LegCo query service", lifespan=lifespan)
add_metrics_route(app)


@app.get("/healthz")
async def healthz() -> dict:
    """Liveness."""
    return {"status": "ok", "llm": settings.llm_enabled}


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
    sources = [s for s, _ in hits]
    texts = [t for _, t in hits]
    mode, notice, answer = "extractive", None, ""
    if not sources:
        notice = "No documents are indexed yet, or none match the filter."
    if settings.llm_enabled and sources:
        try:
            answer = await llm_answer(settings, body.question, sources, texts)
            mode = "llm"
        except Exception as e:
            log.warning("LLM failed, falling back to extractive: %s", e)
            notice = f"The language model could not be reached ({type(e).__name__}); showing the best passages."
    elif not settings.llm_enabled:
        notice = "No language model is configured: showing the best matching passages."
    if mode == "extractive":
        answer = extractive_answer(sources, texts)
    QUERY_LATENCY.labels(mode).observe(time.perf_counter() - start)
    return QueryResponse(answer=answer, answer_mode=mode, notice=notice,
                         llm_model=settings.llm_model if mode == "llm" else None, sources=sources)

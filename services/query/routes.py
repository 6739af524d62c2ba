"""The query service's routes: ``POST /api/v1/query`` and ``GET /healthz``."""
from __future__ import annotations

import logging
import time
from typing import Any

from fastapi import APIRouter, HTTPException

from services.query.answer import compose_answer
from services.query.keyword_tokens import query_search_form
from services.query.retrieve import retrieve
from services.query.state import StateDep
from shared.api import QueryResponse, ScopedQueryRequest
from shared.metrics import QUERIES, QUERY_LATENCY
from shared.scope import scope_label

log = logging.getLogger("legco.query")
router = APIRouter()


@router.get("/healthz")
async def healthz(state: StateDep) -> dict[str, Any]:
    """Liveness, and what the keyword index holds (documents, chunks) and where it was loaded
    from at start (``file``: its saved copy; ``chroma``: a scan)."""
    kw = state.keywords
    return {"status": "ok", "llm": state.settings.llm_enabled,
            "keyword_index": {"ready": state.keywords_ready, "documents": kw.document_count,
                              "chunks": kw.chunk_count, "loaded_from": kw.loaded_from}}


@router.post("/api/v1/query", response_model=QueryResponse)
async def query(state: StateDep, body: ScopedQueryRequest) -> QueryResponse:
    """Answer ``body.question`` from the top ``body.top_k`` chunks of the caller's scope
    (``body.departments`` and the shared library; ``None``: every department). The gateway sets
    the scope from the caller's key; this service is not reachable from outside the deployment.

    Without an LLM (or when it fails) the answer is the direct answer and says so in ``notice``;
    when no source passes the coverage threshold, ``covered`` is false and the answer says so.
    503 when the embeddings endpoint or Chroma is down.
    """
    s = state.settings
    start = time.perf_counter()
    try:
        hits = await retrieve(state.vectors, state.embedder, body.question, body.top_k, body.document_ids,
                              means=state.means, params=state.params, candidates=s.query_candidates,
                              strategy=body.strategy, topic_section=body.topic_section, cache=state.cache,
                              keywords=state.keywords if state.keywords_ready else None,
                              keyword_candidates_n=s.query_keyword_candidates,
                              duplicate_threshold=s.query_duplicate_threshold, departments=body.departments)
    except Exception as e:
        log.exception("retrieval failed")
        raise HTTPException(503, f"Search is unavailable ({type(e).__name__}); try again shortly.") from None
    kw_query = query_search_form(body.question)
    unknown = state.keywords.unknown_share(kw_query, body.departments) if state.keywords_ready else 0.0
    terms = state.keywords.query_terms(kw_query, body.departments) if state.keywords_ready else None
    response = await compose_answer(s, body.question, hits, unknown, terms=terms)
    QUERY_LATENCY.labels(response.answer_mode).observe(time.perf_counter() - start)
    QUERIES.labels(scope_label(body.departments), response.answer_mode).inc()
    return response

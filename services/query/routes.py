"""The query service's routes: ``POST /api/v1/query`` and ``GET /healthz``."""
from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response

from services.query.answer import compose_answer
from services.query.answer_cache import CachedAnswer
from services.query.keyword_tokens import query_search_form
from services.query.retrieve import retrieve
from services.query.state import QueryState, StateDep
from services.query.term_evidence import QueryTerm
from shared.api import QueryResponse, ScopedQueryRequest
from shared.metrics import ANSWER_CACHE, QUERIES, QUERY_LATENCY
from shared.scope import scope_label

log = logging.getLogger("legco.query")
router = APIRouter()


@router.get("/healthz")
async def healthz(state: StateDep) -> dict[str, Any]:
    """Liveness; what the keyword index holds (documents, chunks) and where it was loaded from
    at start (``file``: its saved copy; ``chroma``: a scan); and the caches' counters: answers
    (entries, hits, misses, generation: index changes seen) and question vectors (embedding
    requests sent, texts embedded, vectors answered from the cache)."""
    kw, answers, questions = state.keywords, state.answers, state.questions
    return {"status": "ok", "llm": state.settings.llm_enabled,
            "keyword_index": {"ready": state.keywords_ready, "documents": kw.document_count,
                              "chunks": kw.chunk_count, "loaded_from": kw.loaded_from},
            "answer_cache": {"entries": len(answers), "hits": answers.hits, "misses": answers.misses,
                             "generation": answers.generation},
            "question_vectors": {"requests": questions.requests, "texts": questions.texts,
                                 "cache_hits": questions.cache_hits}}


@router.post("/api/v1/query", response_model=QueryResponse)
async def query(state: StateDep, body: ScopedQueryRequest, request: Request) -> Response:
    """Answer ``body.question`` from the top ``body.top_k`` chunks of the caller's scope
    (``body.departments`` and the shared library; ``None``: every department). The gateway sets
    the scope from the caller's key; this service is not reachable from outside the deployment.

    Without an LLM (or when it fails) the answer is the direct answer and says so in ``notice``;
    when no source passes the coverage threshold, ``covered`` is false and the answer says so.
    The same request asked again before the index changes is answered from the answer cache
    (``answer_cache``); ``Cache-Control: no-cache`` computes it afresh (question vector
    included) and stores the result. 503 when the embeddings endpoint or Chroma is down.
    """
    s = state.settings
    start = time.perf_counter()
    fresh = "no-cache" in request.headers.get("cache-control", "").lower()
    key = body.model_dump_json()
    generation = state.answers.generation  # noted before any state is read (answer_cache)
    cached = None if fresh else state.answers.get(key)
    if cached is not None:
        ANSWER_CACHE.labels("hit").inc()
        return done(cached, body, start)
    ANSWER_CACHE.labels("bypass" if fresh else "miss").inc()
    keywords_ready = state.keywords_ready
    # The coverage terms need only the question and the keyword index: worked out in a thread
    # while the question is embedded and searched (the wait for e5 and Chroma leaves the CPU free).
    terms_job = asyncio.ensure_future(asyncio.to_thread(coverage_terms, state, body)) if keywords_ready else None
    try:
        hits = await retrieve(state.vectors, state.questions, body.question, body.top_k, body.document_ids,
                              means=state.means, params=state.params, candidates=s.query_candidates,
                              strategy=body.strategy, topic_section=body.topic_section, cache=state.cache,
                              keywords=state.keywords if keywords_ready else None,
                              keyword_candidates_n=s.query_keyword_candidates,
                              duplicate_threshold=s.query_duplicate_threshold, departments=body.departments,
                              fresh=fresh, searcher=state.searcher)
    except Exception as e:
        log.exception("retrieval failed")
        if terms_job is not None:
            await asyncio.gather(terms_job, return_exceptions=True)
        raise HTTPException(503, f"Search is unavailable ({type(e).__name__}); try again shortly.") from None
    unknown, terms = (0.0, None) if terms_job is None else await terms_job
    response = await compose_answer(s, body.question, hits, unknown, terms=terms)
    response.keyword_search = keywords_ready
    answer = CachedAnswer(response.answer_mode, response.model_dump_json().encode("utf-8"))
    if not (s.llm_enabled and response.answer_mode != "llm"):  # an LLM that failed is asked again next time
        state.answers.put(key, generation, answer)
    return done(answer, body, start)


def coverage_terms(state: QueryState, body: ScopedQueryRequest) -> tuple[float, list[QueryTerm]]:
    """``(unknown share, query terms)`` of ``body.question`` in the caller's scope, from the
    keyword index (``KeywordIndex.unknown_share`` and ``query_terms``), for the coverage check."""
    kw_query = query_search_form(body.question)
    return (state.keywords.unknown_share(kw_query, body.departments),
            state.keywords.query_terms(kw_query, body.departments))


def done(answer: CachedAnswer, body: ScopedQueryRequest, start: float) -> Response:
    """The response for ``answer``, counted in the query metrics (cached or not)."""
    QUERY_LATENCY.labels(answer.mode).observe(time.perf_counter() - start)
    QUERIES.labels(scope_label(body.departments), answer.mode).inc()
    return Response(answer.body, media_type="application/json")

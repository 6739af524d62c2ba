"""The query service's routes: ``POST /api/v1/query``, its streaming sibling
``POST /api/v1/query/stream`` (Server-Sent Events) and ``GET /healthz``."""
from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from sse_starlette.sse import EventSourceResponse

from services.query.answer import AnswerToken, SourcesReady, answer_events, compose_answer
from services.query.answer_cache import CachedAnswer
from services.query.keyword_tokens import query_search_form
from services.query.retrieve import Hit, retrieve
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
    start = time.perf_counter()
    fresh = "no-cache" in request.headers.get("cache-control", "").lower()
    key, generation = body.model_dump_json(), state.answers.generation  # noted before any state is read
    cached = cache_lookup(state, key, fresh)
    if cached is not None:
        return done(cached, body, start)
    found = await search(state, body, fresh)
    response = await compose_answer(state.settings, body.question, found.hits, found.unknown, terms=found.terms)
    return done(store(state, key, generation, response, found.keywords_ready), body, start)


@router.post("/api/v1/query/stream", response_class=EventSourceResponse)
async def query_stream(state: StateDep, body: ScopedQueryRequest, request: Request) -> EventSourceResponse:
    """``POST /api/v1/query`` as Server-Sent Events, so a generated answer shows as it is written:
    event ``sources`` (a ``QueryResponse`` whose ``answer`` is empty while the LLM is asked,
    else already final), then one ``token`` per piece of the generated answer (``{"text"}``),
    then ``done`` (the final ``QueryResponse``, as ``POST /api/v1/query`` returns it: the figure
    guard may have replaced the generated text). An answer from the answer cache, or one made
    without an LLM, is ``sources`` and ``done`` only. Retrieval happens before the stream starts,
    so an outage is an HTTP 503 as on the other route; an LLM failure mid-stream ends in ``done``
    with the direct answer and a ``notice``.
    """
    start = time.perf_counter()
    fresh = "no-cache" in request.headers.get("cache-control", "").lower()
    key, generation = body.model_dump_json(), state.answers.generation  # noted before any state is read
    cached = cache_lookup(state, key, fresh)
    if cached is not None:
        counted(cached, body, start)
        final = cached.body.decode("utf-8")

        async def replay() -> AsyncIterator[dict[str, str]]:
            yield {"event": "sources", "data": final}
            yield {"event": "done", "data": final}
        return EventSourceResponse(replay())
    found = await search(state, body, fresh)

    async def stream() -> AsyncIterator[dict[str, str]]:
        async for event in answer_events(state.settings, body.question, found.hits, found.unknown,
                                         terms=found.terms):
            if isinstance(event, AnswerToken):
                yield {"event": "token", "data": json.dumps({"text": event.text}, ensure_ascii=False)}
            elif isinstance(event, SourcesReady):
                event.response.keyword_search = found.keywords_ready
                yield {"event": "sources", "data": event.response.model_dump_json()}
            else:
                answer = store(state, key, generation, event.response, found.keywords_ready)
                counted(answer, body, start)
                yield {"event": "done", "data": answer.body.decode("utf-8")}
    return EventSourceResponse(stream())


def cache_lookup(state: QueryState, key: str, fresh: bool) -> CachedAnswer | None:
    """The cached answer to the request ``key`` (``None``: none, or ``fresh`` asked to bypass
    it), counted in ``ANSWER_CACHE``."""
    cached = None if fresh else state.answers.get(key)
    ANSWER_CACHE.labels("hit" if cached is not None else "bypass" if fresh else "miss").inc()
    return cached


@dataclass(frozen=True)
class Found:
    """What retrieval found for a question: the ``hits`` (best first), the coverage evidence
    (``unknown`` share and ``terms``; ``None`` while the keyword index loads) and whether the
    keyword index took part."""

    hits: list[Hit]
    unknown: float
    terms: list[QueryTerm] | None
    keywords_ready: bool


async def search(state: QueryState, body: ScopedQueryRequest, fresh: bool) -> Found:
    """Retrieve the top ``body.top_k`` chunks of the caller's scope (``retrieve``), with the
    coverage terms worked out alongside.

    Raises:
        HTTPException: 503 when the embeddings endpoint or Chroma is down.
    """
    s = state.settings
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
    return Found(hits, unknown, terms, keywords_ready)


def store(state: QueryState, key: str, generation: int, response: QueryResponse, keywords_ready: bool) -> CachedAnswer:
    """``response`` serialised (with ``keyword_search``), kept in the answer cache under ``key``
    unless an LLM is configured and did not answer (it is asked again next time)."""
    response.keyword_search = keywords_ready
    answer = CachedAnswer(response.answer_mode, response.model_dump_json().encode("utf-8"))
    if not (state.settings.llm_enabled and response.answer_mode != "llm"):
        state.answers.put(key, generation, answer)
    return answer


def coverage_terms(state: QueryState, body: ScopedQueryRequest) -> tuple[float, list[QueryTerm]]:
    """``(unknown share, query terms)`` of ``body.question`` in the caller's scope, from the
    keyword index (``KeywordIndex.unknown_share`` and ``query_terms``), for the coverage check."""
    kw_query = query_search_form(body.question)
    return (state.keywords.unknown_share(kw_query, body.departments),
            state.keywords.query_terms(kw_query, body.departments))


def counted(answer: CachedAnswer, body: ScopedQueryRequest, start: float) -> CachedAnswer:
    """``answer``, counted in the query metrics (cached or not; ``start``: ``perf_counter`` at arrival)."""
    QUERY_LATENCY.labels(answer.mode).observe(time.perf_counter() - start)
    QUERIES.labels(scope_label(body.departments), answer.mode).inc()
    return answer


def done(answer: CachedAnswer, body: ScopedQueryRequest, start: float) -> Response:
    """The JSON response for ``answer``, counted in the query metrics."""
    return Response(counted(answer, body, start).body, media_type="application/json")

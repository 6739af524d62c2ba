"""Long-lived clients and in-memory state of one query-service process, created once in the
app's lifespan (``services/query/main.py``) and handed to the route through ``StateDep``."""
from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request

from services.query.answer_cache import AnswerCache
from services.query.keyword_index import KeywordIndex
from services.query.langbias import LanguageMeans
from services.query.question_vectors import QuestionVectors
from services.query.retrieve import CandidateSearch
from services.query.scoring import ScoringParams
from services.query.vector_cache import VectorCache
from shared.embeddings import EmbeddingClient
from shared.settings import Settings
from shared.vectorstore import VectorStore


@dataclass
class QueryState:
    """Everything the query route needs: clients, the keyword index and the language means
    (kept in step by ``follow.py``), the stored-vector cache, the question vectors (batched and
    cached, ``question_vectors``), the candidate searches (batched, ``retrieve.CandidateSearch``),
    the answer cache (dropped on every index change, ``answer_cache``) and the scoring
    parameters."""

    settings: Settings
    vectors: VectorStore
    embedder: EmbeddingClient
    cache: VectorCache
    means: LanguageMeans
    params: ScoringParams
    keywords: KeywordIndex
    questions: QuestionVectors
    answers: AnswerCache
    searcher: CandidateSearch
    keywords_ready: bool = False  # the lexicon and every chunk are loaded (``warmup.py``)
    means_ready: asyncio.Event = field(default_factory=asyncio.Event)


def get_state(request: Request) -> QueryState:
    """The process's state (set in the lifespan)."""
    state: QueryState = request.app.state.query
    return state


StateDep = Annotated[QueryState, Depends(get_state)]

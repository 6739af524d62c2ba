"""The Chroma candidate searches (``retrieve.search_candidates``, ``retrieve.CandidateSearch``) on
a real Chroma (in-process): concurrent questions' searches go in one request per collection
and filter, a question's chunk and question-line searches run at once, and every question gets
exactly the ids a search of its own returns, in the order of one search per vector and
collection."""
from __future__ import annotations

import asyncio
import uuid

import chromadb
import numpy as np
import pytest

from services.query.retrieve import CandidateSearch, search_candidates
from shared.settings import Settings
from shared.vectorstore import VectorStore

DIM = 16


@pytest.fixture(scope="module")
def store() -> VectorStore:
    s = VectorStore(Settings(chroma_collection=f"t{uuid.uuid4().hex[:8]}", embeddings_model="m"))
    s._client = chromadb.EphemeralClient()
    rng = np.random.default_rng(16)
    for doc in range(6):
        doc_id = f"{doc:032x}"
        ids = [f"{doc_id}_{i}" for i in range(10)]
        metas = [{"document_id": doc_id, "chunk_index": i, "department": "lands" if doc % 2 else "dev",
                  "visibility": "department"} for i in range(10)]
        s.upsert(ids, rng.standard_normal((10, DIM)).tolist(), ["text"] * 10, metas)
        s.upsert_questions(ids[:4], rng.standard_normal((4, DIM)).tolist(), ["question"] * 4, metas[:4])
    return s


def alone(store: VectorStore, qvs: list[list[float]], n: int, where=None) -> list[str]:
    """One search per vector and collection, one after another (the order before batching)."""
    out: dict[str, None] = {}
    for qv in qvs:
        for kind in ("chunks", "questions"):
            out.update(dict.fromkeys(store.query_vectors(kind, qv, n, where, metadata=False)["ids"][0]))
    return list(out)


def questions(n: int, seed: int = 1) -> list[list[list[float]]]:
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(DIM).tolist() for _ in range(1 + i % 2)] for i in range(n)]  # 1 or 2 vectors


async def test_concurrent_questions_share_one_request_per_collection(store: VectorStore) -> None:
    searcher = CandidateSearch(store, max_batch=32)
    asked = questions(8)
    got = await asyncio.gather(*(search_candidates(store, [(None, v) for v in qvs], 12, {}, searcher)
                                 for qvs in asked))
    assert searcher.requests == 2  # chunks and question lines, each one request for all 8 questions
    assert got == [alone(store, qvs, 12) for qvs in asked]


async def test_a_scope_filter_is_its_own_batch(store: VectorStore) -> None:
    searcher = CandidateSearch(store, max_batch=32)
    asked = questions(4, seed=2)
    scopes = [["lands"], None, ["lands"], ["dev"]]
    got = await asyncio.gather(*(search_candidates(store, [(None, v) for v in qvs], 5, {"departments": d}, searcher)
                                 for qvs, d in zip(asked, scopes, strict=True)))
    assert searcher.requests == 6  # 3 scopes x 2 collections
    from services.query.retrieve import build_where
    assert got == [alone(store, qvs, 5, build_where(departments=d)) for qvs, d in zip(asked, scopes, strict=True)]
    assert not searcher._batchers  # idle batchers are not kept


async def test_without_a_searcher_a_question_searches_alone(store: VectorStore) -> None:
    (qvs,) = questions(1, seed=3)
    assert await search_candidates(store, [(None, v) for v in qvs], 7, {}) == alone(store, qvs, 7)


async def test_concurrent_questions_fetch_their_texts_in_one_request(store: VectorStore) -> None:
    searcher = CandidateSearch(store, max_batch=32)
    doc = f"{0:032x}"
    wanted = [[f"{doc}_{i}", f"{doc}_{i + 1}", "gone_0"] for i in range(5)]  # overlapping, one not stored
    got = await asyncio.gather(*(searcher.texts(ids) for ids in wanted))
    assert searcher.requests == 1
    assert got == [["text", "text", None]] * 5

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

from services.query.keyword_index import KeywordIndex
from services.query.lexicon import Lexicon
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


def scope_index(store: VectorStore) -> KeywordIndex:
    """A keyword index holding the store's chunks (their departments and visibility)."""
    index = KeywordIndex(Lexicon({}, {}))
    got = store.collection.get(include=["metadatas"])
    index.load([(cid, "text", dict(meta)) for cid, meta in zip(got["ids"], got["metadatas"], strict=True)])
    return index


async def test_a_scope_is_applied_after_an_unfiltered_search(store: VectorStore) -> None:
    """A member's search (half the chunks in scope) fetches 2n/share ids without a filter and
    keeps the scope's first n: the same ids as the filtered search, one request per collection."""
    from services.query.retrieve import ScopeFilter, build_where
    scope = ScopeFilter(scope_index(store), ["lands"], store)
    assert scope.wide_n(5) == 20  # 2 x 5 / 0.5
    searcher = CandidateSearch(store, max_batch=32)
    for qvs in questions(6, seed=5):
        got = await search_candidates(store, [(None, v) for v in qvs], 5, {"departments": ["lands"]}, searcher, scope)
        assert got == alone(store, qvs, 5, build_where(departments=["lands"]))
    assert searcher._batchers == {}
    assert scope.keywords.in_scope(["not-indexed", f"{0:032x}_1", f"{1:032x}_1"], ["lands"]) == [None, False, True]


async def test_ids_the_keyword_index_does_not_hold_yet_are_judged_by_their_chroma_metadata(store: VectorStore) -> None:
    """A document indexed in the last second is in Chroma before the keyword index has applied
    its event: its chunks are kept or left out by their stored department, never dropped."""
    from services.query.retrieve import ScopeFilter, build_where
    full = scope_index(store)
    partial = KeywordIndex(Lexicon({}, {}))
    got = store.collection.get(include=["metadatas"])
    partial.load([(cid, "text", dict(m)) for cid, m in zip(got["ids"], got["metadatas"], strict=True)
                  if not cid.startswith(f"{1:032x}") and not cid.startswith(f"{2:032x}")])  # lands' and dev's
    assert full.scope_share(["lands"]) == partial.scope_share(["lands"]) == 0.5
    scope = ScopeFilter(partial, ["lands"], store)
    searcher = CandidateSearch(store, max_batch=32)
    for qvs in questions(4, seed=11):
        got_ids = await search_candidates(store, [(None, v) for v in qvs], 5, {"departments": ["lands"]}, searcher,
                                          scope)
        assert got_ids == alone(store, qvs, 5, build_where(departments=["lands"]))


async def test_a_small_scope_or_other_filters_search_with_the_filter(store: VectorStore) -> None:
    from services.query.retrieve import WIDE_MAX, ScopeFilter
    scope = ScopeFilter(scope_index(store), ["nobody"], store)
    assert scope.wide_n(5) is None  # no chunk in scope: the filtered search (the shared library only)
    assert ScopeFilter(scope_index(store), ["lands"], store).wide_n(WIDE_MAX) is None
    searcher = CandidateSearch(store, max_batch=32)
    (qvs,) = questions(1, seed=7)
    lands = ScopeFilter(scope_index(store), ["lands"], store)
    filters = {"departments": ["lands"], "document_ids": [f"{1:032x}"]}
    from services.query.retrieve import build_where
    got = await search_candidates(store, [(None, v) for v in qvs], 3, filters, searcher, lands)
    assert got == alone(store, qvs, 3, build_where(**filters))


async def test_too_few_of_the_scope_in_the_wide_search_falls_back_to_the_filter(store: VectorStore) -> None:
    """When the unfiltered top ids hold fewer than n of the scope (the scope's chunks lie far from
    the question), the filtered search answers."""
    from services.query.retrieve import ScopeFilter, build_where
    index = scope_index(store)
    scope = ScopeFilter(index, ["lands"], store)
    scope.wide_n = lambda n: n  # type: ignore[method-assign]  # as if the scope were the whole collection
    searcher = CandidateSearch(store, max_batch=32)
    for qvs in questions(4, seed=9):
        got = await search_candidates(store, [(None, v) for v in qvs], 8, {"departments": ["lands"]}, searcher, scope)
        assert got == alone(store, qvs, 8, build_where(departments=["lands"]))

"""The answer cache (``services/query/answer_cache.py``): a repeated request is answered from it,
every index change drops it, and an answer computed while a change was applied is never stored
(the race that kept a stale "not found": ``tests/e2e/test_keyword_events_e2e.py``). The route and
the follower are the real ones, on a real keyword index; retrieval is replaced by a keyword-only
stand-in that can be held mid-question (it needs Chroma and e5 otherwise)."""
from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from services.query import routes
from services.query.answer_cache import AnswerCache, CachedAnswer
from services.query.follow import Follower
from services.query.keyword_index import KeywordIndex
from services.query.langbias import LanguageMeans
from services.query.lexicon import Lexicon, load_lexicon
from services.query.retrieve import Hit, to_source
from shared.events import DocumentDeleted, DocumentIndexed
from shared.generation import IndexGeneration, default_generation
from shared.settings import Settings

WORD = "qxharbourprobe"


def answer(text: str) -> CachedAnswer:
    return CachedAnswer("extractive", text.encode())


def test_a_stored_answer_is_served_until_the_index_changes() -> None:
    cache = AnswerCache(10)
    g = cache.generation
    assert cache.get("q") is None
    assert cache.put("q", g, answer("a"))
    assert cache.get("q") == answer("a")
    cache.invalidate()
    assert cache.get("q") is None and len(cache) == 0
    assert cache.hits == 1 and cache.misses == 2


def test_an_answer_computed_before_a_change_is_refused() -> None:
    cache = AnswerCache(10)
    g = cache.generation          # a question starts
    cache.invalidate()            # an index event is applied meanwhile
    assert not cache.put("q", g, answer("stale"))
    assert cache.get("q") is None
    assert cache.put("q", cache.generation, answer("fresh"))
    assert cache.get("q") == answer("fresh")


def test_the_cache_is_bounded_and_can_be_off() -> None:
    cache = AnswerCache(2)
    for k in "abc":
        cache.put(k, cache.generation, answer(k))
    assert cache.get("a") is None and cache.get("c") == answer("c")
    off = AnswerCache(0)
    assert not off.put("a", off.generation, answer("a")) and off.get("a") is None


# --- the route and the follower together --------------------------------------------------
class Store:
    """The part of ``VectorStore`` the follower reads, in memory."""

    def __init__(self) -> None:
        self.chunks: dict[str, list[tuple[str, str, dict]]] = {}

    def put(self, doc_id: str, text: str) -> None:
        self.chunks[doc_id] = [(f"{doc_id}_0", text, {"document_id": doc_id, "lang": "en", "chunk_index": 0,
                                                       "chunk_kind": "text", "page_number": 1})]

    def iter_chunks(self, page: int = 2000):
        return iter([r for recs in self.chunks.values() for r in recs])

    def stats_records(self) -> list:
        return []

    def stats_scopes(self, where: Any = None) -> dict:
        return {}

    def document_chunks(self, doc_id: str) -> list:
        return list(self.chunks.get(doc_id, []))

    def document_stats(self, doc_id: str) -> dict:
        return {}

    def refresh(self) -> IndexGeneration:
        return default_generation("legco_chunks", "e5")


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return load_lexicon()


class Service:
    """The query route on a real keyword index kept by a real follower, with the answer cache
    invalidated by the follower; retrieval (``routes.retrieve``) is a keyword-only stand-in
    that waits at ``gate`` (when set) after it has read the index."""

    def __init__(self, lexicon: Lexicon, monkeypatch: pytest.MonkeyPatch) -> None:
        self.store = Store()
        self.store.put("old", "Ferry services ran to timetable. Pier repairs continue.")
        self.keywords = KeywordIndex(lexicon)
        self.answers = AnswerCache(100)
        self.follower = Follower(self.store, self.keywords, LanguageMeans(), on_change=self.answers.invalidate)
        self.follower.load()
        self.gate: asyncio.Event | None = None
        self.read = asyncio.Event()
        self.retrievals = 0
        monkeypatch.setattr(routes, "retrieve", self.retrieve)
        app = FastAPI()
        app.include_router(routes.router)
        app.state.query = SimpleNamespace(
            settings=Settings(llm_base_url="", llm_model=""), vectors=None, questions=None, searcher=None, means=None,
            params=None, cache=None, keywords=self.keywords, keywords_ready=True, answers=self.answers)
        self.http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://query")

    async def retrieve(self, vectors: Any, embedder: Any, question: str, k: int, *args: Any, **kw: Any) -> list[Hit]:
        self.retrievals += 1
        scores = self.keywords.search(question).scores  # the index as it is now
        metas = self.keywords.metadata(list(scores))
        if self.gate is not None:
            self.read.set()
            await self.gate.wait()
        return [Hit(to_source(cid, WORD, metas[cid], s, "keyword"), WORD, s) for cid, s in scores.items()][:k]

    async def ask(self, **headers: str) -> list[str]:
        r = await self.http.post("/api/v1/query", json={"question": WORD, "top_k": 5}, headers=headers)
        assert r.status_code == 200, r.text
        return [s["document_id"] for s in r.json()["sources"]]

    def index_new_document(self) -> None:
        self.store.put("new", f"The {WORD} survey covered every pier.")
        self.follower.apply([DocumentIndexed(document_id="new", filename="n.txt", strategy="token",
                                             strategy_used="token", file_type="txt", page_count=1, chunk_count=1)])


async def test_a_repeated_question_is_answered_from_the_cache(lexicon, monkeypatch) -> None:
    svc = Service(lexicon, monkeypatch)
    assert await svc.ask() == [] and await svc.ask() == []
    assert svc.retrievals == 1 and svc.answers.hits == 1
    assert await svc.ask(**{"Cache-Control": "no-cache"}) == []  # computed afresh
    assert svc.retrievals == 2


async def test_an_index_event_drops_the_cached_answers(lexicon, monkeypatch) -> None:
    svc = Service(lexicon, monkeypatch)
    assert await svc.ask() == []              # "not found", cached
    svc.index_new_document()
    assert await svc.ask() == ["new"]         # the event dropped it
    svc.follower.apply([DocumentDeleted(document_id="new")])
    del svc.store.chunks["new"]
    assert await svc.ask() == []


async def test_an_answer_computed_while_an_event_is_applied_is_not_kept(lexicon, monkeypatch) -> None:
    """The race: the question reads the old index, the event is applied (cache dropped) before
    the question finishes; its stale "not found" must not be stored."""
    svc = Service(lexicon, monkeypatch)
    svc.gate = asyncio.Event()
    asking = asyncio.create_task(svc.ask())
    await asyncio.wait_for(svc.read.wait(), 30)   # it has read the old index
    applied = threading.Thread(target=svc.index_new_document)  # the follower applies in a worker thread
    applied.start()
    applied.join()
    svc.gate.set()
    assert await asking == []                  # answered from the index it read
    svc.gate = None
    assert await svc.ask() == ["new"]          # ... but not kept
    assert svc.retrievals == 2
    assert await svc.ask() == ["new"] and svc.retrievals == 2  # the fresh answer is


async def test_an_answer_while_the_keyword_index_loads_says_so(lexicon, monkeypatch) -> None:
    """Right after a restart the keyword side is still loading: the answer says it comes from
    dense search alone (``keyword_search`` false), and once the warm-up makes the keyword
    side ready (and drops the cache) the same question is answered in full."""
    svc = Service(lexicon, monkeypatch)
    state = svc.http._transport.app.state.query  # type: ignore[attr-defined]
    state.keywords_ready = False
    r = (await svc.http.post("/api/v1/query", json={"question": WORD, "top_k": 5})).json()
    assert r["keyword_search"] is False
    state.keywords_ready = True
    svc.answers.invalidate()  # what warmup.py does when the keyword side becomes ready
    r = (await svc.http.post("/api/v1/query", json={"question": WORD, "top_k": 5})).json()
    assert r["keyword_search"] is True

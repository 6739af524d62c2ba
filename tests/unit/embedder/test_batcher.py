"""FairBatcher: requests are filled from the department served the fewest tokens lately (a
department arriving during a bulk goes first; what was served fades), vectors come back in
order, requests are bounded by texts and by tokens, an endpoint error reaches only the callers with a text in the
failed request."""
from __future__ import annotations

import asyncio

import pytest

from services.embedder.batcher import FairBatcher


class Endpoint:
    def __init__(self, fail_on: str | None = None) -> None:
        self.requests: list[list[str]] = []
        self.tokens: list[list[int]] = []
        self.fail_on = fail_on

    async def __call__(self, texts: list[str], tokens: list[int] | None = None) -> list[list[float]]:
        self.requests.append(list(texts))
        self.tokens.append(list(tokens or []))
        await asyncio.sleep(0.01)
        if self.fail_on and self.fail_on in texts:
            raise ConnectionError("endpoint down")
        return [[float(len(t)), float(ord(t[0]))] for t in texts]


async def test_vectors_in_order_and_requests_bounded():
    ep = Endpoint()
    b = FairBatcher(ep, max_texts=3)
    texts = [f"t{i}" * (i + 1) for i in range(8)]
    out = await b.embed_passages(texts, key="A")
    assert out == [[float(len(t)), float(ord(t[0]))] for t in texts]
    assert all(len(r) <= 3 for r in ep.requests) and sum(map(len, ep.requests)) == 8


async def test_a_second_department_shares_every_request():
    ep = Endpoint()
    b = FairBatcher(ep, max_texts=4)
    big = asyncio.create_task(b.embed_passages([f"a{i}" for i in range(40)], key="A"))
    await asyncio.sleep(0.015)                       # A's first request is out
    small = await b.embed_passages([f"b{i}" for i in range(4)], key="B")
    assert len(small) == 4
    # B's 4 texts went out in the next two requests (half of each), not after A's 40
    b_requests = [n for n, r in enumerate(ep.requests) if any(t.startswith("b") for t in r)]
    assert b_requests and b_requests[-1] <= 3
    await big


async def test_failure_reaches_only_callers_in_the_failed_request():
    ep = Endpoint(fail_on="bad")
    b = FairBatcher(ep, max_texts=2)
    ok = asyncio.create_task(b.embed_passages(["x1", "x2"], key="A"))
    await asyncio.sleep(0.015)
    with pytest.raises(ConnectionError):
        await b.embed_passages(["bad", "y"], key="B")
    assert len(await ok) == 2


async def test_requests_bounded_by_tokens_a_long_text_alone():
    ep = Endpoint()
    b = FairBatcher(ep, max_texts=10, max_tokens=100)
    texts = [f"t{i}" for i in range(6)]
    tokens = [40, 40, 40, 150, 10, 10]
    out = await b.embed_passages(texts, tokens, key="A")
    assert len(out) == 6
    assert ep.requests == [["t0", "t1"], ["t2"], ["t3"], ["t4", "t5"]]   # 80, 40 (+150 > 100), 150 alone, 20
    assert ep.tokens == [[40, 40], [40], [150], [10, 10]]                # the counts reach the endpoint


async def test_token_bound_keeps_the_departments_turn():
    ep = Endpoint()
    b = FairBatcher(ep, max_texts=10, max_tokens=100)
    a = asyncio.create_task(b.embed_passages(["a0", "a1", "a2"], [60, 60, 60], key="A"))
    bb = asyncio.create_task(b.embed_passages(["b0", "b1"], [30, 30], key="B"))
    await asyncio.gather(a, bb)
    # A's first text (60) starts the first request and B, served less, fits beside it; B's next
    # (30) would not fit. The next request starts with B (30 served < A's 60), then A fits.
    assert ep.requests == [["a0", "b0"], ["b1", "a1"], ["a2"]]


async def test_a_department_arriving_during_a_bulk_gets_the_next_requests_to_itself():
    ep = Endpoint()
    b = FairBatcher(ep, max_texts=4)
    bulk = asyncio.create_task(b.embed_passages([f"a{i}" for i in range(40)], key="A"))
    await asyncio.sleep(0.035)                       # A has been served a few requests
    served = len(ep.requests)
    small = await b.embed_passages([f"b{i}" for i in range(6)], key="B")
    assert len(small) == 6
    # B (served nothing) fills the next requests until its 6 texts are out: 4 + 2, then A again
    after = ep.requests[served:]
    assert after[0] == ["b0", "b1", "b2", "b3"] or after[1] == ["b0", "b1", "b2", "b3"]  # one of A's may be out
    assert sum(1 for r in ep.requests if any(t.startswith("b") for t in r)) == 2
    await bulk


async def test_what_a_department_was_served_fades_with_the_half_life():
    b = FairBatcher(Endpoint(), max_texts=4, half_life_s=0.05)
    await b.embed_passages(["a0", "a1"], [100, 100], key="A")
    assert 150 < b.attained("A") <= 200
    await asyncio.sleep(0.1)                         # two half-lives
    assert b.attained("A") < 60


class Concurrency:
    """An endpoint that answers after ``seconds`` and records how many requests it held at once."""

    def __init__(self, seconds: float = 0.05) -> None:
        self.seconds = seconds
        self.now = 0
        self.most = 0
        self.requests: list[list[str]] = []

    async def __call__(self, texts: list[str], tokens: list[int] | None = None) -> list[list[float]]:
        self.requests.append(list(texts))
        self.now += 1
        self.most = max(self.most, self.now)
        await asyncio.sleep(self.seconds)
        self.now -= 1
        return [[float(len(t))] for t in texts]


@pytest.mark.parametrize("in_flight", [1, 2])
async def test_in_flight_requests_are_outstanding_at_once(in_flight):
    ep = Concurrency()
    b = FairBatcher(ep, max_texts=2, in_flight=in_flight)
    out = await b.embed_passages([f"t{i}" for i in range(12)], key="A")
    assert len(out) == 12 and len(ep.requests) == 6
    assert ep.most == in_flight      # the endpoint always holds the next request while it computes one


async def test_a_cancelled_caller_leaves_the_queue():
    ep = Concurrency(0.05)
    b = FairBatcher(ep, max_texts=2, in_flight=1)
    gone = asyncio.create_task(b.embed_passages([f"g{i}" for i in range(10)], key="A"))
    await asyncio.sleep(0.02)                        # its first request is out
    gone.cancel()
    stays = await b.embed_passages(["s0", "s1"], key="A")
    assert len(stays) == 2
    sent = [t for r in ep.requests for t in r]
    assert sent == ["g0", "g1", "s0", "s1"]           # g2..g9 were never sent


def test_from_settings_takes_the_embeddings_bounds():
    from shared.settings import Settings

    s = Settings(embeddings_batch_size=7, embeddings_batch_tokens=99, embeddings_in_flight=3)
    b = FairBatcher.from_settings(Concurrency(), s)
    assert (b.max_texts, b.max_tokens, b._sem._value) == (7, 99, 3)

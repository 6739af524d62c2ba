"""Embedding work is measured in e5 tokens: requests bounded by tokens, the client timeout from a
request's tokens and the endpoint's measured speed (never a fixed one), the character estimate
never below the e5 tokenizer's count."""
from __future__ import annotations

import asyncio
import json

import httpx
import pypdfium2 as pdfium
import pytest
from openai import AsyncOpenAI

from shared.e5tokens import COUNTER, estimate_tokens, token_batches
from shared.embeddings import EmbeddingClient, EndpointSpeed
from shared.settings import Settings
from shared.textnorm import normalize_for_search
from tests.conftest import FIXTURES, REAL


def test_token_batches():
    assert token_batches([40, 40, 40, 150, 10], 100, 10) == [range(2), range(2, 3), range(3, 4), range(4, 5)]
    assert token_batches([1] * 5, 100, 2) == [range(2), range(2, 4), range(4, 5)]
    assert token_batches([], 100, 2) == []


def test_speed_gives_the_timeout():
    s = EndpointSpeed(floor=50, factor=4, min_timeout_s=10)
    assert s.timeout_for(2000) == 4 * 2000 / 50            # before any measurement: the floor
    s.observe(2000, 4.0)                                     # 500 tokens/s measured
    assert s.timeout_for(2000) == pytest.approx(16.0)
    assert s.timeout_for(100) == 10                          # the minimum
    s.observe(2000, 400.0)                                   # a very slow request: averaged, floored
    assert s.tokens_per_s == max(50, 0.3 * 5 + 0.7 * 500)
    s.timed_out()
    assert s.timeout_for(2000) == 4 * 2000 / 50


def _client(settings: Settings, handler) -> EmbeddingClient:
    c = EmbeddingClient(settings)
    c.client = AsyncOpenAI(base_url="http://e5.test/v1", api_key="x", max_retries=0,
                           http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)))
    return c


async def test_client_timeout_follows_tokens_and_measured_speed():
    settings = Settings(embeddings_min_tokens_per_s=100, embeddings_timeout_factor=5, embeddings_timeout_min_s=1,
                        embeddings_batch_tokens=400, embeddings_batch_size=32, client_retry_base_s=0.01)
    seen: list[tuple[list[str], float]] = []
    fail_next = [False]

    async def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append((body["input"], request.extensions["timeout"]["read"]))
        if fail_next[0]:
            fail_next[0] = False
            raise httpx.ReadTimeout("slow", request=request)
        await asyncio.sleep(0.05)
        data = [{"object": "embedding", "index": i, "embedding": [1.0, 0.0]} for i in range(len(body["input"]))]
        return httpx.Response(200, json={"object": "list", "data": data, "model": "m",
                                         "usage": {"prompt_tokens": 1, "total_tokens": 1}})

    c = _client(settings, handler)
    out = await c.embed_passages(["a", "b", "c"], tokens=[300, 100, 200])
    assert len(out) == 3
    assert [texts for texts, _ in seen] == [["a", "b"], ["c"]]          # 400 tokens, then 200
    assert seen[0][1] == pytest.approx(5 * 400 / 100)                    # the floor speed: 20 s
    assert seen[1][1] < seen[0][1] / 2                                  # measured: ~8000 tokens/s → the 1 s minimum
    assert seen[1][1] == pytest.approx(1.0)
    seen.clear()
    fail_next[0] = True
    await c.embed_passages(["d"], tokens=[300])                         # times out once, retried
    assert seen[0][1] == pytest.approx(1.0) and seen[1][1] == pytest.approx(5 * 300 / 100)  # back to the floor


def test_counter_is_the_e5_tokenizer():
    assert COUNTER.exact
    assert COUNTER.count("立法會") > COUNTER.count("立")
    assert COUNTER.count("hello", "passage") == 6                    # "passage: " 3 tokens, "hello", <s>, </s>
    assert COUNTER.count("hello", "query") == 7


def test_estimate_is_never_below_the_e5_count_on_the_corpus():
    texts = [(FIXTURES / "E_基礎設施.txt").read_text(encoding="utf-8")]
    for path in (REAL / "hk_csb_coai_exam_venues_reply_zh.pdf", REAL / "hk_isd_pr_remarks_sfs_media_session_en.pdf",
                 FIXTURES / "A_詳細數字一覽表.pdf"):
        pdf = pdfium.PdfDocument(path)
        texts += [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
    for t in texts:
        for x in (t, normalize_for_search(t)):
            assert estimate_tokens(x) >= COUNTER.count(x)

"""The answer guard (issue 17): every figure of a generated answer must occur in the sources it
cites; 15萬, 150,000, 十五萬 and 0.15 million are one figure. The LLM is the local fake
OpenAI-compatible server."""
from __future__ import annotations

import asyncio

import pytest

from services.query.answer import compose_answer
from services.query.coverage import CoverageParams
from services.query.figures import chinese_number, figures, unsupported
from services.query.retrieve import Hit
from shared.api import Source
from shared.settings import Settings
from tests.fake_vision import FakeVisionServer

PARAMS = CoverageParams(threshold=0.5, margin_weight=1.0)
ANSWER = "受影響人口約 150,000 人，安置屋邨於 2027 年落成。"


@pytest.mark.parametrize("text,value", [
    ("15萬", 150_000), ("150,000", 150_000), ("十五萬", 150_000), ("0.15 million", 150_000),
    ("HK$1.2 billion", 1.2e9), ("42 億元", 4.2e9), ("6.1 萬個", 61_000), ("每日 120 000 立方米", 120_000),
    ("百分之十五", 15), ("15%", 15), ("二〇二七年", 2027), ("一百二十", 120), ("兩億", 2e8), ("1,878,999", 1_878_999),
])
def test_figures_are_read_as_numbers(text, value):
    assert [f.value for f in figures(text)] == [pytest.approx(value)]


@pytest.mark.parametrize("text", ["一般情況下", "A1 答案 [1]", "1. 第一點\n2. 第二點", "Q7 and Q8"])
def test_words_codes_citations_and_list_numbers_are_not_figures(text):
    assert figures(text) == []


def test_chinese_numerals():
    assert chinese_number("十") == 10 and chinese_number("二十一") == 21 and chinese_number("三千零五") == 3005
    assert chinese_number("一億二千萬") == 120_000_000 and chinese_number("abc") is None


def test_unsupported_figures():
    assert [f.text for f in unsupported("約 100,000 人 [1]", ["約 15 萬人受影響"])] == ["100,000"]
    assert unsupported("約十五萬人，二〇二七年 [1]", ["約 150,000 人，2027 年"]) == []
    assert unsupported("hotline 1878 999", ["the hotline is 1878 999"]) == []  # spaced groups read apart too


def hit(chunk_id: str, score: float, text: str, qa: bool = False) -> Hit:
    fields: dict[str, object] = {"chunk_id": chunk_id, "document_id": "d", "filename": "f.pdf", "page_number": 2,
                                 "score": score, "snippet": text}
    if qa:
        fields |= {"question_id": "A1", "question_text": "受影響人口有多少？", "answer": text}
    return Hit(Source.model_validate(fields), text)


def ask(llm_reply: str, bodies: list[dict[str, object]] | None = None, **settings_kw: object) -> tuple:
    """The response to the question with the fake LLM answering ``llm_reply``, and its calls;
    ``bodies`` collects the chat requests' JSON bodies."""
    fake = FakeVisionServer(text_answer=llm_reply).start()
    try:
        settings = Settings(llm_base_url=fake.base_url, llm_model="fake", llm_retry_attempts=1, **settings_kw)
        pair = "問 A1：受影響人口有多少？\n答 A1：受影響人口約 15 萬人，安置屋邨於 2027 年落成。"
        hits = [hit("a", 0.9, pair, qa=True),
                hit("b", 0.6, "第二期收地於 2023 年刊憲。")]
        return asyncio.run(compose_answer(settings, "受影響人口有多少？", hits, params=PARAMS)), fake.calls
    finally:
        fake.stop()
        if bodies is not None:
            bodies += fake.text_bodies


def test_the_answer_length_cap_is_sent_only_when_set():
    capped: list[dict[str, object]] = []
    uncapped: list[dict[str, object]] = []
    ask(f"{ANSWER} [1]", capped, llm_max_tokens=300)
    ask(f"{ANSWER} [1]", uncapped)
    assert [b.get("max_tokens") for b in capped] == [300]
    assert ["max_tokens" in b for b in uncapped] == [False]  # 0: the endpoint's own default


def test_an_answer_with_an_invented_figure_is_replaced_and_flagged():
    resp, calls = ask("受影響人口約 100,000 人 [1]。")
    assert calls == 1
    assert resp.answer_mode == "extractive" and resp.guard == "figure 100,000 not in sources"
    assert "100,000" not in resp.answer and "受影響人口約 15 萬人" in resp.answer  # the prepared answer, verbatim
    assert resp.notice and "not in its sources" in resp.notice


def test_an_answer_whose_figures_are_all_in_its_sources_is_kept():
    resp, _ = ask(f"{ANSWER} [1]")  # 150,000 is the source's 15 萬
    assert resp.answer_mode == "llm" and resp.guard is None and resp.answer == f"{ANSWER} [1]"


def test_a_figure_only_in_a_source_the_answer_does_not_cite_is_flagged():
    resp, _ = ask("第二期收地於 2023 年刊憲 [1]。")  # 2023 is in source [2], not in [1]
    assert resp.guard == "figure 2023 not in sources"

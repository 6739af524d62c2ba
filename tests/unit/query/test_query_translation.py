"""Dense query translation: the question in the other language's words (``query_translation``),
and the blend of the two similarities in scoring."""
from __future__ import annotations

import numpy as np

from services.query.langbias import unit
from services.query.lexicon import Lexicon
from services.query.query_translation import translate_question
from services.query.scoring import Candidate, ScoringParams, score_candidates
from shared.settings import Settings

LINES = [
    "安置 安置 [an1 zhi4] /to find a place for/to resettle/to settle/to arrange for/",
    "日期 日期 [ri4 qi1] /date/CL:個|个[ge4]/",
    "日子 日子 [ri4 zi5] /day/a (calendar) date/days of one's life/",
    "綫 线 [xian4] /thread/string/line/",
    "路線 路线 [lu4 xian4] /itinerary/route/political line/line/",
    "第一 第一 [di4 yi1] /first/number one/",
    "公屋 公屋 [gong1 wu1] /public housing/",
]
VOCAB = {"安置", "日期", "日子", "路線", "first", "public", "hous", "date"}


def frequency(term: str) -> int:
    return {"日期": 9, "日子": 2}.get(term, 1)


def test_english_question_takes_the_usual_translation_and_keeps_names():
    lex = Lexicon.from_lines(LINES)
    out = translate_question("what is the date to resettle at San Tin Line after clearance", lex, VOCAB, frequency)
    # "date" has two translations in the index: the one more chunks hold; "Line" is part of a
    # name (capitalised), not 路線; San Tin has no entry and stays as written; "clearance" has
    # none either and is left out.
    assert out == "日期 安置 San Tin Line"


def test_chinese_question_keeps_the_untranslated_name_whole():
    lex = Lexicon.from_lines(LINES)
    out = translate_question("古洞北第一個公屋", lex, VOCAB, frequency)
    assert out == "古洞北 first 個 public housing"


def test_nothing_translatable_gives_none():
    assert translate_question("Kwu Tung", Lexicon.from_lines(LINES), VOCAB, frequency) is None


def test_scoring_blends_the_translation_similarity():
    topic, en, zh = np.eye(3)
    query = unit(0.4 * topic + en)  # an English question: its own vector is mostly "English"
    translated = unit(topic + 0.2 * zh)  # its translation reads as the topic
    right = Candidate("zh", "x" * 80, {"lang": "zh", "content_chars": 80}, unit(topic + 0.2 * zh))
    wrong = Candidate("en", "x" * 80, {"lang": "en", "content_chars": 80}, unit(0.2 * topic + en))
    params = ScoringParams.from_settings(Settings(), debias=False, translation_weight=0.0)
    assert score_candidates(query, "en", {}, [right, wrong], params, (translated, "zh"))[0].chunk_id == "en"
    on = ScoringParams.from_settings(Settings(), debias=False, translation_weight=0.5)
    ranked = score_candidates(query, "en", {}, [right, wrong], on, (translated, "zh"))
    assert ranked[0].chunk_id == "zh"
    assert abs(ranked[0].dense - 0.5 * float((query + translated) @ right.vector)) < 1e-9

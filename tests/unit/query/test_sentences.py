"""Sentences of a passage and the window around the question's terms."""
from __future__ import annotations

from services.query.sentences import MAX_SENTENCES, best_window, query_terms, sentence_window, split_sentences, units_of


def test_chinese_and_english_sentences_and_their_ends():
    assert split_sentences("第一句。第二句！第三句？第四；尾") == ["第一句。", "第二句！", "第三句？", "第四；", "尾"]
    assert split_sentences("他說：「好。」然後離開。") == ["他說：「好。」", "然後離開。"]
    en = "Signal No. 8 is in force, e.g. in a typhoon. The rate is 21.8 per cent. Is it paid? Yes."
    assert split_sentences(en) == ["Signal No. 8 is in force, e.g. in a typhoon. ", "The rate is 21.8 per cent. ",
                                   "Is it paid? ", "Yes."]
    assert "".join(split_sentences(en)) == en


def test_a_table_is_one_unit():
    table = "| a | b |\n| --- | --- |\n| 1. x | 2. y |"
    assert split_sentences(table) == [table]


PAGE = ["一、目的",
        "本文件旨在向委員簡介新發展區的工作。新發展區涉及收回約 260 公頃私人土地。"
        "每個試場設有1名主考員和6至10名監考員。試場會於考試前一日開放。"
        "考生須攜帶身份證明文件。其他安排稍後公布。"]


def test_window_is_around_the_best_sentence_and_holds_two_to_four():
    text = sentence_window(PAGE, query_terms("每個試場有幾多個主考員同監考員？", []))
    assert "每個試場設有1名主考員和6至10名監考員。" in text
    assert "一、目的" not in text and "其他安排稍後公布" not in text
    units = units_of(PAGE)
    start, end = best_window(units, query_terms("主考員 監考員", []))
    assert 2 <= end - start <= MAX_SENTENCES


def test_translated_terms_find_the_sentence_of_an_english_question():
    page = ["第一段無關。另一句無關。", "特惠津貼的金額如下。再一句。"]
    wanted = query_terms("How much is the ex gratia allowance?", ["特惠 (ex gratia)", "津貼 (allowance)"])
    text = sentence_window(page, wanted)
    assert text.startswith("特惠津貼的金額如下。")


def test_a_heading_is_context_not_a_sentence():
    paras = ["試場安排", "每個試場設有1名主考員。其後一句。", "無關。"]
    assert sentence_window(paras, query_terms("試場 主考員", [])) == "試場安排\n\n每個試場設有1名主考員。其後一句。"


def test_no_shared_term_gives_the_first_sentences():
    assert sentence_window(["甲。乙。丙。丁。戊。"], frozenset({"zz"})) == "甲。乙。"

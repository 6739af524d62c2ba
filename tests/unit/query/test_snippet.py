"""A source's snippet: the chunk's first characters reflowed, on one line."""
from __future__ import annotations

from services.query.retrieve import snippet

# E_基礎設施.pdf as the parser gives it: a topic header, a question wrapped by the PDF, the answer.
QA = ("(A) 排水系統\n"
      "問 A1：新發展區大量土地由農地變為已鋪築地面，會否增加上水及\n"
      "粉嶺一帶的水浸風險？\n"
      "答 A1：渠務署在規劃階段已完成排水影響評估，確認只要落實建議的\n"
      "排水改善工程，新發展區的發展不會增加周邊地區的水浸風險。")


def test_a_line_wrap_between_cjk_characters_leaves_no_space_and_structure_keeps_one():
    assert snippet(QA) == ("(A) 排水系統 問 A1：新發展區大量土地由農地變為已鋪築地面，"
                           "會否增加上水及粉嶺一帶的水浸風險？ "
                           "答 A1：渠務署在規劃階段已完成排水影響評估，確認只要落實建議的排水改善工程，"
                           "新發展區的發展不會增加周邊地區的水浸風險。")


def test_latin_words_keep_one_space_and_the_cut_is_marked():
    text = ("If an employee sustains an injury or dies as a result of an accident\n"
            "arising out of and in the course of his employment, his employer is in\n"
            "general liable to pay compensation.")
    assert snippet(text) == ("If an employee sustains an injury or dies as a result of an accident arising out of and "
                             "in the course of his employment, his employer is in general liable to pay compensation.")
    assert snippet(text, chars=20) == "If an employee susta…"

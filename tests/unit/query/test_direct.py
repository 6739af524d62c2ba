"""The direct answer: a Q&A pair's prepared answer verbatim, or the sentences around the match."""
from __future__ import annotations

from services.query.direct import direct_answer, prepared_answer, related_questions
from shared.api import Source

# E_基礎設施.pdf, B1 (abridged): section and topic lines above the question, a question wrapped
# over two lines, the 答 marker, a table, an internal note.
B1 = ("(B) 污水收集\n"
      "問 B1︰石湖墟淨化污水處理廠的處理量是否足以應付新發展區的人\n"
      "口增長？擴建工程的進度如何？\n"
      "答 B1︰足夠。石湖墟淨化污水處理廠正分兩期擴建，完成後處理量\n"
      "可應付北區現有人口及新發展區新增約 21.8 萬人口所產生的污水。\n"
      "| 設施 | 預計完成 |\n| --- | --- |\n| 第一期擴建 | 2026 年 |\n"
      "第一期擴建工程已於 2021 年展開。\n"
      "[內部補充資料：第二期擴建的工程預算約 58 億元。]")
B1_QUESTION = "石湖墟淨化污水處理廠的處理量是否足以應付新發展區的人口增長？擴建工程的進度如何？"


def source(chunk_id: str, *, qa: bool, text: str = "", score: float = 0.8, **kw: object) -> Source:
    fields: dict[str, object] = {"chunk_id": chunk_id, "document_id": "doc-e", "filename": "E_基礎設施.pdf",
                                 "page_number": 4, "score": score, "snippet": text[:30]}
    if qa:
        fields |= {"question_id": "B1", "question_text": B1_QUESTION, "answer": text, "topic_section": "(B) 污水收集",
                   "strategy_type": "question"}
    return Source.model_validate(fields | kw)


def test_prepared_answer_starts_after_a_wrapped_question_and_its_marker():
    answer = prepared_answer(B1, B1_QUESTION)
    assert answer.startswith("足夠。石湖墟淨化污水處理廠正分兩期擴建")
    assert "問 B1" not in answer and "(B) 污水收集" not in answer


def test_qa_direct_answer_is_the_pair_verbatim_under_its_question():
    d = direct_answer("污水處理廠夠唔夠？", source("e_3", qa=True, text=B1), B1)
    assert (d.kind, d.question_id, d.question_text, d.topic, d.page_number) == (
        "qa", "B1", B1_QUESTION, "(B) 污水收集", 4)
    assert "".join(d.text.split()) == "".join(prepared_answer(B1, B1_QUESTION).split())  # only whitespace changes
    assert "所產生的污水。\n\n| 設施 | 預計完成 |" in d.text and "| 2026 年 |\n\n第一期擴建工程" in d.text
    assert [b.kind for b in d.blocks] == ["text", "internal"]
    assert "58 億元" not in d.speaking_note and "第一期擴建工程已於 2021 年展開。" in d.speaking_note


def test_passage_direct_answer_is_a_sentence_window_not_the_page():
    page = ("試場安排\n每個試場設有1名主考員和6至10名監考員。考生須於開考前三十分鐘到達。"
            "試場會於考試前一日開放予考生查看。\n" + "其他無關的句子。" * 20)
    d = direct_answer("每個試場有幾多個主考員同監考員？", source("c_1", qa=False, text=page), page)
    assert d.kind == "passage" and d.question_id is None
    # the heading just before the window is kept as its context; the unrelated rest is not
    assert d.text.startswith("試場安排\n\n每個試場設有1名主考員和6至10名監考員。考生須於開考前三十分鐘到達。")
    assert "其他無關" not in d.text


def test_related_questions_are_the_other_qa_pairs_listed_not_pasted():
    best = source("e_3", qa=True, text=B1, score=0.9)
    other = source("e_4", qa=True, text="問 B2：另一問題？\n答 B2：另一答案。", score=0.7, question_id="B2",
                   question_text="另一問題？", page_number=5)
    passage = source("e_9", qa=False, text="一段文字。", score=0.6)
    related = related_questions([best, other, passage], best)
    assert [(r.question_id, r.question_text, r.filename, r.page_number) for r in related] == [
        ("B2", "另一問題？", "E_基礎設施.pdf", 5)]
    assert "answer" not in related[0].model_dump()

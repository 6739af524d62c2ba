"""Question strategy measured against fixtures/*.truth.json (whitespace-insensitive)."""
from __future__ import annotations

import re

import pytest

from services.splitter.preprocess import build_body
from services.splitter.split import split_document
from services.splitter.tokens import count_tokens
from shared.models import PageText, ParsedDocument

from splitter_corpus import FIXTURES, REAL, load_doc, load_truth, pdfium_doc, pypdf_doc, uncovered

E, B, L, A = "E_基礎設施", "B_古洞北粉嶺北新發展區概覽", "L_補償及安置安排", "A_詳細數字一覽表"


def ws(s: str | None) -> str:
    return re.sub(r"\s+", "", s or "")


def qa_chunks(cs):
    return [c for c in cs.chunks if c.metadata.get("chunk_kind") == "qa"]


def _load(stem, ext):
    if ext == "pypdf":
        return pypdf_doc(FIXTURES / f"{stem}.pdf")
    if ext == "pdfium":
        return pdfium_doc(FIXTURES / f"{stem}.pdf")
    return load_doc(FIXTURES / f"{stem}.{ext}")


# "pdf"/"docx"/"txt": the parser's API (or the local reader); "pypdf"/"pdfium": raw extractor text
CASES = [(E, "pdf"), (E, "docx"), (E, "txt"), (E, "pypdf"), (E, "pdfium"), (B, "pdf"), (B, "docx"), (B, "pypdf"),
         (B, "pdfium"), (L, "pdf"), (L, "docx"), (L, "pypdf"), (L, "pdfium")]


@pytest.mark.parametrize("stem,ext", CASES)
def test_pairs_match_truth(stem, ext, settings):
    truth = load_truth(stem)
    expected = truth["qa_pairs"] + truth["others"]
    doc = _load(stem, ext)
    cs = split_document(doc, "question", settings)
    assert cs.strategy_used == "question"
    chunks = qa_chunks(cs)
    assert [c.metadata["question_id"] for c in chunks] == [t["qa_id"] for t in expected]
    assert [c.metadata["question_index"] for c in chunks] == list(range(len(expected)))
    for n, (c, t) in enumerate(zip(chunks, expected, strict=True)):
        m = c.metadata
        assert m["strategy_type"] == "question" and m["chunk_kind"] == "qa"
        assert m.get("topic_section") == t["topic_section"], t["qa_id"]
        assert ws(m["question_text"]) == ws(t["question"]), t["qa_id"]
        assert ws(t["answer_first_sentence"]) in ws(c.text), t["qa_id"]
        assert ws(t["answer_last_sentence"]) in ws(c.text), t["qa_id"]
        if n + 1 < len(expected):
            assert ws(expected[n + 1]["question"]) not in ws(c.text), t["qa_id"]
        assert m["followup_count"] == t["followups"], t["qa_id"]
        assert m["internal_ref_count"] == t["internal_refs"], t["qa_id"]
        assert ws(c.embed_text).startswith(ws(t["question"]))
        if doc.file_type == "pdf":
            assert c.page_number == m["page_number"] == m["page_start"] == t["question_page"], t["qa_id"]
            assert m["page_end"] == t["end_page"], t["qa_id"]
            assert m["source_page_range"] == f"{t['question_page']}-{t['end_page']}"
        else:
            assert c.page_number is None and "page_start" not in m and "page_end" not in m
        for v in m.values():
            assert isinstance(v, (str, int, float, bool))
    assert [c.chunk_index for c in cs.chunks] == list(range(len(cs.chunks)))


@pytest.mark.parametrize("stem,ext", [(E, "pdf"), (E, "txt"), (B, "pdf"), (L, "pdf"), (L, "docx")])
def test_body_coverage(stem, ext, settings):
    """Every non-space character of the cleaned body is in exactly the chunk spans."""
    doc = _load(stem, ext)
    body = build_body(doc)
    cs = split_document(doc, "question", settings)
    assert uncovered(body.text, cs.chunks) == []
    # and the chunk texts really hold that text
    assert ws("".join(c.text for c in cs.chunks)) == ws(body.text)
    assert any(c.metadata["chunk_kind"] == "section" for c in cs.chunks)


def test_headers_footers_stripped(settings):
    doc = _load(E, "pdf")
    cs = split_document(doc, "question", settings)
    for c in cs.chunks:
        assert not re.search(r"^E-\d+$", c.text, re.M)
        assert "2024-06-17" not in c.text
        assert not re.search(r"^\(E\)$", c.text, re.M)


@pytest.mark.parametrize("stem,ext", [(E, "pdf"), (E, "docx"), (B, "pdf"), (B, "docx"), (L, "pdf"), (L, "docx")])
def test_answer_tables(stem, ext, settings):
    cs = split_document(_load(stem, ext), "question", settings)
    flags = {c.metadata["question_id"]: c.metadata["answer_contains_table"] for c in qa_chunks(cs)}
    t = load_truth(stem)
    assert flags == {q["qa_id"]: q["answer_contains_table"] for q in t["qa_pairs"] + t["others"]}


def test_internal_refs_excluded(settings):
    s = settings.model_copy(update={"qa_include_internal_refs": False})
    truth = {t["qa_id"]: t for t in load_truth(E)["qa_pairs"]}
    cs = split_document(_load(E, "pdf"), "question", s)
    for c in qa_chunks(cs):
        assert "內部參考" not in c.text and "內部補充資料" not in c.text
        if c.metadata["question_id"] in truth:
            assert c.metadata["internal_ref_count"] == truth[c.metadata["question_id"]]["internal_refs"]
    a1 = next(c for c in qa_chunks(cs) if c.metadata["question_id"] == "A1")
    assert "此資料不宜主動公開" not in a1.text
    assert ws(truth["A1"]["answer_first_sentence"]) in ws(a1.text)


def test_fallback_file_a(settings):
    for ext in ("pdf", "docx"):
        cs = split_document(_load(A, ext), "question", settings)
        assert cs.strategy_used == "token" and cs.strategy == "question"
        assert any("fell back" in n for n in cs.notes)
        assert cs.chunks and all(c.metadata["qa_fallback"] is True for c in cs.chunks)


def test_policy_address_negative_control(settings):
    cs = split_document(load_doc(REAL / "hk_policy_address_2019_zh.pdf"), "question", settings)
    assert cs.strategy_used == "token"
    assert not qa_chunks(cs)


@pytest.mark.parametrize("loader", [load_doc, pypdf_doc, pdfium_doc])
def test_faq_guide_19_pairs(loader, settings):
    doc = loader(REAL / "hk_ld_ec_ordinance_guide_faq_en.pdf")
    cs = split_document(doc, "question", settings)
    chunks = qa_chunks(cs)
    assert [c.metadata["question_id"] for c in chunks] == [f"Q{i}" for i in range(1, 20)]
    q15 = chunks[14]
    assert "A14 above" in re.sub(r"\s+", " ", q15.text)  # a wrapped "A14" is not a marker
    assert ws(chunks[0].metadata["question_text"]) == ws(
        "What should an employer take note of when taking out an employees’ compensation insurance policy?")
    assert ws(chunks[14].text).startswith(ws("Q15 Can an application"))
    for c in chunks:
        assert c.metadata["qa_style"] == "english" and c.metadata["qa_ambiguous"] is False
        assert c.page_number is not None and c.page_number >= 48


def _pdf(texts):
    pages = [PageText(page_number=i + 1, text=t) for i, t in enumerate(texts)]
    return ParsedDocument(document_id="x", filename="x.pdf", file_type="pdf", page_count=len(pages), pages=pages)


def test_oversized_pair_split_on_paragraphs(settings):
    para = "這是一段很長的答案內容，用來測試分段功能是否正常運作。" * 6
    table = "\n".join(["| 項目 | 數量 |", "|---|---|"] + [f"| 項目{i} | {i * 100} |" for i in range(30)])
    answer = "\n".join([para] * 6 + [table] + [para] * 4)
    text = (f"備用問答\n問 1：第一條問題是甚麼？\n答 1：{answer}\n問 2：第二條問題？\n答 2：簡短答案。"
            "\n問 3：第三條？\n答 3：是。")
    s = settings.model_copy(update={"qa_max_chunk_tokens": 400})
    cs = split_document(_pdf([text]), "question", s)
    parts = [c for c in qa_chunks(cs) if c.metadata["question_id"] == "1"]
    assert len(parts) > 2
    assert [c.metadata["part"] for c in parts] == list(range(1, len(parts) + 1))
    assert all(c.metadata["parts"] == len(parts) for c in parts)
    tables = [c for c in parts if "| 項目0 |" in c.text]
    assert len(tables) == 1 and "| 項目29 |" in tables[0].text  # table never cut
    for c in parts:
        assert ws("問 1：第一條問題是甚麼？") in ws(c.text[:40])
        if c is not tables[0]:
            assert count_tokens(c.text) <= 400
    rebuilt = ws("".join(c.text for c in parts)).replace(ws("問 1：第一條問題是甚麼？"), "")
    assert ws(answer) in ws("答1：" + rebuilt.replace("備用問答", "").replace("答1：", ""))


def test_cross_page_question_last_line(settings):
    pages = ["備用問題\nQ1. 第一題？\n答案一。\nQ2. 第二題在頁尾？\nX-1\n2024-01-01",
             "第二題的答案。\nQ3. 第三題？\n答案三。\nX-2\n2024-01-01"]
    cs = split_document(_pdf(pages), "question", settings)
    q2 = qa_chunks(cs)[1]
    assert q2.page_number == 1 and q2.metadata["page_end"] == 2
    assert "X-1" not in q2.text and "2024-01-01" not in q2.text


def test_markers_variants(settings):
    text = "問A1:甲問題？\n答A1:甲答案。\n問 A2︰乙問題？\n答 A2︰乙答案。\n問 3 ： 丙問題？\n答 3 ： 丙答案。"
    cs = split_document(_pdf([text]), "question", settings)
    assert [c.metadata["question_id"] for c in qa_chunks(cs)] == ["A1", "A2", "3"]


def test_pua_normalised_in_chunks(settings):
    text = ("問 1：屋\ue473的衞生？\n答 1：屋\ue473會\ue40c生。\uf0b7 項目\n問 2：下一題？\n答 2：好。"
            "\n問 3：再下一題？\n答 3：好。")
    cs = split_document(_pdf([text]), "question", settings)
    c = qa_chunks(cs)[0]
    assert "屋邨" in c.text and "衞生" in c.text and "\uf0b7" not in c.text


def test_fewer_than_three_pairs_fall_back_to_token_chunks(settings):
    """The seed's rule: two Q&A pairs do not make a Q&A paper; the note says why."""
    text = "問 1：第一題？\n答 1：答案一。\n問 2：第二題？\n答 2：答案二。"
    cs = split_document(_pdf([text]), "question", settings)
    assert cs.strategy_used == "token" and all(c.metadata["qa_fallback"] for c in cs.chunks)
    assert cs.notes[0] == "only 2 Q&A pairs detected (fewer than 3): fell back to token chunking"
    three = split_document(_pdf([text + "\n問 3：第三題？\n答 3：答案三。"]), "question", settings)
    assert three.strategy_used == "question"

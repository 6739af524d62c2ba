"""Documents that mix Q&A styles section by section (issue 17): the style is decided per topic
section, on the generated papers of ``tests/fixtures/mixed`` (``make_mixed.py``; PDF printed by
Chromium, DOCX, TXT): 問/答, ``Q1./A1.`` and Q-only parts with a press-transcript annex; ``Q./A.``
and a freshly numbered Q-only part with a Hansard annex; a media-session part before the
standby ``Q./A.`` pairs. Every pair is exact on id, style, topic, question, speakers, PDF pages
and boundaries, and every character of the body is in some chunk."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.splitter.preprocess import build_body
from services.splitter.split import split_document
from shared.models import PageText, ParsedDocument
from tests.fixtures.printed_pages import squash

from splitter_corpus import REPO, load_doc, uncovered

MIXED = REPO / "tests" / "fixtures" / "mixed"
TRUTHS = sorted(MIXED.glob("*.truth.json"))


def qa(chunks: list) -> list:
    return [c for c in chunks if c.metadata.get("chunk_kind") == "qa"]


def test_there_are_mixed_papers_in_three_formats():
    assert len(TRUTHS) >= 3
    for t in TRUTHS:
        stem = t.name.removesuffix(".truth.json")
        assert all((MIXED / f"{stem}.{ext}").is_file() for ext in ("pdf", "docx", "txt")), stem
        assert len({p["qa_style"] for p in json.loads(t.read_text(encoding="utf-8"))["qa_pairs"]}) >= 2, stem


@pytest.mark.parametrize("ext", ["pdf", "docx", "txt"])
@pytest.mark.parametrize("truth_file", TRUTHS, ids=lambda p: p.name.removesuffix(".truth.json"))
def test_each_section_is_split_in_its_own_style(truth_file: Path, ext: str, settings):
    truth = json.loads(truth_file.read_text(encoding="utf-8"))
    doc = load_doc(MIXED / f"{truth['file_stem']}.{ext}")
    cs = split_document(doc, "question", settings)
    assert cs.strategy_used == "question" and f"qa_style={truth['doc_qa_style']}" in cs.notes[0]
    pairs = qa(cs.chunks)
    got = [(m["question_id"], m["qa_style"], m.get("topic_section"), squash(m["question_text"]), m.get("speaker"),
            m.get("answered_by"), m["doc_qa_style"]) for m in (c.metadata for c in pairs)]
    want = [(t["qa_id"], t["qa_style"], t["topic_section"], squash(t["question"]), t["speaker"],
             "; ".join(t["answered_by"]) or None, truth["doc_qa_style"]) for t in truth["qa_pairs"]]
    assert got == want
    for c, t in zip(pairs, truth["qa_pairs"], strict=True):
        m = c.metadata
        assert squash(c.text) == squash("".join(t["text"])), t["qa_id"]  # the pair's exact boundaries
        if ext == "pdf":
            assert (c.page_number, m["page_start"], m["page_end"]) == (t["question_page"], t["question_page"],
                                                                       t["end_page"]), t["qa_id"]
        else:
            assert c.page_number is None and not {"page_number", "page_start", "page_end"} & set(m), t["qa_id"]
    assert [c.metadata["question_index"] for c in pairs] == list(range(len(pairs)))
    assert [c.chunk_index for c in cs.chunks] == list(range(len(cs.chunks)))


@pytest.mark.parametrize("ext", ["pdf", "docx", "txt"])
@pytest.mark.parametrize("truth_file", TRUTHS, ids=lambda p: p.name.removesuffix(".truth.json"))
def test_every_character_of_a_mixed_paper_stays_in_a_chunk(truth_file: Path, ext: str, settings):
    """Chunks in document order tile the body: a section's opening (the annex heading and the
    transcript's opening remark) is a narrative chunk between the pairs, not part of a pair."""
    doc = load_doc(MIXED / f"{truth_file.name.removesuffix('.truth.json')}.{ext}")
    body = build_body(doc)
    cs = split_document(doc, "question", settings)
    assert uncovered(body.text, cs.chunks) == []
    assert squash("".join(c.text for c in cs.chunks)) == squash(body.text)
    starts = [c.metadata["char_start"] for c in cs.chunks]
    assert starts == sorted(starts)


def _txt(text: str) -> ParsedDocument:
    return ParsedDocument(document_id="d", filename="d.txt", file_type="txt", page_count=1,
                          pages=[PageText(page_number=1, text=text)])


MARKED = ("備用問答\n問 A1：洪水橋站何時通車？\n答 A1：預計於 2030 年通車。\n問 A2：會否增設巴士路線？\n"
          "答 A2：運輸署會逐步增設。\n問 A3：工程費用為何？\n答 A3：約 42 億元。\n")
EXCHANGE = "記者：收地何時完成？\n發展局局長：明年年中完成。\n記者：津貼會否檢討？\n發展局局長：現時並無計劃。\n"


def test_an_exchange_quoted_inside_an_answer_stays_in_that_answer(settings):
    """Turns are looked for only in sections without a marked pair: reporters' questions quoted in
    the last answer, with no section heading before them, remain that answer's text."""
    cs = split_document(_txt(MARKED + EXCHANGE), "question", settings)
    pairs = qa(cs.chunks)
    assert [c.metadata["question_id"] for c in pairs] == ["A1", "A2", "A3"]
    assert "現時並無計劃" in pairs[-1].text


def test_the_same_exchange_under_an_annex_heading_is_a_transcript(settings):
    cs = split_document(_txt(MARKED + "附件：局長談話內容\n" + EXCHANGE), "question", settings)
    pairs = qa(cs.chunks)
    assert [(c.metadata["question_id"], c.metadata["qa_style"]) for c in pairs] == [
        ("A1", "chinese"), ("A2", "chinese"), ("A3", "chinese"), ("1", "transcript"), ("2", "transcript")]
    assert "局長談話內容" not in pairs[2].text and pairs[2].text.endswith("約 42 億元。")
    assert pairs[3].metadata["topic_section"] == "附件：局長談話內容"


def test_a_stray_question_number_does_not_restart_the_numbering(settings):
    """A ``Q1`` after ``Q3`` starts a new numbering only right under a section heading."""
    text = ("Q1. When will the station open?\nA1. In 2030.\nQ2. Will bus routes be added?\nA2. Yes.\n"
            "Q3. What is the cost?\nA3. About $4.2 billion, as in\nQ1 above.\n"
            "Part 2: Rehousing\nQ1. When is the cut-off date?\nA1. 1 June 2024.\n")
    pairs = qa(split_document(_txt(text), "question", settings).chunks)
    assert [(c.metadata["question_id"], c.metadata.get("topic_section")) for c in pairs] == [
        ("Q1", None), ("Q2", None), ("Q3", None), ("Q1", "Part 2: Rehousing")]
    assert "Q1 above" in pairs[2].text

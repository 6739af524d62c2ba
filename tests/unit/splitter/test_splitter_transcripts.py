"""Press-conference transcripts under "chunk by question" (issue 17, ``qa_transcript``): each
reporter's question with the officials' replies is one unit, numbered in order, the speakers in
the metadata; on generated media sessions (``tests/fixtures/transcripts``, PDF/DOCX/TXT) and on
the corpus's real ISD press release."""
from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest

from services.splitter.preprocess import build_body
from services.splitter.split import split_document
from shared.models import PageText, ParsedDocument

from splitter_corpus import REAL, REPO, load_doc

TRANSCRIPTS = REPO / "tests" / "fixtures" / "transcripts"
TRUTHS = sorted(TRANSCRIPTS.glob("T_*.truth.json"))


def ws(s: str | None) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", s or ""))


def qa(cs) -> list:
    return [c for c in cs.chunks if c.metadata.get("chunk_kind") == "qa"]


@pytest.mark.parametrize("ext", ["pdf", "docx", "txt"])
@pytest.mark.parametrize("truth_file", TRUTHS, ids=lambda p: p.name.removesuffix(".truth.json"))
def test_each_reporter_question_with_its_replies_is_one_unit(truth_file: Path, ext: str, settings):
    truth = json.loads(truth_file.read_text(encoding="utf-8"))
    doc = load_doc(TRANSCRIPTS / f"{truth['file_stem']}.{ext}")
    cs = split_document(doc, "question", settings)
    assert cs.strategy_used == "question" and "qa_style=transcript" in cs.notes[0]
    got = [(c.metadata["question_id"], ws(c.metadata["question_text"]), c.metadata["speaker"],
            c.metadata["answered_by"]) for c in qa(cs)]
    want = [(t["qa_id"], ws(t["question"]), t["speaker"], "; ".join(t["answered_by"])) for t in truth["qa_pairs"]]
    assert got == want
    chunks = qa(cs)
    for c, nxt in zip(chunks, truth["qa_pairs"][1:], strict=False):  # a reply never runs into the next question
        assert ws(nxt["question"]) not in ws(c.text)
    assert [c.metadata["chunk_kind"] for c in cs.chunks][0] == "section"  # the opening remarks
    body = build_body(doc)
    assert ws("".join(c.text for c in cs.chunks)) == ws(body.text)  # every character kept


def test_the_real_press_release_is_split_by_reporter_question(settings):
    cs = split_document(load_doc(REAL / "hk_isd_pr_remarks_sfs_media_session_en.pdf"), "question", settings)
    assert cs.strategy_used == "question"
    chunks = qa(cs)
    assert [c.metadata["question_id"] for c in chunks] == ["1", "2", "3"]
    assert chunks[0].metadata["question_text"].startswith("Can you tell us whether there is gonna be any compensation")
    assert chunks[1].metadata["answered_by"] == "Secretary for Security; Acting Commissioner of Police"
    assert "1878 999" in chunks[1].text and "1878 999" not in chunks[2].text
    assert all(c.metadata["speaker"] == "Reporter" for c in chunks)


def test_one_reporter_line_does_not_make_a_transcript(settings):
    """A briefing paper quoting a reporter once stays narrative (token fallback)."""
    text = ("Background\n\nReporter: the press asked about the timetable last week.\n\n"
            "The Secretary for Development: explained the programme in the Council.\n\n"
            "The works will be completed in 2030.\n")
    doc = ParsedDocument(document_id="d", filename="d.txt", file_type="txt", page_count=1,
                         pages=[PageText(page_number=1, text=text)])
    assert split_document(doc, "question", settings).strategy_used == "token"


HANSARD = sorted(TRANSCRIPTS.glob("HS_*.truth.json"))


@pytest.mark.parametrize("ext", ["pdf", "docx", "txt"])
@pytest.mark.parametrize("truth_file", HANSARD, ids=lambda p: p.name.removesuffix(".truth.json"))
def test_each_hansard_question_with_its_supplementaries_is_one_unit(truth_file: Path, ext: str, settings):
    """An oral question with the reply and the supplementary questions and replies after it is
    one unit, a written question with its reply another; the topic is the question's title, the
    speaker turns are in the metadata."""
    truth = json.loads(truth_file.read_text(encoding="utf-8"))
    doc = load_doc(TRANSCRIPTS / f"{truth['file_stem']}.{ext}")
    cs = split_document(doc, "question", settings)
    assert cs.strategy_used == "question" and "qa_style=hansard" in cs.notes[0]
    got = [(c.metadata["question_id"], ws(c.metadata["topic_section"]), ws(c.metadata["question_text"]),
            c.metadata["speaker"], c.metadata["answered_by"], c.metadata["speakers"]) for c in qa(cs)]
    want = [(t["qa_id"], ws(t["topic_section"]), ws(t["question"]), t["speaker"], "; ".join(t["answered_by"]),
             "; ".join(t["speakers"])) for t in truth["qa_pairs"]]
    assert got == want
    for c, nxt in zip(qa(cs), truth["qa_pairs"][1:], strict=False):  # the next question's title starts its unit
        assert ws(nxt["topic_section"]) not in ws(c.text) and ws(nxt["question"]) not in ws(c.text)
    assert ws("".join(c.text for c in cs.chunks)) == ws(build_body(doc).text)

"""Topic sections in every heading style LegCo papers use (issue 17), on the generated papers of
``tests/fixtures/headings`` (``make_headings.py``; PDF printed by Chromium, DOCX, TXT): letters
``(A)`` / ``A.``, ``一、`` / ``（一）`` / ``甲、``, Roman ``I.``, ``第一部分`` / ``Part 1`` /
``Section 2``, numbered ``1.`` / ``2.1`` and unnumbered heading lines, under ``問/答``, Q-only and
``Q./A.`` pairs. Every pair is found with its own topic line, as printed, on the page its question
is printed on (PDF), with exactly the paragraphs of its heading lines, question and answer."""
from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest

from services.splitter.preprocess import build_body
from services.splitter.split import split_document
from tests.fixtures.printed_pages import squash

from splitter_corpus import REPO, load_doc, uncovered

HEADINGS = REPO / "tests" / "fixtures" / "headings"
TRUTHS = sorted(HEADINGS.glob("*.truth.json"))


def ws(s: str | None) -> str:
    """Without whitespace, NFKC: Chromium's text layer writes some ideographs as Kangxi radicals
    (``⽔`` for 水); topic lines come with them folded (``markers.fold_radicals``)."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", s or ""))


def test_every_heading_style_has_a_paper_in_three_formats():
    assert len(TRUTHS) >= 14
    for t in TRUTHS:
        stem = t.name.removesuffix(".truth.json")
        assert all((HEADINGS / f"{stem}.{ext}").is_file() for ext in ("pdf", "docx", "txt")), stem


@pytest.mark.parametrize("ext", ["pdf", "docx", "txt"])
@pytest.mark.parametrize("truth_file", TRUTHS, ids=lambda p: p.name.removesuffix(".truth.json"))
def test_pairs_keep_their_topic_line(truth_file: Path, ext: str, settings):
    truth = json.loads(truth_file.read_text(encoding="utf-8"))
    doc = load_doc(HEADINGS / f"{truth['file_stem']}.{ext}")
    cs = split_document(doc, "question", settings)
    assert cs.strategy_used == "question"
    pairs = [c for c in cs.chunks if c.metadata.get("chunk_kind") == "qa"]
    got = [(c.metadata["question_id"], c.metadata.get("topic_section"), ws(c.metadata["question_text"]))
           for c in pairs]  # topic lines exactly as printed (radicals folded), questions as NFKC
    want = [(t["qa_id"], t["topic_section"], ws(t["question"])) for t in truth["qa_pairs"]]
    assert got == want
    # a heading line belongs to the pair under it, never to the answer above it
    for c, nxt in zip(pairs, truth["qa_pairs"][1:], strict=False):
        if nxt["topic_section"] != c.metadata.get("topic_section"):
            assert ws(nxt["topic_section"]) not in ws(c.text), c.metadata["question_id"]


@pytest.mark.parametrize("ext", ["pdf", "docx", "txt"])
@pytest.mark.parametrize("truth_file", TRUTHS, ids=lambda p: p.name.removesuffix(".truth.json"))
def test_pairs_have_their_printed_page_and_boundaries(truth_file: Path, ext: str, settings):
    """PDF: ``page_number`` = ``page_start`` = the page the question is printed on, ``page_end``
    the page of the answer's last line (both 1-based, read from the printed PDF by the
    generator); DOCX/TXT have no pages. Each pair's chunk is exactly its heading lines, question
    and answer paragraphs (compared without whitespace)."""
    truth = json.loads(truth_file.read_text(encoding="utf-8"))
    doc = load_doc(HEADINGS / f"{truth['file_stem']}.{ext}")
    pairs = [c for c in split_document(doc, "question", settings).chunks if c.metadata.get("chunk_kind") == "qa"]
    assert len(pairs) == len(truth["qa_pairs"])
    for c, t in zip(pairs, truth["qa_pairs"], strict=True):
        m = c.metadata
        if ext == "pdf":
            got = (c.page_number, m["page_number"], m["page_start"], m["page_end"], m["source_page_range"])
            want = (t["question_page"],) * 3 + (t["end_page"], f"{t['question_page']}-{t['end_page']}")
            assert got == want, t["qa_id"]
        else:
            assert c.page_number is None and not {"page_number", "page_start", "page_end"} & set(m), t["qa_id"]
        assert squash(c.text) == squash("".join(t["text"])), t["qa_id"]


@pytest.mark.parametrize("ext", ["pdf", "docx", "txt"])
@pytest.mark.parametrize("truth_file", TRUTHS[::3], ids=lambda p: p.name.removesuffix(".truth.json"))
def test_every_character_stays_in_a_chunk(truth_file: Path, ext: str, settings):
    """Headings moved into the pair below them lose nothing: every non-space character of the
    cleaned body is in some chunk's span, and the chunk texts together are the body."""
    stem = truth_file.name.removesuffix(".truth.json")
    doc = load_doc(HEADINGS / f"{stem}.{ext}")
    body = build_body(doc)
    cs = split_document(doc, "question", settings)
    assert uncovered(body.text, cs.chunks) == []
    assert ws("".join(c.text for c in cs.chunks)) == ws(body.text)

"""The token strategy strips page furniture as the question strategy does, and a page chunk whose
paragraph runs across a page break records the pages it spans (issue 18), on the generated
paper of ``tests/fixtures/fidelity`` (``page_break_paragraph``: ``- n -`` footers, a running
header, page 3's paragraph finishing on page 4)."""
from __future__ import annotations

from services.parser.parse import parse_document
from services.splitter.preprocess import build_body, strip_furniture
from services.splitter.split import split_document
from services.splitter.strategies.token import runs_on
from shared.models import ParsedDocument
from shared.settings import Settings
from tests.fixtures.fidelity.make_fidelity import BREAK_HEADER, BREAK_PAGES, page_break_paragraph


def _paper() -> ParsedDocument:
    name, data = page_break_paragraph()
    return parse_document(data, name, "doc-break", Settings(_env_file=None)).parsed


def test_token_chunks_have_no_footer_inside_a_paragraph_and_record_the_pages_it_spans(settings: Settings) -> None:
    chunks = split_document(_paper(), "token", settings).chunks
    assert [c.page_number for c in chunks] == [1, 2, 3, 4]
    for c in chunks:
        assert BREAK_HEADER not in c.text
        assert not any(f"- {n} -" in c.text for n in range(1, 5)), c.text
    third = chunks[2]
    assert "system, will be carried out in\nthree stages from 2025 to 2028" in third.text
    assert third.own_text().strip() == "\n".join(BREAK_PAGES[2])  # the page's own text, furniture gone
    got = [(c.metadata["page_start"], c.metadata["page_end"], c.metadata["source_page_range"]) for c in chunks]
    # pages 1 and 2 end their sentences; page 3's runs on to page 4, which page 4's chunk begins with
    assert got == [(1, 1, "1-1"), (2, 2, "2-2"), (3, 4, "3-4"), (3, 4, "3-4")]


def test_both_strategies_strip_the_same_furniture() -> None:
    doc = _paper()
    removed = {(page, line) for page, line in build_body(doc).removed}
    stripped = strip_furniture(doc)
    assert removed == {(p.page_number, line) for p, kept in zip(doc.pages, stripped, strict=True)
                       for line in p.text.split("\n") if line not in kept.split("\n")}
    assert len(removed) == 8  # the header and the footer of each page


def test_runs_on() -> None:
    assert runs_on("will be carried out in\n") and runs_on("the remaining land, and") and runs_on("政府已收回")
    assert runs_on("including the trunk sewers,") and runs_on("(see Annex")
    assert not runs_on("in service.") and not runs_on("政府已收回。") and not runs_on("| 2024 | 1,234 |")
    assert not runs_on("Members asked:") and not runs_on("")

"""The parser's fidelity classes of issue 18 on generated files (``tests/fixtures/fidelity``):
text files with control characters are read and cleaned, binary data never reaches the index
whatever its name, a PDF with junk before its header is recovered, and the fallback extractor
does not win by repeating a Form XObject cycle's text."""
from __future__ import annotations

import pytest

from services.parser.overprint import OverprintFilter
from services.parser.parse import parse_document
from services.parser.sniff import sniff
from services.parser.textquality import informative_chars
from services.parser.txt import clean_text, reads_as_language
from shared.errors import DocumentError
from shared.settings import Settings
from tests.fixtures.fidelity.make_fidelity import (
    BASE_PDF,
    CYCLE_LINE,
    OVERPRINT_BODY,
    OVERPRINT_GLYPH_HEADING,
    OVERPRINT_HEADING,
    OVERPRINT_REPEATED,
    TEXT_PAGES,
    form_xobject_cycle,
    junk_before_pdf,
    overprinted_heading,
    random_binary,
    symbol_soup,
    text_with_controls,
)


def test_a_utf8_text_with_form_feeds_zero_width_and_stray_controls_is_read_and_cleaned() -> None:
    name, data = text_with_controls()
    out = parse_document(data, name, "doc-controls", Settings())
    text = out.parsed.full_text()
    assert out.parsed.file_type == "txt" and out.parsed.extractor == "text:utf-8"
    assert "收地" in text and "Development" in text  # the zero-width spaces are gone
    assert not any(ch in text for ch in "\u200b\x07\x1b\f\x00")
    for page in TEXT_PAGES:  # every line of both pages is there, the form feed a blank line
        for line in page.splitlines():
            assert line in text
    assert "私人土地。\n\n\nPanel on" in text


@pytest.mark.parametrize("seed", range(20))
def test_random_binary_named_pdf_is_rejected(seed: int) -> None:
    name, data = random_binary(seed)
    with pytest.raises(DocumentError) as err:
        sniff(data, name)
    assert "binary data" in err.value.reason and "symbols" not in err.value.reason


def test_printable_symbols_are_not_text() -> None:
    name, data = symbol_soup()
    with pytest.raises(DocumentError) as err:
        sniff(data, name)
    assert err.value.code == "unsupported_type" and ".pdf" in err.value.reason
    assert "symbols and punctuation only" in err.value.reason and "binary" not in err.value.reason
    with pytest.raises(DocumentError) as err:
        sniff(data, "quotes.txt")
    assert err.value.code == "unsupported_encoding" and "only symbols and punctuation" in err.value.reason


def test_reads_as_language() -> None:
    assert reads_as_language("立法會 Panel on Development 2024")
    assert reads_as_language("| 年份 | 金額 |\n| --- | --- |\n| 2024 | 1,234 |")  # a table is still text
    assert reads_as_language("   \n")  # empty: reported later as a document without text
    assert not reads_as_language('""""""""""""""""""""""""""""""')
    assert not reads_as_language("~^`'\"" * 40)


def test_many_control_characters_mean_binary() -> None:
    assert clean_text("abc\x00\x01\x02\x03def") is None
    assert clean_text("\x00" * 100) is None  # nothing but NULs
    assert clean_text("   \n") == "   \n"  # blank, not binary
    title = "立法會發展事務委員會 Panel on Development and Housing"
    assert clean_text(title.replace("委員會", "委員會\x07")) == title


def test_a_pdf_with_junk_before_its_header_is_recovered() -> None:
    name, data = junk_before_pdf()
    sniffed = sniff(data, name)
    assert (sniffed.file_type, sniffed.pdf_offset) == ("pdf", 2_000)
    out = parse_document(data, name, "doc-junk", Settings())
    clean = parse_document(BASE_PDF.read_bytes(), BASE_PDF.name, "doc-clean", Settings())
    assert out.parsed.file_type == "pdf" and out.parsed.page_count == clean.parsed.page_count >= 1
    assert [p.text for p in out.parsed.pages] == [p.text for p in clean.parsed.pages]
    assert any("2,000 bytes of other data before the PDF" in w for w in out.parsed.warnings)


def test_junk_without_a_pdf_ending_is_still_not_a_pdf() -> None:
    with pytest.raises(DocumentError):
        sniff(b"\x00" * 1100 + b"%PDF-1.7\n", "a.pdf")


def test_the_fallback_extractor_does_not_win_by_repeating_a_form_xobject_cycle() -> None:
    name, data = form_xobject_cycle()
    out = parse_document(data, name, "doc-cycle", Settings())
    page = out.parsed.pages[0]
    assert page.text.count(CYCLE_LINE) == 1, page.text[:200]  # PDFium repeats it ~40 times
    assert out.parsed.extractor == "pypdf"


def test_informative_chars_counts_a_repeated_line_once() -> None:
    assert informative_chars("立法會 會議\nPanel on Development\n立法會會議\n") == len("立法會會議PanelonDevelopment")
    assert informative_chars("Drainage works.\r\n" * 40) == len("Drainageworks.")
    assert informative_chars("Drainage works. " * 40 + "Sewage works.") == len("Drainageworks.Sewageworks.")
    assert informative_chars("收地進度。" * 30) == len("收地進度。")


def test_an_overprinted_fake_bold_heading_is_read_once() -> None:
    name, data = overprinted_heading()
    out = parse_document(data, name, "doc-overprint", Settings())
    assert out.parsed.extractor == "pypdf"  # the primary reads it right, no fallback needed
    lines = out.parsed.pages[0].text.splitlines()
    assert lines == [OVERPRINT_HEADING, OVERPRINT_BODY, OVERPRINT_GLYPH_HEADING,
                     OVERPRINT_REPEATED, OVERPRINT_REPEATED]  # a value on two lines stays twice


def _show(f: OverprintFilter, text: str, x: float, y: float = 700.0) -> None:
    f(text, [1.0, 0.0, 0.0, 1.0, 0.0, 0.0], [12.0, 0.0, 0.0, 12.0, x, y], None, 1.0)


def test_overprint_filter_drops_a_copy_only_just_after_its_original_and_a_little_off() -> None:
    f = OverprintFilter()
    for x in (72.0, 72.3, 72.6, 72.9):  # a chain of copies 0.3 pt apart: one text
        _show(f, "Heading", x)
    _show(f, "\n", 0.0)
    _show(f, "Heading", 72.0, 680.0)  # the same text on the next line is a new line
    assert (f.text(), f.dropped) == ("Heading\nHeading", 3)

    stale = OverprintFilter()  # pypdf reports CID fragments at the line start: neighbours, not copies
    for ch in "謝謝":
        _show(stale, ch, 121.9)
    _show(stale, "Heading", 72.0)
    _show(stale, "Heading", 74.0)  # 2 pt off: a different place
    assert (stale.text(), stale.dropped) == ("謝謝HeadingHeading", 0)

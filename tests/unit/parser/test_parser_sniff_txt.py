"""Content sniffing and text decoding."""
from __future__ import annotations

import io
import zipfile

import pytest

from services.parser.sniff import sniff
from services.parser.txt import parse_txt, try_decode_text
from shared.errors import DocumentError


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_pdf_header_may_follow_junk_within_1024_bytes():
    assert sniff(b"\x00" * 500 + b"%PDF-1.7\n...", "a.pdf").file_type == "pdf"
    with pytest.raises(DocumentError):
        sniff(b"\x00" * 1100 + b"%PDF-1.7\n", "a.pdf")


def test_type_comes_from_content_not_name(corpus):
    pdf = (corpus / "bad" / "C06_blank_page2.pdf").read_bytes()
    result = sniff(pdf, "minutes.docx")
    assert result.file_type == "pdf"
    assert result.note is not None and ".docx" in result.note
    assert sniff(pdf, "minutes.pdf").note is None
    # benign disagreement: a UTF-8 text file with no/other extension
    assert sniff("立法會".encode(), "notes.md").file_type == "txt"
    assert sniff("立法會".encode(), "notes.md").note is None


def test_docx_needs_both_parts():
    ok = _zip({"[Content_Types].xml": b"<x/>", "word/document.xml": b"<x/>"})
    assert sniff(ok, "a.docx").file_type == "docx"
    with pytest.raises(DocumentError) as err:
        sniff(_zip({"[Content_Types].xml": b"<x/>", "xl/workbook.xml": b"<x/>"}), "a.docx")
    assert "Excel workbook" in err.value.reason
    with pytest.raises(DocumentError) as err:
        sniff(b"PK\x03\x04" + b"\x00" * 40, "a.docx")
    assert err.value.code == "corrupt"


@pytest.mark.parametrize(
    "data,words",
    [
        (b"\xff\xd8\xff\xe0" + b"\x00" * 100, "JPEG image"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, "old-format Office file"),
        (b"  <html><body>404</body></html>", "HTML"),
        (b"{\\rtf1\\ansi hello}", "RTF"),
    ],
)
def test_rejected_formats_say_what_they_are(data, words):
    with pytest.raises(DocumentError) as err:
        sniff(data, "paper.pdf")
    assert err.value.code == "unsupported_type"
    assert words in err.value.reason and "named .pdf" in err.value.reason


def test_unknown_extension_reason_lists_supported_types():
    with pytest.raises(DocumentError) as err:
        sniff(b"\x89PNG\r\n\x1a\n" + b"\x00" * 50, "scan.png")
    assert "PNG image" in err.value.reason and "PDF, Word (.docx) or text" in err.value.reason


def test_text_starting_with_bm_is_not_a_bitmap():
    assert sniff(b"BMW fleet report 2024\n", "a.txt").file_type == "txt"


def test_decoding_utf8_bom_big5_and_utf16():
    text = "立法會許功蓋"
    assert try_decode_text(text.encode("utf-8")) == (text, "utf-8")
    assert try_decode_text(b"\xef\xbb\xbf" + text.encode("utf-8")) == (text, "utf-8")
    assert try_decode_text(text.encode("cp950")) == (text, "cp950")
    assert try_decode_text(b"\xff\xfe" + text.encode("utf-16-le")) == (text, "utf-16-le")
    # HKSCS-only character: not in cp950, decoded with big5hkscs
    assert try_decode_text("𨋢立法會".encode("big5hkscs")) == ("𨋢立法會", "big5hkscs")


def test_crlf_normalised_and_binary_rejected():
    assert try_decode_text(b"a\r\nb\rc") == ("a\nb\nc", "utf-8")
    assert try_decode_text(b"abc\x00\x01\x02\x03def") is None
    with pytest.raises(DocumentError) as err:
        parse_txt(b"\x81\x00\xfe\xff" * 20)
    assert err.value.code == "unsupported_encoding"


def test_txt_page_has_no_page_number():
    page, codec = parse_txt("第一行\n第二行".encode())
    assert page.page_number is None and page.text == "第一行\n第二行" and page.char_count == 7
    assert codec == "utf-8"


def test_fixture_txt_export(corpus, parse_corpus, truth_of, no_ws):
    t = truth_of("E")
    out = parse_corpus(f"fixtures/{t['txt']}")
    assert out.parsed.file_type == "txt" and out.parsed.page_count == 1
    text = no_ws(out.parsed.full_text())
    for item in t["qa_pairs"]:
        assert no_ws(item["question"]) in text
    assert not out.parsed.full_text().startswith("\ufeff")


def test_utf8_in_any_script_is_kept_but_latin1_guess_is_refused():
    russian = "Законодательный совет Гонконга"
    assert try_decode_text(russian.encode("utf-8")) == (russian, "utf-8")
    # cp1252 bytes are not valid UTF-8 and not Big5 (0xE9 followed by a space)
    assert try_decode_text("café au lait".encode("cp1252")) is None


def test_lone_surrogates_in_a_text_layer_are_replaced_with_a_warning():
    from services.parser.parse import replace_lone_surrogates
    from shared.models import PageText

    pages = [PageText(page_number=3, text="立法會\ud800文件", char_count=6), PageText(page_number=4, text="ok")]
    notes = replace_lone_surrogates(pages)
    assert pages[0].text == "立法會\ufffd文件" and pages[1].text == "ok"
    assert len(notes) == 1 and notes[0].startswith("Page 3 held 1 unreadable")
    pages[0].text.encode("utf-8")  # writable now

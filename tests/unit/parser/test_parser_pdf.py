"""PDF text extraction on the fixtures and the real LegCo PDFs."""
from __future__ import annotations

import pytest

from services.parser.pdf import extract_pdf_text, format_pages, scan_threshold_chars
from services.parser.pdf_backends import read_pdfium, read_pypdf
from services.parser.textquality import garble_score, normalise_text
from shared.errors import DocumentError
from shared.settings import Settings

FIXTURE_PAGES = {"A": 6, "B": 5, "E": 13, "L": 15}


@pytest.mark.parametrize("letter,pages", sorted(FIXTURE_PAGES.items()))
def test_fixture_page_count_and_numbering(letter, pages, corpus, parse_corpus, truth_of):
    t = truth_of(letter)
    out = parse_corpus(f"fixtures/{t['file']}")
    assert out.parsed.page_count == pages == t["pages"]
    assert [p.page_number for p in out.parsed.pages] == list(range(1, pages + 1))
    assert out.parsed.file_type == "pdf"
    assert out.parsed.extractor == "pypdf"
    assert not any(p.scanned for p in out.parsed.pages)
    # every page carries the footer "X-<n>" of the fixture (README: page layout)
    for page in out.parsed.pages:
        assert f"{t['letter']}-{page.page_number}" in page.text
        assert "\r" not in page.text


@pytest.mark.parametrize("letter", ["B", "E", "L"])
def test_fixture_truth_strings_on_their_pages(letter, parse_corpus, truth_of, no_ws):
    """Every question and first answer sentence is on the page the truth file names."""
    t = truth_of(letter)
    pages = {p.page_number: no_ws(p.text) for p in parse_corpus(f"fixtures/{t['file']}").parsed.pages}
    missing = []
    for item in t["qa_pairs"] + t["others"]:
        if no_ws(item["question"]) not in pages[item["question_page"]]:
            missing.append((item["qa_id"], "question"))
        if no_ws(item["answer_first_sentence"]) not in pages[item["answer_start_page"]]:
            missing.append((item["qa_id"], "answer_first_sentence"))
    assert missing == []
    assert len(t["qa_pairs"] + t["others"]) > 0


def test_fixture_a_table_rows_present(parse_corpus, truth_of, no_ws):
    t = truth_of("A")
    text = no_ws(parse_corpus(f"fixtures/{t['file']}").parsed.full_text())
    for table in t["tables"]:
        for row in table["rows"]:
            assert no_ws(row[0]) in text, (table["name"], row[0])


def test_real_tables_paper_17_pages(parse_corpus):
    out = parse_corpus("real/hk_legco_sub_710-02_tables_zh.pdf").parsed
    assert out.page_count == 17
    assert "第 4 條：殘疾歧視的定義" in out.pages[1].text
    # the LegCo paper stamp is part of the page text
    assert "710/2026(02)" in out.pages[0].text.replace(" ", "")
    assert out.warnings == []


def test_real_encrypted_empty_password_guide(parse_corpus):
    out = parse_corpus("real/hk_ld_ec_ordinance_guide_faq_en.pdf")
    assert out.parsed.page_count == 64
    text = out.parsed.full_text()
    assert "Employees' Compensation Ordinance" in text or "Employees’ Compensation Ordinance" in text
    assert len(text) > 90_000
    assert len(out.page_pdfs) == 64
    # pdfium's U+0002 line-end hyphen never leaks through
    assert "\x02" not in text


def test_real_scanned_submission_is_returned_with_warning(parse_corpus):
    out = parse_corpus("real/hk_legco_sub_710-11_scanned_zh.pdf").parsed
    assert out.page_count == 14
    assert all(p.scanned for p in out.pages)
    assert sum(len(p.text.replace(" ", "").replace("\n", "")) for p in out.pages) == 23
    assert any("1-14" in w and "OCR" in w for w in out.warnings)


def test_scanned_pages_warning_says_whether_ocr_reads_them(corpus):
    """With the table stage's OCR on (the default) the pages are read, so the warning must not
    say they still need OCR; with it off it says OCR is off."""
    data = (corpus / "real" / "hk_legco_sub_710-11_scanned_zh.pdf").read_bytes()
    on = [w for w in extract_pdf_text(data, Settings()).warnings if "look scanned" in w]
    off = [w for w in extract_pdf_text(data, Settings(ocr_enabled=False)).warnings if "look scanned" in w]
    assert len(on) == 1 and "read from the page images (OCR)" in on[0] and "need OCR" not in on[0]
    assert len(off) == 1 and "need OCR to be searchable, and OCR is off" in off[0]


def test_policy_address_garbled_pypdf_pages_come_from_pdfium(parse_corpus):
    out = parse_corpus("real/hk_policy_address_2019_zh.pdf").parsed
    assert out.page_count == 24
    assert out.extractor == "pypdf+pypdfium2"
    assert "行政長官2019年施政報告" in out.pages[0].text
    assert "立法會主席、各位議員、各位市民" in out.pages[4].text
    for page in out.pages:
        assert not garble_score(page.text).garbled, page.page_number
    assert any("garbled" in w and "pypdfium2" in w for w in out.warnings)


def test_browser_printed_pdf_keeps_word_spaces(parse_corpus):
    text = parse_corpus("real/hk_isd_pr_remarks_sfs_media_session_en.pdf").parsed.full_text()
    assert "Remarks by S for S at media session on No. 5 alarm fire in Tai Po" in text


@pytest.mark.parametrize(
    "name,pages",
    [
        ("cn_landuse_standard_table_zh.pdf", 1),
        ("hk_brplus_rgbc_fulllist_zh.pdf", 4),
        ("hk_csb_coai_exam_venues_reply_zh.pdf", 3),
        ("hk_isd_pr_remarks_sfs_media_session_en.pdf", 2),
        ("hk_legco_sub_710-06_zh.pdf", 6),
    ],
)
def test_other_real_pdfs_page_counts(name, pages, parse_corpus):
    out = parse_corpus(f"real/{name}").parsed
    assert out.page_count == pages
    assert all(p.text and not p.scanned for p in out.pages)


def test_both_backends_read_the_same_pages(corpus):
    data = (corpus / "fixtures" / "B_古洞北粉嶺北新發展區概覽.pdf").read_bytes()
    a, b = read_pypdf(data), read_pdfium(data)
    assert len(a) == len(b) == 5
    assert abs(a[0].width_pt - b[0].width_pt) < 1 and abs(a[0].height_pt - b[0].height_pt) < 1
    assert "\r\n" in b[0].text and "\r\n" not in normalise_text(b[0].text)


def test_scan_threshold_scales_with_area():
    assert scan_threshold_chars(595.276, 841.89, 40) == pytest.approx(40)
    assert scan_threshold_chars(841.89, 1190.55, 40) == pytest.approx(80, rel=0.01)  # A3


def test_format_pages():
    assert format_pages([5, 1, 2, 3, 7, 8]) == "1-3, 5, 7-8"
    assert format_pages([4]) == "4"


def test_password_pdf_error_is_readable(corpus, settings):
    with pytest.raises(DocumentError) as err:
        extract_pdf_text((corpus / "bad" / "C08c_user_password_required.pdf").read_bytes(), settings)
    assert err.value.code == "encrypted"
    assert "password-protected" in err.value.reason

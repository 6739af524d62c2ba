"""Splitting PDFs into one-page PDFs."""
from __future__ import annotations

import io

import pypdf
import pytest

from services.parser.pages import split_pdf_pages
from shared.errors import DocumentError


def _reader(data: bytes) -> pypdf.PdfReader:
    return pypdf.PdfReader(io.BytesIO(data))


@pytest.mark.parametrize(
    "relpath,count",
    [
        ("fixtures/B_古洞北粉嶺北新發展區概覽.pdf", 5),
        ("real/hk_ld_ec_ordinance_guide_faq_en.pdf", 64),  # encrypted, empty user password
        ("bad/C08a_aes256_empty_user_pw.pdf", 1),
        ("real/hk_legco_sub_710-11_scanned_zh.pdf", 14),
    ],
)
def test_one_page_pdfs_are_valid_and_keep_the_page(relpath, count, corpus):
    data = (corpus / relpath).read_bytes()
    original = _reader(data)
    if original.is_encrypted:
        original.decrypt("")
    pages = list(split_pdf_pages(data))
    assert [n for n, _ in pages] == list(range(1, count + 1))
    for number, page_pdf in pages:
        assert page_pdf.startswith(b"%PDF-")
        one = _reader(page_pdf)
        assert not one.is_encrypted
        assert len(one.pages) == 1
        src = original.pages[number - 1]
        assert [float(v) for v in one.pages[0].mediabox] == pytest.approx([float(v) for v in src.mediabox])
        # content preserved, not regenerated: same text and same image count
        assert one.pages[0].extract_text() == src.extract_text()
        assert len(one.pages[0].images) == len(src.images)


def test_split_errors(corpus):
    with pytest.raises(DocumentError) as err:
        list(split_pdf_pages((corpus / "bad" / "C08c_user_password_required.pdf").read_bytes()))
    assert err.value.code == "encrypted"
    with pytest.raises(DocumentError) as err:
        list(split_pdf_pages((corpus / "bad" / "G06_zero_pages.pdf").read_bytes()))
    assert err.value.code == "no_pages"
    with pytest.raises(DocumentError) as err:
        list(split_pdf_pages((corpus / "bad" / "G05_truncated.pdf").read_bytes()))
    assert err.value.code == "corrupt"

"""Every file in corpus/bad behaves as MANIFEST.json's ``expected`` says.

Each file maps to either ("ok", check) - parsed, with ``check`` asserting the text is right
- or ("error", code, words) - a ``DocumentError`` with that code whose reason contains the
words. Files the manifest lists as hanging/amplifying in some library versions, and the zip
bomb, go through ``parse_document_isolated`` (child process, timeout, memory limit).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from services.parser.parse import ParseOutput, parse_document, parse_document_isolated
from services.parser.textquality import garble_score
from shared.errors import DocumentError
from shared.settings import Settings

CORPUS = Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus"
BAD = CORPUS / "bad"
MANIFEST = {e["file"]: e for e in json.loads((BAD / "MANIFEST.json").read_text(encoding="utf-8"))["files"]}
ISOLATED = {"C16a_self_referencing_prev_xref.pdf", "C16b_self_referencing_form_xobject.pdf",
            "G08_docx_zip_bomb.docx", "G05_truncated.pdf"}
SPECIAL_TOKENS = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>",
                  "<|endofprompt|>", "<|im_start|>", "<|im_end|>"]


def _text(out: ParseOutput) -> str:
    return out.parsed.full_text()


def check_c01a(out):
    text = _text(out)
    for s in ["立法會財務委員會", "討論文件：新界北部社區設施的設計及建造工程", "許可證功能及程序（第5條）",
              "當局表示，工程預計於二零二五年第三季展開，並於二零二八年年底前完成。"]:
        assert s in text
    assert not out.parsed.warnings


def check_c01b(out):
    text = _text(out)
    # Big5 characters whose second byte is 0x5C decode correctly; the paper number is whole.
    for s in ["許可證功能及程序（第5條）", "LC Paper No. CB(1)123/2024", "有關撥款會分四個財政年度支付。"]:
        assert s in text
    assert not garble_score(text).garbled


def check_c01d(out):
    (page,) = out.parsed.pages
    assert page.text == "" and page.scanned
    assert any("garbled" in w and "OCR" in w for w in out.parsed.warnings)


def check_c02(out):
    source = (BAD / "C02_rare_chars.txt").read_bytes().decode("utf-8")
    assert _text(out) == source.replace("\r\n", "\n")
    assert "𨋢" in _text(out) and "\ufffd" not in _text(out)


def check_c06(out):
    pages = out.parsed.pages
    assert [len(p.text) > 100 for p in pages] == [True, False, True]
    assert pages[1].text == "" and not pages[1].scanned
    assert any(w.startswith("Page 2 ") and "blank" in w for w in out.parsed.warnings)


def check_c07(out):
    assert out.parsed.page_count == 2
    assert all(p.scanned and p.text == "" for p in out.parsed.pages)
    assert any("1-2 of 2" in w and "OCR" in w for w in out.parsed.warnings)


def check_c08a(out):
    assert out.parsed.page_count >= 1
    assert len(_text(out)) > 1000
    assert not garble_score(_text(out)).garbled
    assert len(out.page_pdfs) == out.parsed.page_count


def check_c12(out):
    text = _text(out)
    assert text.count("財經事務") == 1
    assert text.count("2024-25年度預算 (百萬元)") == 1
    assert "| 非經常開支 | — | — |" in text


def check_c13(out):
    text = _text(out)
    assert text.count("附註：本文件只供參考") == 1  # text box once, not twice (VML fallback)
    assert "三億元" not in text and "三億五千萬元" in text  # deletion out, insertion in
    for s in ["嵌套表格：工程編號 B123 古洞北道路工程", "會議日期：二零二四年六月十四日", "發展局工務科",
              "立法會網站", "立法會秘書處 內部文件", "註一：數字以二零二四年價格計算。", "註二：詳情載於附件三。"]:
        assert s in text, s
    reference = (BAD / "C13_textbox_footnote_tracked.reference_render.txt").read_text(encoding="utf-8")
    ref_chars = len("".join(reference.split())) - len("三億元")
    ours = len("".join(text.replace("|", "").replace("---", "").replace("<br>", "").split()))
    assert abs(ours - ref_chars) <= 0.1 * ref_chars


def check_c13_reference(out):
    assert out.parsed.file_type == "txt" and "嵌套表格" in _text(out)


def check_c16a(out):
    assert out.parsed.page_count == 1 and 40 <= len(_text(out)) <= 80


def check_c16b(out):
    text = _text(out)
    assert text.count("Self-referencing form text") == 1  # not amplified


def check_c17a(out):
    assert len(_text(out)) > 1000


def check_special_tokens(out):
    # The PDF wraps lines inside some tokens, so compare with whitespace removed.
    text = "".join(_text(out).split())
    for token in SPECIAL_TOKENS:
        assert token in text


def check_c21(out):
    pages = out.parsed.pages
    assert len(pages) == 4 and all(len(p.text) > 200 for p in pages)


def check_big5(out):
    text = _text(out)
    assert out.parsed.extractor == "text:cp950"
    assert text.startswith("立法會財務委員會") and "許" in text and "功" in text
    assert "\ufffd" not in text


def check_bom(out):
    text = _text(out)
    assert text.startswith("立法會") and "\ufeff" not in text


EXPECTED = {
    "C01a_cid_font_no_tounicode.pdf": ("ok", check_c01a),
    "C01b_big5_etenb5h_no_tounicode.pdf": ("ok", check_c01b),
    "C01d_identity_h_no_tounicode_no_cmap.pdf": ("ok", check_c01d),
    "C02_rare_chars.txt": ("ok", check_c02),
    "C06_blank_page2.pdf": ("ok", check_c06),
    "C07_image_only.pdf": ("ok", check_c07),
    "C08a_aes256_empty_user_pw.pdf": ("ok", check_c08a),
    "C08c_user_password_required.pdf": ("error", "encrypted", ["password-protected"]),
    "C12_merged_cells.docx": ("ok", check_c12),
    "C13_textbox_footnote_tracked.docx": ("ok", check_c13),
    "C13_textbox_footnote_tracked.reference_render.txt": ("ok", check_c13_reference),
    "C16a_self_referencing_prev_xref.pdf": ("ok", check_c16a),
    "C16b_self_referencing_form_xobject.pdf": ("ok", check_c16b),
    "C17a_double_eof.pdf": ("ok", check_c17a),
    "C20_special_tokens.pdf": ("ok", check_special_tokens),
    "C20_special_tokens.txt": ("ok", check_special_tokens),
    "C21_rotated_and_columns.pdf": ("ok", check_c21),
    "G01_empty.docx": ("error", "empty", ["empty"]),
    "G01_empty.pdf": ("error", "empty", ["empty"]),
    "G01_empty.txt": ("error", "empty", ["empty"]),
    "G02_random_bytes.pdf": ("error", "unsupported_type", ["named .pdf", "binary"]),
    "G03_png_renamed.pdf": ("error", "unsupported_type", ["named .pdf", "PNG image"]),
    "G04_zip_renamed.docx": ("error", "unsupported_type", ["named .docx", "ZIP archive"]),
    "G05_truncated.pdf": ("error", "corrupt", ["damaged or incomplete"]),
    "G06_zero_pages.pdf": ("error", "no_pages", ["no pages"]),
    "G07_html_named.pdf": ("error", "unsupported_type", ["named .pdf", "HTML"]),
    "G08_docx_zip_bomb.docx": ("error", "too_large", ["too large when decompressed"]),
    "big5.txt": ("ok", check_big5),
    "utf8_bom.txt": ("ok", check_bom),
}


def test_every_bad_file_has_an_expectation():
    on_disk = {p.name for p in BAD.iterdir() if p.name != "MANIFEST.json"}
    assert on_disk == set(EXPECTED)
    assert set(MANIFEST) <= set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_file_behaves_as_manifest_expects(name):
    data = (BAD / name).read_bytes()
    parse = parse_document_isolated if name in ISOLATED else parse_document
    expected = EXPECTED[name]
    started = time.monotonic()
    if expected[0] == "ok":
        out = parse(data, name, "doc-1", Settings())
        assert out.parsed.document_id == "doc-1" and out.parsed.filename == name
        assert out.parsed.page_count == len(out.parsed.pages) >= 1
        if out.parsed.file_type == "pdf":
            assert sorted(out.page_pdfs) == list(range(1, out.parsed.page_count + 1))
        else:
            assert out.page_pdfs == {} and out.parsed.pages[0].page_number is None
        expected[1](out)
    else:
        _, code, words = expected
        with pytest.raises(DocumentError) as err:
            parse(data, name, "doc-1", Settings())
        assert err.value.code == code
        for word in words:
            assert word in err.value.reason
        assert "Traceback" not in err.value.reason and len(err.value.reason) < 300
    if name == "G08_docx_zip_bomb.docx":
        assert time.monotonic() - started < 10  # rejected before inflating 1 GB

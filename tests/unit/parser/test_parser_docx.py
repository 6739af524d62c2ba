"""DOCX body text: document order, markdown tables, merged cells, zip-bomb limits."""
from __future__ import annotations

import io
import zipfile

import pytest

from services.parser.docx import check_zip_limits, parse_docx
from shared.errors import DocumentError
from shared.settings import Settings

C12_TABLE = """\
| 政策範疇 | 2024-25年度預算 (百萬元) |  |  |
|---|---|---|---|
| 財經事務 | 經常開支 | 1,234.5 | 12.3% |
|  | 非經常開支 | — | — |
|  | 合計 | 1,234.5 | 0 |"""


def test_c12_merged_cells_markdown(corpus, settings):
    page = parse_docx((corpus / "bad" / "C12_merged_cells.docx").read_bytes(), settings)
    assert page.page_number is None
    assert C12_TABLE in page.text
    # paragraphs and the table keep document order, with blank lines around the table
    assert page.text.index("2024-25年度開支預算摘要") < page.text.index("| 政策範疇") < page.text.index("註：")
    assert "\n\n| 政策範疇" in page.text and "| 0 |\n\n註：" in page.text


def test_c13_order_and_nested_table(corpus, settings):
    text = parse_docx((corpus / "bad" / "C13_textbox_footnote_tracked.docx").read_bytes(), settings).text
    order = ["立法會秘書處 內部文件", "第一段", "附註：本文件只供參考", "擬議撥款總額為三億五千萬元",
             "會議日期", "| 項目 | 詳情 |", "嵌套表格", "文件完。", "[^1]: 註一"]
    positions = [text.index(s) for s in order]
    assert positions == sorted(positions)
    assert "第一段：本文件說明擬議修訂的背景。[^1]委員可參閱附件。" in text
    # nested table flattened inside its cell; the outer table still has 2 columns per row
    row = next(line for line in text.splitlines() if "外層表格第二行" in line)
    assert row.replace("\\|", "").count("|") == 3


@pytest.mark.parametrize("letter", ["B", "E", "L"])
def test_fixture_docx_truth_strings(letter, corpus, truth_of, no_ws, settings):
    t = truth_of(letter)
    text = parse_docx((corpus / "fixtures" / t["docx"]).read_bytes(), settings).text
    flat = no_ws(text)
    for item in t["qa_pairs"] + t["others"]:
        assert no_ws(item["question"]) in flat
        assert no_ws(item["answer_first_sentence"]) in flat
    assert f"({t['letter']})" in text  # page-1 header, once
    assert text.count(f"({t['letter']})") == 1


def test_fixture_a_docx_tables_markdown(corpus, truth_of, settings):
    t = truth_of("A")
    text = parse_docx((corpus / "fixtures" / t["docx"]).read_bytes(), settings).text
    header_lines = [line for line in text.splitlines() if line.startswith("| ")]
    assert len([line for line in text.splitlines() if line.startswith("|---")]) == len(t["tables"])
    first = t["tables"][0]
    assert "| " + " | ".join(first["header"]) + " |" in header_lines


def _docx_with_big_member(size: int, ratio_friendly: bool) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", b"<Types/>")
        payload = (bytes(range(256)) * (size // 256)) if ratio_friendly else b"\x00" * size
        zf.writestr("word/document.xml", payload)
    return buf.getvalue()


def test_zip_limits_total_and_ratio():
    small = _docx_with_big_member(1024, True)
    check_zip_limits(small, 10_000)
    with pytest.raises(DocumentError) as err:
        check_zip_limits(small, 1000)
    assert err.value.code == "too_large" and "too large when decompressed" in err.value.reason
    bomb = _docx_with_big_member(20 * 1024 * 1024, False)  # ~1000:1, under the total limit
    with pytest.raises(DocumentError) as err:
        check_zip_limits(bomb, 200 * 1024 * 1024)
    assert "expands" in err.value.reason


def test_zip_bomb_rejected_before_parsing(corpus):
    data = (corpus / "bad" / "G08_docx_zip_bomb.docx").read_bytes()
    with pytest.raises(DocumentError) as err:
        parse_docx(data, Settings())
    assert err.value.code == "too_large"
    # a larger limit is still caught by the compression-ratio check
    with pytest.raises(DocumentError):
        parse_docx(data, Settings(max_docx_uncompressed_bytes=4 * 1024**3))


def test_corrupt_docx_package(corpus):
    broken = io.BytesIO()
    with zipfile.ZipFile(broken, "w") as zf:
        zf.writestr("[Content_Types].xml", b"not xml")
        zf.writestr("word/document.xml", b"<w:document")
    with pytest.raises(DocumentError) as err:
        parse_docx(broken.getvalue(), Settings())
    assert err.value.code == "corrupt"

"""locate_table_span() on pypdfium2 page text of the fixtures and real table PDFs."""
from __future__ import annotations

import pypdfium2 as pdfium
import pytest

from services.tables import ExtractedTable, locate_table_span, render_markdown
from services.tables.models import TableFragment
from tests.unit.tables.conftest import REAL, extracted, fixture_pdf

DOCS = [fixture_pdf(x) for x in "ABEL"] + [
    REAL / "hk_csb_coai_exam_venues_reply_zh.pdf",
    REAL / "cn_landuse_standard_table_zh.pdf",
]


def _page_texts(path) -> list[str]:
    doc = pdfium.PdfDocument(path.read_bytes())
    try:
        return [doc[i].get_textpage().get_text_range().replace("\r\n", "\n") for i in range(len(doc))]
    finally:
        doc.close()


def _sq(s: str) -> str:
    return "".join(s.split())


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.stem)
def test_every_table_fragment_is_located_and_removed(path):
    texts = _page_texts(path)
    for table in extracted(str(path)):
        for frag in table.fragments:
            text = texts[frag.page - 1]
            span = locate_table_span(text, table, frag.page)
            assert span is not None, (table.header, frag.page)
            start, end = span
            rest = _sq(text[:start] + "\n" + table.markdown + "\n" + text[end:])
            # no row of the flattened table is left behind as noise
            for row in frag.rows:
                flat = _sq("".join(row))
                if len(flat) >= 6:
                    assert rest.count(flat) <= _sq(table.markdown.replace("|", "")).count(flat) + 0, row
            # and the span holds nothing but the table (within a few characters)
            assert len(_sq(text[start:end])) <= len(_sq("".join(c for r in frag.rows for c in r))) * 1.1


def test_not_on_page_or_absent_returns_none():
    t = ExtractedTable(
        page=1, pages=[1], header=["a", "b"], rows=[["1", "2"]], markdown=render_markdown(["a", "b"], [["1", "2"]]),
        fragments=[TableFragment(page=1, bbox=(0, 0, 1, 1), rows=[["甲乙丙丁", "戊己庚"], ["子丑寅卯", "辰巳午"]])],
    )
    assert locate_table_span("甲乙丙丁戊己庚子丑寅卯辰巳午", t, 2) is None
    assert locate_table_span("completely unrelated text", t, 1) is None
    text = "前文\n甲乙丙丁\n戊己庚\n子丑 寅卯\n辰巳午\n後文"
    s, e = locate_table_span(text, t, 1)
    assert text[:s] == "前文\n" and text[e:] == "\n後文"


def test_anchored_match_tolerates_cell_order():
    t = ExtractedTable(
        page=1, pages=[1], header=["a", "b"], rows=[["1", "2"]], markdown="",
        fragments=[TableFragment(page=1, bbox=(0, 0, 1, 1), rows=[
            ["項目名稱甲", "數值一二三"], ["合併儲存格", "四五六七"], ["", "八九十百"], ["最後一行", "千萬億兆"]])],
    )
    text = "前文\n項目名稱甲\n數值一二三\n四五六七\n合併儲存格\n八九十百\n最後一行\n千萬億兆\n後文"
    s, e = locate_table_span(text, t, 1)
    assert text[:s] == "前文\n" and text[e:] == "\n後文"

"""Real PDFs: a two-level header with a table crossing a page, and merged cells."""
from __future__ import annotations

from services.tables import parse_markdown_tables
from tests.unit.tables.conftest import REAL, extracted

CSB = REAL / "hk_csb_coai_exam_venues_reply_zh.pdf"
LANDUSE = REAL / "cn_landuse_standard_table_zh.pdf"


def _sq(s: str) -> str:
    return "".join(s.split())


def test_csb_two_level_header_and_page_crossing_table():
    tables = extracted(str(CSB))
    assert [t.pages for t in tables] == [[1], [1, 2], [2]]
    first, crossing, third = tables
    # two-level header: 試場數目 spans the two exam dates
    assert [_sq(h) for h in first.header] == ["", "地區", "試場數目2021年6月5日", "試場數目2021年6月12日"]
    assert first.header_rows is not None and len(first.header_rows) == 2
    assert len(first.rows) == 18 and first.rows[7] == ["8.", "黃大仙區", "3", "3"]
    # the 18 districts continue onto page 2; row 8 sits in an open (top-border-less) row
    assert crossing.header == ["", "地區", "試場數目"]
    assert [r[0] for r in crossing.rows] == [f"{i}." for i in range(1, 19)]
    assert crossing.rows[7] == ["8.", "黃大仙區", "3"]
    assert crossing.rows[9] == ["10.", "離島區", "14"]
    assert len(third.rows) == 18 and third.rows[-1] == ["18.", "元朗區", "6"]
    [md] = parse_markdown_tables(crossing.markdown)
    assert len(md.rows) == 18


def test_landuse_merged_cells():
    tables = extracted(str(LANDUSE))
    assert len(tables) == 3
    t1, t2, t3 = tables
    assert t1.header[:3] == ["公路技术等级", "车道数", "用地指标基准值"]
    assert t1.header[3].startswith("编制条件 ") and t1.header[4].startswith("编制条件 ")
    assert len(t1.rows) == 6
    # vertically merged row label is repeated on every row it spans
    assert [r[0] for r in t1.rows] == ["高速公路"] * 3 + ["一级公路"] * 2 + ["二级公路"]
    assert t1.rows[0] == ["高速公路", "八", "2.5000", "60000≤Q＜80000", "20＜μ≤30"]
    assert len(t2.header) == 8 and t2.header[3] == "大型车比例μ（%） μ≤10"
    assert all(h.startswith("大型车比例μ（%）") for h in t2.header[3:])
    assert len(t2.rows) == 9
    assert [r[1] for r in t2.rows] == ["八", "八", "六", "六", "四", "四", "六", "四", "二"]
    assert t2.rows[-1] == ["二级公路", "二", "Q＜15000", "1.00", "1.00", "1.00", "1.00", "1.00"]
    assert t3.header == ["路段监控通信分中心", "路段监控通信站", "桥隧监控通信站"]
    assert t3.rows == [["1.7333", "0.8667", "0.5333"]]
    for t in tables:
        assert "\n" not in "".join(t.header) + "".join(c for r in t.rows for c in r)

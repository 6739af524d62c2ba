"""Unit tests: cell-line joining, markdown render/parse, argument errors."""
from __future__ import annotations

import pytest

from services.tables import extract_tables, parse_markdown_tables, render_markdown
from services.tables.cells import join_cell_lines
from services.tables.markdown import escape_cell, split_row
from tests.unit.tables.conftest import fixture_pdf


@pytest.mark.parametrize("raw, joined", [
    ("古洞北公用設施共同溝（第\n一段）", "古洞北公用設施共同溝（第一段）"),
    ("公營 51,000／私營\n25,000", "公營 51,000／私營 25,000"),
    ("21,000（首階\n段）\n68,000（最\n終）", "21,000（首階段）68,000（最終）"),
    ("2019 年 6 月\n28 日", "2019 年 6 月 28 日"),
    ("Home Ownership\nScheme", "Home Ownership Scheme"),
    (None, ""),
    ("  \n a \n\n", "a"),
])
def test_join_cell_lines(raw, joined):
    assert join_cell_lines(raw) == joined


def test_render_escapes_pipes_and_newlines():
    md = render_markdown(["a|b", "c"], [["x\ny", "1|2"], ["only one"]])
    assert md.splitlines() == [
        "| a\\|b | c |",
        "| --- | --- |",
        "| x y | 1\\|2 |",
        "| only one |  |",
    ]
    [t] = parse_markdown_tables(md)
    assert t.header == ["a|b", "c"] and t.rows == [["x y", "1|2"], ["only one", ""]]
    with pytest.raises(ValueError):
        render_markdown([], [])


def test_escape_cell():
    assert escape_cell(None) == "" and escape_cell(" a \n b ") == "a b" and escape_cell("a\\|b") == "a\\|b"


def test_parse_llm_answer_with_several_tables():
    text = """Here is the page.

| 項目 | 數值 |
|:---|---:|
| 甲 | 1 |
| 乙 | 2 | extra |

Some prose | with a pipe
not a table
a | b
--- | ---
1 | 2
3
"""
    t1, t2 = parse_markdown_tables(text)
    assert t1.header == ["項目", "數值"] and t1.rows == [["甲", "1"], ["乙", "2"]]
    assert t2.header == ["a", "b"] and t2.rows == [["1", "2"]]
    assert parse_markdown_tables("| a | b |\n| --- |\n| 1 | 2 |") == []
    assert parse_markdown_tables("") == []


def test_split_row():
    assert split_row("| a | b \\| c |") == ["a", "b | c"]
    assert split_row("a|b") == ["a", "b"]


def test_errors_and_page_selection():
    with pytest.raises(ValueError):
        extract_tables(b"not a pdf")
    data = fixture_pdf("A").read_bytes()
    with pytest.raises(ValueError):
        extract_tables(data, pages=[0])
    only3 = extract_tables(data, pages=[3])
    assert [t.pages for t in only3] == [[3]] * 4
    both = extract_tables(data, pages=[3, 4])
    assert both[3].pages == [3, 4] and both[3].rows[-1] == ["總計", "412", "100.0%"]

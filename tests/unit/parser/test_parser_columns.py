"""Two-column pages are read column by column (issue 18): the generated bilingual page of
``tests/fixtures/fidelity`` and the corpus's parallel-text page through the parser, and
``columns.column_text``'s guards on position layers built here (single column, tables, a line
across the gutter between the columns)."""
from __future__ import annotations

from collections.abc import Callable

from services.parser.columns import column_text
from services.parser.parse import ParseOutput, parse_document
from shared.models import BoxLine, PageBoxes
from shared.settings import Settings
from tests.fixtures.fidelity.make_fidelity import COLUMN_EN, COLUMN_TITLE, COLUMN_ZH, TABLE_ROWS, two_column_pages


def test_an_english_and_a_chinese_column_on_shared_baselines_are_read_column_by_column() -> None:
    name, data = two_column_pages()
    out = parse_document(data, name, "doc-columns", Settings())
    first, table = out.parsed.pages
    assert first.text == "\n\n".join([COLUMN_TITLE, "\n".join(COLUMN_EN), "\n".join(COLUMN_ZH)])
    assert first.char_count == len(first.text)
    assert out.parsed.extractor == "pypdf+pypdfium2"  # the columns' text is PDFium's
    # a table of short cells is not split: its rows stay rows
    assert table.text.splitlines() == [f"{a} {b}" for a, b in TABLE_ROWS]


def _line(text: str, x0: float, y: float, char_w: float = 5.0) -> BoxLine:
    xs = [x0 + i * char_w for i in range(len(text) + 1)]
    return BoxLine(o=0, t=text, b=(x0, y, xs[-1], y + 10), x=xs)


PROSE = "the quick brown fox jumps over it"  # 33 characters: 165 pt at 5 pt a character


def _page(lines: list[BoxLine]) -> PageBoxes:
    return PageBoxes(page=1, width=595, height=842, lines=lines)


def test_two_prose_columns_read_left_then_right_with_a_title_above() -> None:
    lines = [_line("Title over both columns of the page " * 2, 72, 50)]
    for i in range(8):  # one run across the gutter per row, as PDFium reads a shared baseline
        lines.append(_line(f"{PROSE} {i}" + " " * 10 + f"{PROSE} R{i}", 72, 80 + 14 * i))
    text = column_text(_page(lines))
    assert text is not None
    blocks = text.split("\n\n")
    assert blocks[1].splitlines() == [f"{PROSE} {i}" for i in range(8)]
    assert blocks[2].splitlines() == [f"{PROSE} R{i}" for i in range(8)]


def test_a_single_column_a_table_and_a_title_between_the_columns_are_left_alone() -> None:
    single = [_line(f"{PROSE} {PROSE} {i}", 72, 80 + 14 * i) for i in range(12)]
    assert column_text(_page(single)) is None
    table = [_line(f"{a}", 72, 80 + 14 * i) for i, (a, _) in enumerate(TABLE_ROWS * 2)]
    table += [_line(f"{b}", 310, 80 + 14 * i) for i, (_, b) in enumerate(TABLE_ROWS * 2)]
    assert column_text(_page(table)) is None  # two columns, but of cells, not running text
    three = [_line(PROSE[:12], x, 80 + 14 * i) for i in range(8) for x in (72, 200, 330)]
    assert column_text(_page(three)) is None  # two gutters
    crossed = [_line(PROSE, x, 80 + 14 * i) for i in range(12) for x in (72, 310)]
    crossed.append(_line("A heading across both columns of the page here", 72, 80 + 14 * 6 + 7))
    assert column_text(_page(crossed)) is None
    crossed.pop()
    assert column_text(_page(crossed)) is not None  # without it: two columns


def test_the_parallel_text_page_of_the_bad_corpus_reads_english_then_chinese(
        parse_corpus: Callable[[str], ParseOutput]) -> None:
    out = parse_corpus("bad/C21_rotated_and_columns.pdf")
    lines = out.parsed.pages[3].text.splitlines()
    assert lines[:2] == ["Parallel text 中英對照", "The Finance Committee is invited to approve a"]
    english_end = lines.index("cost overruns and delays.")
    assert lines[english_end + 2] == "本文件旨在請委員通過一項新承擔額，以推展新"
    assert lines[-1] == "，並會在收到回覆後隨即分發予委員參閱。"

"""Extracted tables vs the ground truth of fixtures A, B, E, L (cell for cell)."""
from __future__ import annotations

import pytest

from tests.unit.tables.conftest import extracted, fixture_pdf, truth

LETTERS = ["A", "B", "E", "L"]
MIN_ACCURACY = 0.95


def _n(s: str) -> str:
    return "".join(s.split())


def _score(got, want: dict) -> tuple[int, int]:
    """(right cells, truth cells) for one table: header + rows, position by position."""
    right = total = 0
    pairs = [(got.header if got else [], want["header"])]
    got_rows = got.rows if got else []
    pairs += [(got_rows[i] if i < len(got_rows) else [], row) for i, row in enumerate(want["rows"])]
    for g, w in pairs:
        for j, cell in enumerate(w):
            total += 1
            right += j < len(g) and _n(g[j]) == _n(cell)
    return right, total


def _doc_accuracy(letter: str) -> tuple[int, int]:
    got = extracted(str(fixture_pdf(letter)))
    want = truth(letter)["tables"]
    right = total = 0
    for i, w in enumerate(want):
        r, t = _score(got[i] if i < len(got) else None, w)
        right, total = right + r, total + t
    return right, total


@pytest.mark.parametrize("letter", LETTERS)
def test_table_count_equals_truth(letter):
    assert len(extracted(str(fixture_pdf(letter)))) == len(truth(letter)["tables"])


@pytest.mark.parametrize("letter", LETTERS)
def test_pages_and_multipage_tables_are_one_table(letter):
    got = extracted(str(fixture_pdf(letter)))
    for g, w in zip(got, truth(letter)["tables"], strict=True):
        assert g.page == w["page"], w["name"]
        assert g.pages == w["pages"], w["name"]
        assert len(g.header) == len(w["header"]), w["name"]


def test_cell_accuracy():
    right_all = total_all = 0
    for letter in LETTERS:
        right, total = _doc_accuracy(letter)
        print(f"\n[tables] {letter}: {right}/{total} cells = {right / total:.1%}")
        right_all, total_all = right_all + right, total_all + total
    print(f"[tables] overall: {right_all}/{total_all} = {right_all / total_all:.1%}")
    assert right_all / total_all >= MIN_ACCURACY


@pytest.mark.parametrize("letter", LETTERS)
def test_markdown_round_trips(letter):
    from services.tables import parse_markdown_tables

    for g in extracted(str(fixture_pdf(letter))):
        [parsed] = parse_markdown_tables(g.markdown)
        assert parsed.header == g.header
        assert parsed.rows == g.rows

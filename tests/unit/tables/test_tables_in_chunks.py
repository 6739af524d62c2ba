"""Tables through the whole chunking path: parse → pdfplumber per page → merge → inject →
``split_document``, through the in-process pipeline (``cli.pipeline.split_file``): exactly what
the stack produces without a vision LLM, and what ``legco split`` prints. Checked against the
fixtures' ``tables`` truth."""
from __future__ import annotations

import functools
from pathlib import Path

import pytest

from cli.pipeline import split_file
from services.tables import parse_markdown_tables
from shared.settings import Settings
from tests.unit.tables.conftest import REAL, fixture_pdf, truth

LETTERS = ["A", "B", "E", "L"]
MIN_ACCURACY = 0.95


def _n(s: str) -> str:
    return "".join(s.split())


@functools.cache
def _chunks(path: str, strategy: str):
    return split_file(Path(path), strategy, Settings(_env_file=None))[0]


def _tables_in(chunk_set):
    """(chunk, table) for every markdown table in the chunks, in order; a table cut short in
    a neighbour's overlap (token strategy: same header, rows a prefix) counts once, as the
    complete table in the chunk that holds it whole."""
    out: list = []
    for c in chunk_set.chunks:
        for t in parse_markdown_tables(c.text):
            same = [i for i, (_, s) in enumerate(out) if s.header == t.header and _prefix(s.rows, t.rows)]
            if not same:
                out.append((c, t))
            elif len(t.rows) > len(out[same[0]][1].rows):
                out[same[0]] = (c, t)
    return out


def _prefix(a: list, b: list) -> bool:
    """One row list starts the other; the shorter one's last row may be cut mid-row."""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return long_[:len(short) - 1] == short[:-1] if short else True


def _cells(got, want) -> tuple[int, int]:
    right = total = 0
    pairs = [(got.header, want["header"])]
    pairs += [(got.rows[i] if i < len(got.rows) else [], row) for i, row in enumerate(want["rows"])]
    for g, w in pairs:
        for j, cell in enumerate(w):
            total += 1
            right += j < len(g) and _n(g[j]) == _n(cell)
    return right, total


def _match(tables, want):
    """The chunk table whose header equals the truth's (first unused), else None."""
    for i, (_, t) in enumerate(tables):
        if [_n(h) for h in t.header] == [_n(h) for h in want["header"]] and len(t.rows) >= 1:
            first = [_n(x) for x in t.rows[0]] == [_n(x) for x in want["rows"][0]]
            if first:
                return tables.pop(i)
    return None


@pytest.mark.parametrize("strategy", ["question", "token"])
def test_cell_accuracy_in_chunks(strategy):
    right_all = total_all = 0
    for letter in LETTERS:
        tables = _tables_in(_chunks(str(fixture_pdf(letter)), strategy))
        right = total = 0
        for w in truth(letter)["tables"]:
            m = _match(tables, w)
            r, t = _cells(m[1], w) if m else (0, len(w["header"]) + sum(len(r) for r in w["rows"]))
            right, total = right + r, total + t
        print(f"\n[tables in chunks/{strategy}] {letter}: {right}/{total} cells = {right / total:.1%}")
        right_all, total_all = right_all + right, total_all + total
        assert right / total >= MIN_ACCURACY, letter
    print(f"[tables in chunks/{strategy}] overall: {right_all}/{total_all} = {right_all / total_all:.1%}")


@pytest.mark.parametrize("letter", LETTERS)
def test_multipage_tables_are_one_table_with_all_rows(letter):
    tables = _tables_in(_chunks(str(fixture_pdf(letter)), "question"))
    for w in truth(letter)["tables"]:
        m = _match(tables, w)
        assert m is not None, w["name"]
        assert len(m[1].rows) == len(w["rows"]), w["name"]
        if len(w["pages"]) > 1:  # one table, in one chunk, starting on its first page
            assert m[0].metadata.get("page_start", m[0].page_number) <= w["page"]


@pytest.mark.parametrize("letter", ["B", "E", "L"])
def test_each_table_lands_in_its_qa_chunk(letter):
    cs = _chunks(str(fixture_pdf(letter)), "question")
    assert cs.strategy_used == "question"
    tables = _tables_in(cs)
    for w in truth(letter)["tables"]:
        chunk, _ = _match(tables, w)
        if w["qa_id"] is None:
            assert chunk.metadata["chunk_kind"] == "section", w["name"]
            continue
        assert chunk.metadata.get("question_id") == w["qa_id"], w["name"]
        assert chunk.metadata["answer_contains_table"] is True
        assert chunk.metadata["has_table"] is True


@pytest.mark.parametrize("letter", LETTERS)
def test_flattened_table_text_does_not_remain(letter):
    """Outside the markdown rows no line repeats a table's data row as flattened text."""
    cs = _chunks(str(fixture_pdf(letter)), "question")
    prose = "".join(_n(ln) for c in cs.chunks for ln in c.text.splitlines() if not ln.lstrip().startswith("|"))
    for w in truth(letter)["tables"]:
        for row in w["rows"]:
            flat = _n("".join(row))
            if len(flat) >= 12:
                assert flat not in prose, (w["name"], row)


def test_chunks_without_tables_are_not_flagged():
    cs = _chunks(str(fixture_pdf("E")), "question")
    with_tables = {t["qa_id"] for t in truth("E")["tables"]}
    for c in cs.chunks:
        if c.metadata.get("chunk_kind") == "qa" and c.metadata["question_id"] not in with_tables:
            assert c.metadata["answer_contains_table"] is False, c.metadata["question_id"]


def test_real_csb_two_level_header_crossing_page_in_chunks():
    cs = _chunks(str(REAL / "hk_csb_coai_exam_venues_reply_zh.pdf"), "token")
    tables = _tables_in(cs)
    assert len(tables) == 3
    (c1, t1), (c2, t2), (c3, t3) = tables
    assert [_n(h) for h in t1.header] == ["", "地區", "試場數目2021年6月5日", "試場數目2021年6月12日"]
    assert len(t1.rows) == 18 and c1.page_number == 1
    # the table crossing pages 1-2 is one table of 18 districts in page 1's chunk
    assert [r[0] for r in t2.rows] == [f"{i}." for i in range(1, 19)] and c2.page_number == 1
    assert t2.rows[7] == ["8.", "黃大仙區", "3"]
    assert len(t3.rows) == 18 and c3.page_number == 2
    assert all(c.metadata["has_table"] for c in (c1, c3))


def test_real_landuse_merged_cells_in_chunks():
    cs = _chunks(str(REAL / "cn_landuse_standard_table_zh.pdf"), "token")
    tables = [t for _, t in _tables_in(cs)]
    assert len(tables) == 3
    assert [r[0] for r in tables[0].rows] == ["高速公路"] * 3 + ["一级公路"] * 2 + ["二级公路"]
    assert tables[0].rows[0] == ["高速公路", "八", "2.5000", "60000≤Q＜80000", "20＜μ≤30"]
    assert tables[2].rows == [["1.7333", "0.8667", "0.5333"]]

"""pdfplumber in its own process: same tables as in-process, a time limit that abandons a page
(and a fresh child afterwards), a memory cap, and a page result that survives both."""
from __future__ import annotations

import time

import pytest

from services.tables.page_result import build_page_result
from services.tables.plumber import extract_page_tables
from services.tables.plumber_pool import PageTimeout, PlumberPool
from tests.conftest import FIXTURES

PAPER = FIXTURES / "A_詳細數字一覽表.pdf"


@pytest.fixture(scope="module")
def pool():
    p = PlumberPool(timeout_s=30.0, memory_limit_bytes=2 * 1024**3)
    yield p
    p.close()


def test_child_finds_the_same_tables_as_in_process(pool):
    data = PAPER.read_bytes()
    here = extract_page_tables(data, 2, 2)
    there = pool.extract(data, 2, 2)
    assert here and [t.model_dump() for t in there] == [t.model_dump() for t in here]


def test_a_page_over_the_time_limit_is_abandoned_and_the_child_replaced():
    p = PlumberPool(timeout_s=0.5, memory_limit_bytes=0)
    try:
        started = time.monotonic()
        with pytest.raises(PageTimeout):
            p.call(time.sleep, 30)
        assert time.monotonic() - started < 15
        assert p.extract(PAPER.read_bytes(), 2, 2)  # a new child serves the next page
    finally:
        p.close()


def test_memory_over_the_cap_fails_in_the_child_not_the_worker():
    p = PlumberPool(timeout_s=30.0, memory_limit_bytes=1024**3)
    try:
        with pytest.raises(MemoryError):
            p.call(bytearray, 2 * 1024**3)
    finally:
        p.close()


def test_page_result_records_a_timeout_and_goes_on():
    p = PlumberPool(timeout_s=0.5, memory_limit_bytes=0)

    def slow_extract(page_pdf, pdf_page, page_number):
        return p.call(time.sleep, 30)

    try:
        res = build_page_result(PAPER.read_bytes(), 2, "text", False, extract=slow_extract)
    finally:
        p.close()
    assert res.tables == [] and res.table_source == "none"
    assert any("PageTimeout" in n and "longer than 0.5 s" in n for n in res.notes)

"""pypdfium2 page rendering and the table-page pre-filter."""
from __future__ import annotations

import io

import pytest
from PIL import Image

from services.parser.pages import split_pdf_pages
from services.tables.render import may_hold_table, render_png, sha256
from tests.conftest import FIXTURES, REAL


def _pages(path):
    return dict(split_pdf_pages(path.read_bytes()))


def test_render_png_size_follows_dpi():
    page = _pages(FIXTURES / "B_古洞北粉嶺北新發展區概覽.pdf")[1]
    a, b = render_png(page, 1, 72), render_png(page, 1, 150)
    ia, ib = Image.open(io.BytesIO(a)), Image.open(io.BytesIO(b))
    assert ia.format == ib.format == "PNG"
    assert abs(ia.width - 595) <= 2 and abs(ib.width - 595 * 150 / 72) <= 2
    assert render_png(page, 1, 150) == b and sha256(b) == sha256(render_png(page, 1, 150))  # deterministic


def test_table_prefilter():
    pages = _pages(FIXTURES / "B_古洞北粉嶺北新發展區概覽.pdf")
    assert [may_hold_table(pages[n]) for n in range(1, 6)] == [True, True, True, True, False]
    scan = _pages(REAL / "hk_legco_sub_710-11_scanned_zh.pdf")[1]
    assert may_hold_table(scan) is False


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError):
        render_png(b"not a pdf")
    page = _pages(FIXTURES / "B_古洞北粉嶺北新發展區概覽.pdf")[1]
    with pytest.raises(ValueError):
        render_png(page, 2)
    with pytest.raises(ValueError):
        render_png(page, 1, 0)

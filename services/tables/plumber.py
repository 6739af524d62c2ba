"""Find ruled tables in a born-digital PDF with pdfplumber and merge tables that
continue over a page break.

Algorithm:

1. Per page, pdfplumber's table finder with its default ``lines`` strategy
   (ruling lines and rectangle edges) finds the tables.
2. Open-row repair: a row continued at the top (or bottom) of a page is often
   drawn without its top (bottom) border; only the table's vertical rules run on.
   When the outer vertical rules extend beyond the found table, we add an
   explicit horizontal line there (pdfplumber ``explicit_horizontal_lines``)
   and search again, so that row is not lost.
3. Merged cells are resolved by :mod:`.grid`; cell lines are joined by
   :mod:`.cells`.
4. A table that is the last thing on page *n* (only footer text below it) is
   continued by the first table of page *n + 1* if nothing but header text is
   above that one and both have the same column boundaries (within
   ``COL_TOL`` points).  A repeated header row on the continuation is dropped.
"""
from __future__ import annotations

import io
from typing import Any

import pdfplumber
from pdfplumber.page import Page
from pdfplumber.pdf import PDF
from pdfplumber.table import Table

from services.tables.grid import Grid, build_grid
from services.tables.markdown import render_markdown
from services.tables.models import ExtractedTable, PageTable, TableFragment

TABLE_SETTINGS: dict[str, Any] = {"vertical_strategy": "lines", "horizontal_strategy": "lines"}
COL_TOL = 3.0  # points: column boundaries of two fragments of one table may differ this much
EDGE_TOL = 2.0  # points: a vertical rule belongs to a column boundary within this distance
MIN_OPEN_ROW = 4.0  # points: rules must run on at least this far to count as an open row
HEADER_ZONE = 0.075  # fraction of page height at the top holding running headers
FOOTER_ZONE = 0.90  # text below this fraction of page height is footer


def _norm(s: str) -> str:
    return "".join(s.split())


def _open_row_lines(page: Page, table: Table) -> list[dict[str, Any]]:
    """Explicit horizontal lines closing rows whose top/bottom border is missing."""
    x0, top, x1, bottom = table.bbox
    vs = [e for e in page.edges if e["orientation"] == "v" and x0 - EDGE_TOL <= e["x0"] <= x1 + EDGE_TOL]

    def run_on(x: float, upward: bool) -> float | None:
        edge_y = top if upward else bottom
        reach = edge_y
        changed = True
        while changed:
            changed = False
            for e in vs:
                if abs(e["x0"] - x) > EDGE_TOL:
                    continue
                if upward and e["bottom"] >= reach - 1 and e["top"] < reach - 0.5:
                    reach, changed = e["top"], True
                if not upward and e["top"] <= reach + 1 and e["bottom"] > reach + 0.5:
                    reach, changed = e["bottom"], True
        return reach if abs(reach - edge_y) >= MIN_OPEN_ROW else None

    lines = []
    for upward in (True, False):
        left, right = run_on(x0, upward), run_on(x1, upward)
        if left is None or right is None or abs(left - right) > EDGE_TOL:
            continue
        y = min(left, right) if upward else max(left, right)
        lines.append({"object_type": "line", "x0": x0, "x1": x1, "top": y, "bottom": y,
                      "width": x1 - x0, "height": 0, "pts": [(x0, y), (x1, y)]})
    return lines


def _find_tables(page: Page) -> list[Table]:
    tables = page.find_tables(TABLE_SETTINGS)
    extra = [line for t in tables for line in _open_row_lines(page, t)]
    if extra:
        tables = page.find_tables({**TABLE_SETTINGS, "explicit_horizontal_lines": extra})
    return sorted(tables, key=lambda t: (t.bbox[1], t.bbox[0]))


def _page_table(page_number: int, bbox: tuple[float, float, float, float], grid: Grid, first: bool, last: bool,
                above: bool, below: bool) -> PageTable:
    """Freeze one pdfplumber table into a serializable :class:`PageTable`."""
    k = grid.header_row_count()
    x0, top, x1, bottom = bbox
    return PageTable(
        page=page_number,
        bbox=(float(x0), float(top), float(x1), float(bottom)),
        col_xs=[float(x) for x in grid.col_xs],
        first_on_page=first,
        last_on_page=last,
        text_above=above,
        text_below=below,
        header_row_count=k,
        header=grid.header_labels(k),
        raw=grid.raw,
        data_rows=[[grid.data_text(r, c) for c in range(grid.n_cols)] for r in range(grid.n_rows)],
        norm_rows=[[_norm(grid.text(r, c)) for c in range(grid.n_cols)] for r in range(grid.n_rows)],
        layout_rows=grid.layout_rows(),
    )


def _page_tables(page: Page, page_number: int | None = None) -> list[PageTable]:
    found = []
    for t in _find_tables(page):
        try:
            grid = build_grid(t)
        except ValueError:
            continue
        if grid.n_cols < 2 or grid.n_rows < 1:
            continue  # a framed text box, not a table
        found.append((t, grid))
    if not found:
        return []
    words = page.extract_words()
    h = float(page.height)
    boxes = [t.bbox for t, _ in found]

    def in_any_table(w: dict[str, Any]) -> bool:
        cx, cy = (w["x0"] + w["x1"]) / 2, (w["top"] + w["bottom"]) / 2
        return any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in boxes)

    body = [w for w in words if not in_any_table(w) and HEADER_ZONE * h < w["top"] and w["top"] < FOOTER_ZONE * h]
    out = []
    for i, (t, grid) in enumerate(found):
        _, top, _, bottom = t.bbox
        out.append(_page_table(
            page_number or page.page_number, t.bbox, grid,
            first=i == 0, last=i == len(found) - 1,
            above=any(w["bottom"] <= top for w in body),
            below=any(w["top"] >= bottom for w in body),
        ))
    return out


def _continues(prev: PageTable, nxt: PageTable) -> bool:
    if nxt.page != prev.page + 1 or not prev.last_on_page or not nxt.first_on_page:
        return False
    if prev.text_below or nxt.text_above:
        return False
    a, b = prev.col_xs, nxt.col_xs
    return len(a) == len(b) and all(abs(x - y) <= COL_TOL for x, y in zip(a, b, strict=True))


def _assemble(parts: list[PageTable]) -> ExtractedTable:
    first = parts[0]
    k = first.header_row_count
    header = first.header
    header_key = [t for r in range(k) for t in first.norm_rows[r]]
    rows: list[list[str]] = []
    fragments = []
    for i, part in enumerate(parts):
        start = k if i == 0 else 0
        if i > 0 and len(part.norm_rows) > k:
            key = [t for r in range(k) for t in part.norm_rows[r]]
            if key == header_key:
                start = k  # repeated header row(s)
        rows.extend(part.data_rows[start:])
        fragments.append(TableFragment(page=part.page, bbox=part.bbox, rows=part.layout_rows))
    header_rows = [list(first.raw[r]) for r in range(k)] if k > 1 else None
    return ExtractedTable(
        page=parts[0].page,
        pages=[p.page for p in parts],
        header=header,
        header_rows=header_rows,
        rows=rows,
        markdown=render_markdown(header, rows),
        fragments=fragments,
    )


def merge_page_tables(found: list[PageTable]) -> list[ExtractedTable]:
    """Join per-page tables (from :func:`extract_page_tables`, any order) into logical
    tables: a table that is the last thing on page n continues with the first table
    of page n+1 when nothing but header/footer text separates them and the column
    boundaries agree.  Returns tables in document order."""
    ordered = sorted(found, key=lambda t: (t.page, t.bbox[1], t.bbox[0]))
    groups: list[list[PageTable]] = []
    for t in ordered:
        if groups and _continues(groups[-1][-1], t):
            groups[-1].append(t)
        else:
            groups.append([t])
    return [_assemble(g) for g in groups]


def _open_pdf(pdf_bytes: bytes) -> PDF:
    try:
        return pdfplumber.open(io.BytesIO(pdf_bytes))
    except Exception as exc:  # pdfminer raises PDFSyntaxError, PSEOF, struct errors, ...
        raise ValueError(f"not a readable PDF: {exc}") from exc


def extract_page_tables(pdf_bytes: bytes, page: int = 1, page_number: int | None = None) -> list[PageTable]:
    """The ruled tables of one page, each with what :func:`merge_page_tables` needs to
    join it with the neighbouring pages (the per-page unit of the table stage).

    ``pdf_bytes``: a PDF (e.g. the parser's one-page PDF); ``page``: 1-based page in
    it; ``page_number``: the page number to record (default ``page``), i.e. the page's
    number in the original document.  Raises ``ValueError`` for an unreadable PDF or a
    page out of range.
    """
    with _open_pdf(pdf_bytes) as pdf:
        if not 1 <= page <= len(pdf.pages):
            raise ValueError(f"page {page} out of range 1..{len(pdf.pages)}")
        return _page_tables(pdf.pages[page - 1], page_number or page)


def extract_tables(pdf_bytes: bytes, pages: list[int] | None = None) -> list[ExtractedTable]:
    """Extract the ruled tables of a born-digital PDF, in document order.

    ``pdf_bytes``: the PDF file.  ``pages``: 1-based page numbers to scan (default:
    all); a table continues over a page break only if both pages are scanned.
    Returns one :class:`ExtractedTable` per logical table; a table continued on
    the following page(s) is one table whose ``page`` is its first page.
    Scanned pages and unruled ("whitespace") tables yield nothing.

    Raises ``ValueError`` if the bytes are not a readable PDF or a page number is
    out of range.
    """
    with _open_pdf(pdf_bytes) as pdf:
        n = len(pdf.pages)
        wanted = sorted(set(pages)) if pages is not None else list(range(1, n + 1))
        bad = [p for p in wanted if not 1 <= p <= n]
        if bad:
            raise ValueError(f"page(s) {bad} out of range 1..{n}")
        found: list[PageTable] = []
        for p in wanted:
            found.extend(_page_tables(pdf.pages[p - 1]))
    return merge_page_tables(found)

"""Resolve merged cells of one pdfplumber table into a full grid, and split it
into header and data rows.

pdfplumber's ``Table.extract()`` returns ``None`` for every grid position not
covered by the top-left corner of a cell.  We find the cell that covers each such
position from the cell rectangles (``Table.cells``), which tells a row span
(cell from above) from a column span (cell from the left).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from services.tables.cells import join_cell_lines

if TYPE_CHECKING:
    from pdfplumber.table import Table

MAX_HEADER_ROWS = 3


@dataclass
class Grid:
    """Table grid: ``raw[r][c]`` is the text of the cell whose top-left corner is at
    (r, c) or ``None`` for a merged-away position; ``origin[r][c]`` is the (row, col)
    of the cell covering (r, c) (itself when ``raw`` is not ``None``)."""

    raw: list[list[str | None]]
    origin: list[list[tuple[int, int]]]
    col_xs: list[float]  # x of every column boundary, left to right (n_cols + 1 values)

    @property
    def n_rows(self) -> int:
        return len(self.raw)

    @property
    def n_cols(self) -> int:
        return len(self.raw[0]) if self.raw else 0

    def text(self, r: int, c: int) -> str:
        """Text of the cell covering (r, c)."""
        r0, c0 = self.origin[r][c]
        return self.raw[r0][c0] or ""

    def data_text(self, r: int, c: int) -> str:
        """Cell text for a data row: a row-spanned cell repeats its text downwards in
        its own column; a column-spanned (merged-away) position is ``""``."""
        r0, c0 = self.origin[r][c]
        if c0 != c:
            return ""
        return self.raw[r0][c0] or ""

    def header_row_count(self) -> int:
        """Number of leading rows forming the header (1..MAX_HEADER_ROWS).

        The header is row 0 plus every row that a cell starting in a header row
        spans into; a column-spanning cell in row 0 (a group label) also pulls in
        the row below it (its sub-labels).
        """
        if self.n_rows <= 1:
            return self.n_rows
        k = 1
        if any(self.origin[0][c] != (0, c) and self.origin[0][c][0] == 0 for c in range(self.n_cols)):
            k = 2
        changed = True
        while changed and k < min(MAX_HEADER_ROWS, self.n_rows - 1):
            changed = False
            if any(self.origin[k][c][0] < k for c in range(self.n_cols)):
                k += 1
                changed = True
        return min(k, self.n_rows - 1)

    def header_labels(self, k: int) -> list[str]:
        """One label per column from the first ``k`` rows: the distinct covering
        cells top to bottom, non-empty texts joined with a space."""
        labels = []
        for c in range(self.n_cols):
            seen: list[tuple[int, int]] = []
            for r in range(k):
                o = self.origin[r][c]
                if o not in seen:
                    seen.append(o)
            labels.append(" ".join(t for t in (self.raw[r0][c0] or "" for r0, c0 in seen) if t))
        return labels

    def layout_rows(self) -> list[list[str]]:
        """Rows as printed on the page: origin cells' text, ``""`` where merged away."""
        return [[t or "" for t in row] for row in self.raw]


def build_grid(table: Table) -> Grid:
    """Build a :class:`Grid` from a ``pdfplumber.table.Table``.

    Cell texts are taken from ``table.extract()`` and their lines joined with
    :func:`join_cell_lines`.  Raises ``ValueError`` if the cells do not form a grid.
    """
    extracted = table.extract()
    cells = table.cells
    # same row/column keys as pdfplumber's Table.rows (exact coordinates)
    xs = sorted({c[0] for c in cells})
    tops = sorted({c[1] for c in cells})
    x_index = {x: i for i, x in enumerate(xs)}
    top_index = {t: i for i, t in enumerate(tops)}
    x_right = max(c[2] for c in cells)
    y_bottom = max(c[3] for c in cells)
    n_rows, n_cols = len(extracted), len(xs)
    if n_rows != len(tops):
        raise ValueError("pdfplumber rows do not match the cell grid")
    raw: list[list[str | None]] = []
    for row in extracted:
        row = (list(row) + [None] * n_cols)[:n_cols]
        raw.append([None if t is None else join_cell_lines(t) for t in row])
    origin = [[(r, c) for c in range(n_cols)] for r in range(n_rows)]
    starts = {}
    for cell in cells:
        starts[(top_index[cell[1]], x_index[cell[0]])] = cell
    for r in range(n_rows):
        for c in range(n_cols):
            if (r, c) in starts and raw[r][c] is None:
                raw[r][c] = ""
            if raw[r][c] is not None:
                continue
            # centre of grid position (r, c)
            px = (xs[c] + (xs[c + 1] if c + 1 < n_cols else x_right)) / 2
            py = (tops[r] + (tops[r + 1] if r + 1 < n_rows else y_bottom)) / 2
            for (r0, c0), (x0, top, x1, bottom) in starts.items():
                if x0 <= px <= x1 and top <= py <= bottom and (r0, c0) != (r, c):
                    origin[r][c] = (r0, c0)
                    break
            else:
                raw[r][c] = ""
    return Grid(raw=raw, origin=origin, col_xs=xs + [x_right])

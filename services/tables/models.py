"""Data shapes of the table extractor.

Coordinates are PDF points in pdfplumber's space (origin top-left of the page,
``(x0, top, x1, bottom)``); page numbers are 1-based.
"""
from __future__ import annotations

from pydantic import BaseModel, Field

BBox = tuple[float, float, float, float]


class TableFragment(BaseModel):
    """The part of a table that sits on one page.

    ``rows`` is the cell text exactly as laid out on that page (after in-cell line
    joining), including a repeated header row, with ``""`` for merged-away cells.
    It is what the page's plain text contains, so :func:`locate_table_span` uses it.
    """

    page: int
    bbox: BBox
    rows: list[list[str]]


class ExtractedTable(BaseModel):
    """One logical table, possibly spanning several pages.

    * ``page``: first page; ``pages``: every page holding one of its fragments.
    * ``header``: one label per column; stacked header rows are joined top to
      bottom with a space (each merged cell counted once).
    * ``header_rows``: the raw header grid when the header has more than one row
      (``None`` = merged-away cell), else ``None``.
    * ``rows``: data rows; vertically merged cells are repeated downwards,
      horizontally merged-away cells are ``""``.
    * ``markdown``: GFM rendering of ``header`` + ``rows``.
    * ``fragments``: one per page, with the page bbox and the on-page cell text.
    """

    page: int
    pages: list[int]
    header: list[str]
    header_rows: list[list[str | None]] | None = None
    rows: list[list[str]]
    markdown: str
    fragments: list[TableFragment] = Field(default_factory=list)

    @property
    def n_cols(self) -> int:
        """Number of columns."""
        return len(self.header)

    def fragment_on(self, page: int) -> TableFragment | None:
        """The fragment on 1-based ``page``, or ``None``."""
        for frag in self.fragments:
            if frag.page == page:
                return frag
        return None


class MarkdownTable(BaseModel):
    """A table parsed from markdown text: header labels and data rows (all strings)."""

    header: list[str]
    rows: list[list[str]]


class PageTable(BaseModel):
    """One pdfplumber table found on one page, with everything needed to join it with
    its continuation on the neighbouring page (serializable: the table stage's page workers
    store one list of these per page, its gatherer merges them).

    ``raw``: cell text at each cell's top-left position (``None`` = merged away);
    ``data_rows``: every row as data (row-spanned cells repeated); ``norm_rows``: the
    covering cell's text without whitespace (to spot a repeated header);
    ``layout_rows``: rows as printed; ``col_xs``: column boundaries in points.
    """

    page: int
    bbox: BBox
    col_xs: list[float]
    first_on_page: bool
    last_on_page: bool
    text_above: bool
    text_below: bool
    header_row_count: int
    header: list[str]
    raw: list[list[str | None]]
    data_rows: list[list[str]]
    norm_rows: list[list[str]]
    layout_rows: list[list[str]]

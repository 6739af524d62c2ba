"""Per-page table results → the document's tables, attached to its pages (pure logic).

:func:`apply_page_results` is what the table stage's gatherer (after all pages are done) and
the in-process pipeline (:func:`services.tables.document.extract_document_tables`) both call.
It merges the pdfplumber tables that continue over a page break (:func:`merge_page_tables`),
decides per page between pdfplumber and an accepted vision answer, and records on each page
(``PageText.tables``, a list of :class:`shared.models.TableSpan`) which span of the page text a
table replaces. The splitter's ``inject_tables`` then swaps those spans for markdown.

``role="table"`` sits on the table's first page and carries the whole markdown (a
multi-page table is one table); ``role="continuation"`` marks the flattened text of its
later fragments, to be removed. ``span`` is in that page's ``text`` (end exclusive);
``None`` = not located (the markdown is appended to the page). ``in_text``: the markdown is
already part of the page text (scanned page transcribed by the vision model).
"""
from __future__ import annotations

from services.tables.locate import locate_table_span
from services.tables.markdown import render_markdown
from services.tables.models import ExtractedTable, MarkdownTable, TableFragment
from services.tables.page_result import PageResult
from services.tables.plumber import merge_page_tables
from shared.models import ParsedDocument, TableSpan


def scanned_notice(page: int) -> str:
    """The line put into a scanned page's text when no vision model read it."""
    return (f"[Page {page}: scanned image without a text layer — its content could not be "
            "read and is not indexed]")


def _entry(role: str, source: str, markdown: str, pages: list[int], header: list[str], n_rows: int,
           span: tuple[int, int] | None, in_text: bool = False) -> TableSpan:
    return TableSpan(role=role, source=source, markdown=markdown, pages=pages, header=header,  # type: ignore[arg-type]
                     n_rows=n_rows, span=span or None, in_text=in_text)


def _locate_markdown(text: str, table: MarkdownTable, page: int) -> tuple[int, int] | None:
    probe = ExtractedTable(page=page, pages=[page], header=table.header, rows=table.rows, markdown="",
                           fragments=[TableFragment(page=page, bbox=(0, 0, 0, 0),
                                                    rows=[table.header, *table.rows])])
    return locate_table_span(text, probe, page)


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < b and a < span[1] for a, b in taken)


def apply_page_results(doc: ParsedDocument, results: list[PageResult]) -> ParsedDocument:
    """Attach the table results of a PDF's pages to its pages.

    Args:
        doc: the parser's output (PDF; pages 1-based).
        results: one :class:`PageResult` per page (missing pages are treated as table-less).

    Returns:
        A copy of ``doc`` with ``tables_extracted=True``, ``PageText.tables`` filled (one
        ``TableSpan`` per table or continuation fragment, see the module doc), ``scanned`` pages transcribed by the vision model replaced by that
        transcription, and other scanned pages carrying :func:`scanned_notice`.
    """
    out = doc.model_copy(deep=True)
    out.tables_extracted = True
    by_page = {r.page_number: r for r in results}
    pages = {p.page_number: p for p in out.pages if p.page_number is not None}
    vision_pages = {n for n, r in by_page.items() if r.table_source == "vision"}
    for p in pages.values():
        p.tables = []
    # 1. pdfplumber tables, merged across pages; those starting on a vision page give way
    plumber = merge_page_tables([t for r in results for t in r.tables])
    spans_for_vision: dict[int, list[tuple[tuple[int, int] | None, list[tuple[int, tuple[int, int] | None]]]]] = {}
    for t in plumber:
        located = [(n, locate_table_span(pages[n].text, t, n) if n in pages else None) for n in t.pages]
        if t.page in vision_pages:
            first = located[0][1]
            spans_for_vision.setdefault(t.page, []).append((first, located[1:]))
            continue
        for i, (n, span) in enumerate(located):
            if n not in pages:
                continue
            role = "table" if i == 0 else "continuation"
            pages[n].tables.append(_entry(role, "pdfplumber", t.markdown if i == 0 else "", t.pages,
                                          t.header, len(t.rows), span))
    # 2. accepted vision answers
    for n in sorted(vision_pages):
        r, page = by_page[n], pages.get(n)
        if page is None:
            continue
        if r.scanned:
            page.text = r.vision_markdown or ""
            page.char_count = len(page.text)
            for vt in r.vision_tables:
                page.tables.append(_entry("table", "vision", render_markdown(vt.header, vt.rows), [n],
                                          vt.header, len(vt.rows), None, in_text=True))
            continue
        slots = spans_for_vision.get(n, [])
        taken: list[tuple[int, int]] = []
        for i, vt in enumerate(r.vision_tables):
            md = render_markdown(vt.header, vt.rows)
            span = _locate_markdown(page.text, vt, n)
            rest: list[tuple[int, tuple[int, int] | None]] = []
            if span is None and i < len(slots):
                span, rest = slots[i]
            if span is not None and _overlaps(span, taken):
                span = None
            if span is not None:
                taken.append(span)
            page.tables.append(_entry("table", "vision", md, [n], vt.header, len(vt.rows), span))
            for m, s in rest:
                if m in pages:
                    pages[m].tables.append(_entry("continuation", "vision", "", [n, m], vt.header, 0, s))
        for m_slot in slots[len(r.vision_tables):]:  # pdfplumber tables the model did not return
            span, rest = m_slot
            if span is not None and not _overlaps(span, taken):
                page.tables.append(_entry("continuation", "vision", "", [n], [], 0, span))
    # 3. scanned pages nobody could read say so
    for n, page in pages.items():
        r = by_page.get(n)
        if page.scanned and (r is None or r.table_source != "vision"):
            notice = scanned_notice(n)
            page.text = f"{page.text.rstrip()}\n{notice}" if page.text.strip() else notice
            page.char_count = len(page.text)
    return out

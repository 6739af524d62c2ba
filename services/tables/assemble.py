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
already part of the page text (scanned page transcribed by the vision model). A scanned page
the vision model did not read but local OCR did gets the OCR text (``PageText.ocr``).
"""
from __future__ import annotations

from typing import Literal

from services.tables.locate import locate_table_span
from services.tables.markdown import render_markdown
from services.tables.models import ExtractedTable, MarkdownTable, TableFragment
from services.tables.page_result import PageResult
from services.tables.plumber import merge_page_tables
from shared.models import PageText, ParsedDocument, TableSpan

Role = Literal["table", "continuation"]
"""``TableSpan.role``: the table's first page, or a later fragment to remove."""
Reader = Literal["pdfplumber", "vision"]
"""``TableSpan.source``: which path read the table."""
Span = tuple[int, int]
"""Character offsets ``(start, end)`` in a page's text, end exclusive."""
Located = tuple[int, Span | None]
"""``(page, span on that page or None)`` for one fragment of a table."""
Slot = tuple[Span | None, list[Located]]
"""A pdfplumber table that starts on a page the vision model read: its span on that page and
its later fragments. A vision table that cannot be located itself takes the slot's place."""


def scanned_notice(page: int) -> str:
    """The line put into a scanned page's text when no vision model read it."""
    return (f"[Page {page}: scanned image without a text layer — its content could not be "
            "read and is not indexed]")


def _entry(role: Role, source: Reader, markdown: str, pages: list[int], header: list[str], n_rows: int,
           span: Span | None, in_text: bool = False) -> TableSpan:
    return TableSpan(role=role, source=source, markdown=markdown, pages=pages, header=header,
                     n_rows=n_rows, span=span or None, in_text=in_text)


def _locate_markdown(text: str, table: MarkdownTable, page: int) -> Span | None:
    probe = ExtractedTable(page=page, pages=[page], header=table.header, rows=table.rows, markdown="",
                           fragments=[TableFragment(page=page, bbox=(0, 0, 0, 0),
                                                    rows=[table.header, *table.rows])])
    return locate_table_span(text, probe, page)


def _overlaps(span: Span, taken: list[Span]) -> bool:
    return any(span[0] < b and a < span[1] for a, b in taken)


def _attach_plumber(tables: list[ExtractedTable], pages: dict[int, PageText],
                    vision_pages: set[int]) -> dict[int, list[Slot]]:
    """Attach the merged pdfplumber ``tables`` to ``pages``, except those starting on a page of
    ``vision_pages``: those give way to the vision answer and are returned as its slots, per
    page, in table order."""
    slots: dict[int, list[Slot]] = {}
    for t in tables:
        located = [(n, locate_table_span(pages[n].text, t, n) if n in pages else None) for n in t.pages]
        if t.page in vision_pages:
            slots.setdefault(t.page, []).append((located[0][1], located[1:]))
            continue
        for i, (n, span) in enumerate(located):
            if n not in pages:
                continue
            role: Role = "table" if i == 0 else "continuation"
            pages[n].tables.append(_entry(role, "pdfplumber", t.markdown if i == 0 else "", t.pages,
                                          t.header, len(t.rows), span))
    return slots


def _attach_vision_table(pages: dict[int, PageText], n: int, vt: MarkdownTable, slot: Slot | None,
                         taken: list[Span]) -> None:
    """Attach one vision table of page ``n``: at its own span in the page text, else at the span
    of the pdfplumber table in the same position (``slot``, whose continuation fragments it then
    takes over), unless that span overlaps one already ``taken`` (appended to the page then)."""
    page = pages[n]
    md = render_markdown(vt.header, vt.rows)
    span = _locate_markdown(page.text, vt, n)
    rest: list[Located] = []
    if span is None and slot is not None:
        span, rest = slot
    if span is not None and _overlaps(span, taken):
        span = None
    if span is not None:
        taken.append(span)
    page.tables.append(_entry("table", "vision", md, [n], vt.header, len(vt.rows), span))
    for m, s in rest:
        if m in pages:
            pages[m].tables.append(_entry("continuation", "vision", "", [n, m], vt.header, 0, s))


def _attach_vision(pages: dict[int, PageText], n: int, r: PageResult, slots: list[Slot]) -> None:
    """Attach page ``n``'s accepted vision answer: a scanned page's text becomes the
    transcription; on a page with a text layer each vision table replaces a span, and the
    spans of pdfplumber tables the model did not return are removed as continuations."""
    page = pages[n]
    if r.scanned:
        page.text = r.vision_markdown or ""
        page.char_count = len(page.text)
        for vt in r.vision_tables:
            page.tables.append(_entry("table", "vision", render_markdown(vt.header, vt.rows), [n],
                                      vt.header, len(vt.rows), None, in_text=True))
        return
    taken: list[Span] = []
    for i, vt in enumerate(r.vision_tables):
        _attach_vision_table(pages, n, vt, slots[i] if i < len(slots) else None, taken)
    for span, _rest in slots[len(r.vision_tables):]:  # pdfplumber tables the model did not return
        if span is not None and not _overlaps(span, taken):
            page.tables.append(_entry("continuation", "vision", "", [n], [], 0, span))


def _mark_unread_scans(pages: dict[int, PageText], by_page: dict[int, PageResult]) -> None:
    """Scanned pages the vision model did not read take their OCR text (``ocr=True``,
    ``ocr_confidence``) or, without one, say so in their text (:func:`scanned_notice`)."""
    for n, page in pages.items():
        r = by_page.get(n)
        if page.scanned and r is not None and r.table_source != "vision" and r.ocr_text:
            page.text, page.char_count = r.ocr_text, len(r.ocr_text)
            page.ocr, page.ocr_confidence = True, r.ocr_confidence
        elif page.scanned and (r is None or r.table_source != "vision"):
            notice = scanned_notice(n)
            page.text = f"{page.text.rstrip()}\n{notice}" if page.text.strip() else notice
            page.char_count = len(page.text)


def apply_page_results(doc: ParsedDocument, results: list[PageResult]) -> ParsedDocument:
    """Attach the table results of a PDF's pages to its pages.

    Args:
        doc: the parser's output (PDF; pages 1-based).
        results: one :class:`PageResult` per page (missing pages are treated as table-less).

    Returns:
        A copy of ``doc`` with ``tables_extracted=True``, ``PageText.tables`` filled (one
        ``TableSpan`` per table or continuation fragment, see the module doc), ``scanned``
        pages transcribed by the vision model replaced by that transcription, those read by
        OCR replaced by the OCR text (``PageText.ocr``), and other scanned pages carrying
        :func:`scanned_notice`.
    """
    out = doc.model_copy(deep=True)
    out.tables_extracted = True
    by_page = {r.page_number: r for r in results}
    pages = {p.page_number: p for p in out.pages if p.page_number is not None}
    vision_pages = {n for n, r in by_page.items() if r.table_source == "vision"}
    for p in pages.values():
        p.tables = []
    # 1. pdfplumber tables, merged across pages; those starting on a vision page give way
    slots = _attach_plumber(merge_page_tables([t for r in results for t in r.tables]), pages, vision_pages)
    # 2. accepted vision answers
    for n in sorted(vision_pages):
        if n in pages:
            _attach_vision(pages, n, by_page[n], slots.get(n, []))
    # 3. scanned pages read by OCR take its text; those nobody could read say so
    _mark_unread_scans(pages, by_page)
    return out

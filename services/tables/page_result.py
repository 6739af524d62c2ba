"""One page's table result: the per-page unit of the table stage (pure logic).

Paths, chosen per page and recorded as ``table_source``:

* ``pdfplumber`` — born-digital page, ruled tables read structurally (default, no LLM);
* ``vision`` — the vision LLM's answer passed :func:`validate_answer` and is used;
* ``none`` — no table found (born-digital page without tables, or a scanned page with the
  vision path off or rejected).

``scanned`` pages (no text layer) are flagged whatever the path; with the vision path off they
are read by local OCR (``ocr_text``, ``ocr_confidence``; ``services.tables.ocr``).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field

from services.tables.models import MarkdownTable, PageTable
from services.tables.plumber import extract_page_tables
from services.tables.validate import validate_answer

TableSource = Literal["pdfplumber", "vision", "none"]
VisionStatus = Literal["off", "accepted", "rejected", "error"]


class PageResult(BaseModel):
    """Stored as JSON per page (``storage.page_result_key``); merged by the gatherer.

    ``tables``: pdfplumber tables of the page (kept even when vision wins, their spans tell
    where the vision tables go); ``vision_tables``/``vision_markdown``: the accepted vision
    answer; ``vision_status``: ``off`` (not asked), ``accepted``, ``rejected`` (validation
    failed, ``notes`` says why), ``error`` (the call failed). ``ocr_text``: a scanned page's
    text read by local OCR (``None``: not read), ``ocr_confidence`` its mean word confidence
    (0..1), ``ocr_seconds`` the engine's wall time.
    """

    schema_version: Literal[1] = 1
    page_number: int
    scanned: bool = False
    table_source: TableSource = "none"
    tables: list[PageTable] = Field(default_factory=list)
    vision_status: VisionStatus = "off"
    vision_cached: bool = False
    vision_tables: list[MarkdownTable] = Field(default_factory=list)
    vision_markdown: str | None = None
    vision_reject_reason: str | None = None
    ocr_text: str | None = None
    ocr_confidence: float | None = None
    ocr_seconds: float | None = None
    notes: list[str] = Field(default_factory=list)


def build_page_result(
    page_pdf: bytes | None,
    page_number: int,
    page_text: str,
    scanned: bool,
    vision_answer: str | None = None,
    vision_error: str | None = None,
    pdf_page: int = 1,
    extract: Callable[[bytes, int, int], list[PageTable]] = extract_page_tables,
) -> PageResult:
    """Run path 1 on one page and decide between it and a vision answer.

    Args:
        page_pdf: a PDF holding the page (the parser's one-page PDF, or the whole file with
            ``pdf_page``); ``None`` or a scanned page skips pdfplumber.
        page_number: the page's 1-based number in the document.
        page_text: the page's text layer (parser output), used to validate the answer.
        scanned: the parser flagged the page as having no text layer.
        vision_answer: the vision LLM's markdown for the page image, or ``None`` when the
            vision path was not used.
        vision_error: why the vision call failed (recorded; path 1 stands).
        pdf_page: the page's 1-based index inside ``page_pdf``.
        extract: how to run pdfplumber (``plumber.extract_page_tables`` in-process, or
            ``PlumberPool.extract`` in the service: time and memory limited).

    Returns:
        The :class:`PageResult`; never raises for a bad page (an unreadable page PDF gives no
        pdfplumber tables and a note).
    """
    tables, notes = [], []
    if not scanned and page_pdf is not None:
        try:
            tables = extract(page_pdf, pdf_page, page_number)
        except Exception as e:  # noqa: BLE001 - one unreadable (or too slow) page must not fail the document
            notes.append(f"pdfplumber could not read the page: {type(e).__name__}: {str(e)[:200]}")
    res = PageResult(page_number=page_number, scanned=scanned, tables=tables, notes=notes,
                     table_source="pdfplumber" if tables else "none")
    if vision_error is not None:
        res.vision_status = "error"
        res.notes.append(f"vision call failed: {vision_error[:200]}")
    elif vision_answer is not None:
        v = validate_answer(vision_answer, page_text, scanned)
        if v.ok:
            res.vision_status, res.table_source = "accepted", "vision"
            res.vision_tables, res.vision_markdown = v.tables, vision_answer.strip()
        else:
            res.vision_status, res.vision_reject_reason = "rejected", v.reason
            extra = f" ({', '.join(v.details)})" if v.details else ""
            res.notes.append(f"vision answer rejected: {v.reason}{extra}")
    return res

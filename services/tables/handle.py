"""What the table stage does with a parsed document and with one page of it.

* :func:`plan_document` (fan-out): a PDF becomes one ``PageWork`` per page; a DOCX/TXT document
  (no page PDFs; its tables are markdown from the parser already) is done at once.
* :func:`process_page` (page worker): pdfplumber on the page's one-page PDF, and — when the
  vision client is configured and the page is scanned or draws table rules — the page rendered
  to PNG and read by the vision LLM (answer cached by image hash, used only if it validates).
  The page's ``PageResult`` is stored at ``documents/{id}/tables/pages/{n}.json``. A scanned page
  with the vision path off is rendered and read by local OCR (``services.tables.ocr``) instead.

Clients are handed in (see ``services/tables/main.py``), so tests call these with real or fake
ones. The gatherer, which joins the pages again, is in :mod:`services.tables.gather`.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict

from services.tables.cache import cached_answer, store_answer
from services.tables.ocr import OcrEngine, OcrError, OcrResult
from services.tables.page_result import PageResult, build_page_result
from services.tables.plumber_pool import PlumberPool
from services.tables.render import may_hold_table, render_image, render_png, sha256
from services.tables.vision import VisionClient
from shared import storage
from shared.deletion import Check, never_gone
from shared.events import DocumentParsed, DocumentTablesDone, PageTablesDone, PageWork
from shared.metrics import (
    OCR_PAGES,
    PAGE_LATENCY,
    PAGES,
    PAGES_RENDERED,
    TABLES_FOUND,
    VISION_CACHE_HITS,
    VISION_CALLS,
    VISION_VALIDATION_FAILURES,
)
from shared.models import ParsedDocument
from shared.storage import ObjectStore

log = logging.getLogger("legco.tables")


class ParsedPages:
    """The parser's page texts of the few documents in flight on this worker (LRU by
    ``pages_key``), so a document's pages do not each read its whole ``pages.json``.

    Args:
        size: documents kept.
    """

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._docs: OrderedDict[str, ParsedDocument] = OrderedDict()

    async def get(self, store: ObjectStore, key: str) -> ParsedDocument:
        """The ``ParsedDocument`` at ``key``. Raises ``KeyError`` when it is not stored."""
        if key not in self._docs:
            self._docs[key] = ParsedDocument.model_validate(await asyncio.to_thread(store.get_json, key))
            while len(self._docs) > self.size:
                self._docs.popitem(last=False)
        self._docs.move_to_end(key)
        return self._docs[key]


def tables_done(event: DocumentParsed, pages_key: str) -> DocumentTablesDone:
    """The document-level result: ``pages_key`` is the ``ParsedDocument`` the splitter chunks."""
    return DocumentTablesDone(document_id=event.document_id, department=event.department, visibility=event.visibility,
                              filename=event.filename, strategy=event.strategy, file_type=event.file_type,
                              page_count=event.page_count, pages_key=pages_key,
                              boxes_prefix=event.boxes_prefix, scanned_pages=list(event.scanned_pages),
                              warnings=list(event.warnings))


async def plan_document(event: DocumentParsed, store: ObjectStore,
                        check: Check = never_gone) -> list[PageWork] | DocumentTablesDone:
    """The page work of a parsed PDF (pages 1..``page_count``), after storing ``event`` as the
    document's table job (``storage.tables_job_key``; the gatherer reads it when all pages are
    done); for DOCX/TXT the ``DocumentTablesDone`` itself, with the parser's ``pages_key``.

    Idempotent: a redelivery overwrites the job and yields the same page work. Raises
    ``DocumentGone`` when ``check`` finds the document deleted before the job is written.
    """
    if event.file_type != "pdf" or not event.page_pdf_prefix:
        return tables_done(event, event.pages_key)
    await check(force=True)
    await asyncio.to_thread(store.put_json, storage.tables_job_key(event.document_id), event)
    scanned = set(event.scanned_pages)
    return [PageWork(document_id=event.document_id, department=event.department, visibility=event.visibility,
                     filename=event.filename,
                     page_number=n, page_count=event.page_count, pages_key=event.pages_key,
                     page_pdf_key=storage.page_pdf_key(event.document_id, n), scanned=n in scanned)
            for n in range(1, event.page_count + 1)]


def _png_for_vision(pdf: bytes | None, scanned: bool, dpi: int) -> bytes | None:
    """PNG of the one-page ``pdf`` at ``dpi`` when the vision LLM should see it (a scanned
    page, or one drawing table rules: ``render.may_hold_table``), else ``None``. Blocking."""
    if pdf is None:
        return None
    try:
        if not scanned and not may_hold_table(pdf):
            return None
        png = render_png(pdf, 1, dpi)
    except ValueError as e:  # unreadable page PDF: pdfplumber notes it in the result
        log.warning("page not rendered: %s", e)
        return None
    PAGES_RENDERED.inc()
    return png


async def vision_answer(work: PageWork, png: bytes | None, store: ObjectStore,
                        vision: VisionClient | None) -> tuple[str | None, str | None, bool]:
    """(answer, error, from_cache) for a rendered page; (None, None, False) when the page is
    not for the vision path. A failed call is an ``error`` (pdfplumber's tables stand), not a
    retry."""
    if vision is None or png is None:
        return None, None, False
    digest = sha256(png)
    hit = await asyncio.to_thread(cached_answer, store, digest, vision.model)
    if hit is not None:
        VISION_CACHE_HITS.inc()
        return hit, None, True
    try:
        answer = await vision.page_markdown(png)
    except Exception as e:  # noqa: BLE001 - endpoint down, timeout, empty answer: keep pdfplumber's tables
        VISION_CALLS.labels("error").inc()
        log.warning("vision call failed for %s page %d: %s", work.document_id, work.page_number, e)
        return None, f"{type(e).__name__}: {e}", False
    VISION_CALLS.labels("ok").inc()
    await asyncio.to_thread(store_answer, store, digest, vision.model, answer)
    return answer, None, False


def ocr_page(pdf: bytes, engine: OcrEngine, dpi: int) -> tuple[OcrResult | None, str | None]:
    """(result, None) for the one-page ``pdf`` rendered at ``dpi`` and read by ``engine``, or
    (None, why) when it could not be rendered or read. Blocking (render + OCR: seconds)."""
    try:
        image = render_image(pdf, 1, dpi)
    except ValueError as e:
        return None, f"page not rendered for OCR: {e}"
    PAGES_RENDERED.inc()
    try:
        return engine.read(image), None
    except OcrError as e:
        return None, f"OCR failed: {e}"


async def _read_scan(work: PageWork, pdf: bytes | None, engine: OcrEngine, dpi: int, result: PageResult) -> None:
    """Local OCR of a scanned page into ``result`` (``ocr_text``, ``ocr_confidence``,
    ``ocr_seconds``; a note when it failed or found nothing)."""
    if pdf is None:
        return
    read, error = await asyncio.to_thread(ocr_page, pdf, engine, dpi)
    if read is None:
        OCR_PAGES.labels("error").inc()
        log.warning("%s page %d: %s", work.document_id, work.page_number, error)
        result.notes.append(str(error)[:300])
        return
    result.ocr_seconds = round(read.seconds, 3)
    if not read.text.strip():
        OCR_PAGES.labels("empty").inc()
        result.notes.append("OCR found no text on the page")
        return
    OCR_PAGES.labels("ok").inc()
    result.ocr_text, result.ocr_confidence = read.text, round(read.confidence, 3)


async def process_page(work: PageWork, store: ObjectStore, plumber: PlumberPool, vision: VisionClient | None,
                       parsed_pages: ParsedPages, raster_dpi: int, check: Check = never_gone,
                       ocr: OcrEngine | None = None, ocr_dpi: int = 200) -> PageTablesDone:
    """Find the tables of one page, store its ``PageResult`` and describe it.

    The page is rendered (``raster_dpi`` dots per inch) for the vision path: ``vision``
    is set and the page is scanned or may hold a table. A scanned page with ``vision`` off is
    rendered at ``ocr_dpi`` and read by ``ocr`` when given (``PageResult.ocr_text``); an OCR
    failure is a note on the page, not an error (the page keeps the scanned notice).

    Idempotent: a redelivery overwrites the same result object (vision answers come from the
    cache). Raises ``KeyError`` when the parser's pages object is missing (retried, then
    dead-lettered); a missing page PDF only means no tables from that page. ``check`` is asked
    before the vision call and before the result is written (``DocumentGone``: deleted).
    """
    doc_id = work.document_id
    start = time.perf_counter()
    parsed = await parsed_pages.get(store, work.pages_key)
    page = next((p for p in parsed.pages if p.page_number == work.page_number), None)
    text = page.text if page else ""
    scanned = work.scanned or bool(page and page.scanned)
    read_scan = scanned and vision is None and ocr is not None
    pdf = None
    if not scanned or vision is not None or read_scan:
        try:
            pdf = await asyncio.to_thread(store.get_bytes, work.page_pdf_key)
        except KeyError:  # the parser could not split this page out: no tables from it
            log.warning("page PDF %s missing; no tables from it", work.page_pdf_key)
    png = await asyncio.to_thread(_png_for_vision, pdf, scanned, raster_dpi) if vision is not None else None
    if png is not None:
        await check()
    answer, error, cached = await vision_answer(work, png, store, vision)
    result: PageResult = await asyncio.to_thread(
        build_page_result, None if scanned else pdf, work.page_number, text, scanned, answer, error,
        extract=plumber.extract)
    result.vision_cached = cached
    if read_scan and ocr is not None:
        await check()
        await _read_scan(work, pdf, ocr, ocr_dpi, result)
    if result.vision_reject_reason:
        VISION_VALIDATION_FAILURES.labels(result.vision_reject_reason).inc()
    n_tables = len(result.vision_tables) if result.table_source == "vision" else len(result.tables)
    if n_tables:
        TABLES_FOUND.labels(result.table_source).inc(n_tables)
    key = storage.page_result_key(doc_id, work.page_number)
    await check(force=True)
    await asyncio.to_thread(store.put_json, key, result)
    PAGES.labels("tables", work.department).inc()
    PAGE_LATENCY.labels(result.table_source).observe(time.perf_counter() - start)
    return PageTablesDone(document_id=doc_id, department=work.department, visibility=work.visibility,
                          filename=work.filename,
                          page_number=work.page_number, page_count=work.page_count, result_key=key,
                          table_source=result.table_source, scanned=result.scanned)

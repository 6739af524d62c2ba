"""What the parser stage does with one ``DocumentUploaded``: read the original from MinIO, parse
it in the isolated child process, store the one-page PDFs, the pages' text-position layers and
the page texts, and describe the result as a ``DocumentParsed``. Clients, the progress callback
and the deletion check are handed in (see ``services/parser/main.py``), so tests call this with
real or fake ones.

A document deleted meanwhile stops the work within about a second: the parse child is killed
(``isolation.Cancelled``), and the page PDFs and position layers stop between two writes
(``DocumentGone``).
"""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from services.parser.isolation import Cancelled
from services.parser.parse import ParseOutput, parse_document_isolated
from services.parser.pdf import format_pages
from shared import storage, topics
from shared.deletion import Check, DeletionCheck, never_gone
from shared.errors import DocumentError, DocumentGone
from shared.events import DocumentParsed, DocumentUploaded
from shared.metrics import PAGES
from shared.models import PageText
from shared.settings import Settings
from shared.storage import ObjectStore

Report = Callable[..., Awaitable[None]]
"""``report(pages_done=..., pages_total=...)``: publishes a ``parsing`` progress event."""

PROGRESS_EVERY = 10
"""Pages stored between two progress events."""


def check_scanned(parsed_pages: list[PageText], page_count: int, vision_reads_scans: bool) -> None:
    """Refuse a document with no text on any page.

    Raises:
        DocumentError: ``empty`` when no page has text and none looks scanned; ``scanned`` when
            every page is a scan and nothing downstream can read scans.
    """
    if not all(p.scanned or not p.text.strip() for p in parsed_pages):
        return
    scanned = [p.page_number for p in parsed_pages if p.scanned and p.page_number]
    if not scanned:
        raise DocumentError("The document contains no extractable text.", "empty")
    if not vision_reads_scans:
        raise DocumentError(
            f"No text layer: all {page_count} pages look scanned (pages "
            f"{format_pages(scanned)}); OCR or the vision stage is needed to index it.", "scanned")


async def parse_and_store(event: DocumentUploaded, store: ObjectStore, settings: Settings,
                          report: Report, check: Check = never_gone) -> DocumentParsed:
    """Parse one uploaded document and store its pages.

    Idempotent: a redelivered event overwrites the same objects
    (``documents/{id}/pages/{n}.pdf``, ``documents/{id}/parsed/boxes/{n}.json``, n 1-based, and
    ``documents/{id}/parsed/pages.json``, written last).
    ``check`` is asked before each write (it throttles itself) and, while the child parses,
    every ``deletion_check_interval_s`` in the background.

    Raises:
        DocumentError: the file cannot be read (the document is failed with the reason).
        DocumentGone: the document was deleted meanwhile (nothing more is written).
    """
    doc_id = event.document_id
    await report()
    try:
        data = await asyncio.to_thread(store.get_bytes, event.object_key)
    except KeyError:
        raise DocumentError("The uploaded file is no longer in storage.", "missing") from None
    out = await _parse(data, event, settings, check)
    parsed = out.parsed
    # with the vision path on, the table stage reads scanned pages
    vision_reads_scans = settings.vision_active and settings.splitter_input_topic != topics.PARSED
    check_scanned(parsed.pages, parsed.page_count, vision_reads_scans)
    total = parsed.page_count
    for i, (n, pdf) in enumerate(sorted(out.page_pdfs.items()), start=1):
        await check()
        await asyncio.to_thread(store.put_bytes, storage.page_pdf_key(doc_id, n), pdf, "application/pdf")
        if i % PROGRESS_EVERY == 0 or i == total:
            await report(pages_done=i, pages_total=total)
    for n, boxes in sorted(out.page_boxes.items()):
        await check()
        await asyncio.to_thread(store.put_json, storage.page_boxes_key(doc_id, n), boxes)
    await check(force=True)
    await asyncio.to_thread(store.put_json, storage.pages_key(doc_id), parsed)
    PAGES.labels("parsing", event.department).inc(total)
    scanned = [p.page_number for p in parsed.pages if p.scanned and p.page_number]
    warnings = list(parsed.warnings)
    if scanned:
        warnings.append(f"Pages without a text layer (scanned): {format_pages(scanned)}.")
    return DocumentParsed(
        document_id=doc_id, department=event.department, visibility=event.visibility, filename=event.filename,
        strategy=event.strategy, file_type=parsed.file_type, page_count=total,
        pages_key=storage.pages_key(doc_id),
        page_pdf_prefix=storage.page_pdf_prefix(doc_id) if out.page_pdfs else None,
        boxes_prefix=storage.page_boxes_prefix(doc_id) if out.page_boxes else None,
        scanned_pages=scanned, warnings=warnings)


async def _parse(data: bytes, event: DocumentUploaded, settings: Settings, check: Check) -> ParseOutput:
    """The isolated parse, its child killed as soon as a background check finds the document
    deleted (``check`` is a ``DeletionCheck``; any other check is only asked afterwards).

    Raises:
        DocumentGone: deleted while it was parsed; DocumentError: as ``parse_document_isolated``.
    """
    if not isinstance(check, DeletionCheck):
        out = await asyncio.to_thread(parse_document_isolated, data, event.filename, event.document_id, settings)
        await check(force=True)
        return out
    async with check.watching() as gone:
        try:
            return await asyncio.to_thread(parse_document_isolated, data, event.filename, event.document_id,
                                           settings, gone)
        except Cancelled:
            raise DocumentGone(event.document_id) from None

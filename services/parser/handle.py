"""What the parser stage does with one ``DocumentUploaded``: read the original from MinIO, parse
it in the isolated child process (its time limit follows the page count), store the one-page
PDFs and the pages' text-position layers (streamed from the child's spool directory, one file at
a time) and the page texts, and describe the result as a ``DocumentParsed``. Clients, the progress callback
and the deletion check are handed in (see ``services/parser/main.py``), so tests call this with
real or fake ones.

A document deleted meanwhile stops the work within about a second: the parse child is killed
(``isolation.Cancelled``), and the page PDFs and position layers stop between two writes
(``DocumentGone``).
"""
from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from services.parser.isolation import Cancelled
from services.parser.parse import SpooledParse, parse_spooled_isolated
from services.parser.pdf import format_pages
from services.parser.spool import page_boxes_path, page_pdf_path
from shared import storage
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


def check_scanned(parsed_pages: list[PageText], page_count: int, scans_readable: bool) -> None:
    """Refuse a document with no text on any page.

    Raises:
        DocumentError: ``empty`` when no page has text and none looks scanned; ``scanned`` when
            every page is a scan and nothing downstream can read scans (``scans_readable``:
            ``Settings.scans_readable``, the table stage with the vision path or OCR on).
    """
    if not all(p.scanned or not p.text.strip() for p in parsed_pages):
        return
    scanned = [p.page_number for p in parsed_pages if p.scanned and p.page_number]
    if not scanned:
        raise DocumentError("The document contains no extractable text.", "empty")
    if not scans_readable:
        raise DocumentError(
            f"No text layer: all {page_count} pages look scanned (pages "
            f"{format_pages(scanned)}); OCR or the vision stage is needed to index it.", "scanned")


async def parse_and_store(event: DocumentUploaded, store: ObjectStore, settings: Settings,
                          report: Report, check: Check = never_gone) -> DocumentParsed:
    """Parse one uploaded document and store its pages.

    The parse child writes the one-page PDFs and the position layers into a temporary spool
    directory (``spool.py``); they are uploaded from there one file at a time, each file removed
    once stored, so the service holds one page at a time whatever the page count.

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
    with tempfile.TemporaryDirectory(prefix="legco-parse-", dir=settings.parse_spool_dir or None) as spool_dir:
        out = await _parse(data, event, settings, check, spool_dir)
        del data
        parsed = out.parsed
        # the table stage reads scanned pages (vision LLM, or local OCR while the vision path is off)
        check_scanned(parsed.pages, parsed.page_count, settings.scans_readable)
        total = parsed.page_count
        for i, n in enumerate(out.pdf_pages, start=1):
            await check()
            await asyncio.to_thread(_upload, store, storage.page_pdf_key(doc_id, n),
                                    page_pdf_path(spool_dir, n), "application/pdf")
            if i % PROGRESS_EVERY == 0 or i == total:
                await report(pages_done=i, pages_total=total)
        for n in out.box_pages:
            await check()
            await asyncio.to_thread(_upload, store, storage.page_boxes_key(doc_id, n),
                                    page_boxes_path(spool_dir, n), "application/json")
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
        page_pdf_prefix=storage.page_pdf_prefix(doc_id) if out.pdf_pages else None,
        boxes_prefix=storage.page_boxes_prefix(doc_id) if out.box_pages else None,
        scanned_pages=scanned, warnings=warnings)


def _upload(store: ObjectStore, key: str, path: Path, content_type: str) -> None:
    """Store one spooled file at ``key`` and remove it (blocking; one page in memory)."""
    store.put_bytes(key, path.read_bytes(), content_type)
    path.unlink()


async def _parse(data: bytes, event: DocumentUploaded, settings: Settings, check: Check,
                 spool_dir: str) -> SpooledParse:
    """The isolated parse into ``spool_dir``, its child killed as soon as a background check
    finds the document deleted (``check`` is a ``DeletionCheck``; any other check is only asked
    afterwards).

    Raises:
        DocumentGone: deleted while it was parsed; DocumentError: as ``parse_spooled_isolated``.
    """
    if not isinstance(check, DeletionCheck):
        out = await asyncio.to_thread(parse_spooled_isolated, data, event.filename, event.document_id, settings,
                                      spool_dir)
        await check(force=True)
        return out
    async with check.watching() as gone:
        try:
            return await asyncio.to_thread(parse_spooled_isolated, data, event.filename, event.document_id,
                                           settings, spool_dir, gone)
        except Cancelled:
            raise DocumentGone(event.document_id) from None

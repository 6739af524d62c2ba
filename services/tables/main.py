"""Table stage: consumes ``documents.parsed``, emits one ``documents.tables`` per document.

One service, three subscriptions (each its own consumer group), in every worker process:

* fan-out (``tables-fanout``): a parsed PDF → one ``PageWork`` per page on ``tables.pages``,
  keyed ``{document_id}:{page}`` so the pages spread over the workers; DOCX/TXT → done at once;
* page worker (``tables``): pdfplumber, and the vision LLM when configured (else local OCR of a
  scanned page), on one page; stores
  its ``PageResult`` and tells the gatherer on ``tables.page-done`` (keyed by document);
* gatherer (``tables-gather``): pages done per document in memory; when all are, attaches the
  tables to the pages and emits ``DocumentTablesDone`` for the splitter.

The work is in ``handle.py`` and ``gather.py``, the clients in ``clients.py``. Run: ``python -m services.tables``.
"""
from __future__ import annotations

import contextlib

from services.tables.clients import GatherDep, OcrDep, ParsedPagesDep, PlumberDep, VisionDep, open_clients
from services.tables.gather import ForgetOnRebalance, finish_document, gather_page, mark_gathered
from services.tables.handle import plan_document, process_page
from shared import topics
from shared.deletion import DeletionCheck
from shared.errors import DocumentGone
from shared.events import DocumentParsed, PageTablesDone, PageWork
from shared.kafka import event_publisher
from shared.stage import SettingsDep, Stage, StoreDep

stage = Stage("tables", progress_stage="tables", output_topic=topics.TABLES, clients=open_clients)
page_pub = event_publisher(stage.broker, topics.TABLE_PAGES)
page_done_pub = event_publisher(stage.broker, topics.TABLE_PAGE_DONE)


async def _still_live(check: DeletionCheck) -> bool:
    """False once the document is deleted (throttled); True when MinIO cannot be asked — the page
    work is published on, and each page worker asks again before it writes anything."""
    try:
        return await check.alive()
    except Exception:  # noqa: BLE001 - a store outage must not break off a fan-out half-way
        return True


@stage.subscriber(topics.PARSED, group="tables-fanout")
async def on_parsed(event: DocumentParsed, store: StoreDep) -> None:
    """Fan a parsed PDF out, one ``PageWork`` per page (stopping if the document is deleted
    meanwhile); a DOCX/TXT document is done at once."""
    check = stage.deletion_check(event)
    planned = await stage.run(event, topics.PARSED, lambda: plan_document(event, store, check))
    if isinstance(planned, list):
        for work in planned:
            if not await _still_live(check):
                break
            await page_pub.publish(work, key=f"{work.document_id}:{work.page_number}".encode())
    elif planned is not None:
        await stage.emit(planned)


@stage.subscriber(topics.TABLE_PAGES)
async def on_page(work: PageWork, store: StoreDep, plumber: PlumberDep, vision: VisionDep,
                  parsed_pages: ParsedPagesDep, settings: SettingsDep, ocr: OcrDep) -> None:
    """Find one page's tables (or read a scanned page by OCR) under the consumer contract; tell
    the gatherer."""
    check = stage.deletion_check(work)
    done = await stage.run(work, topics.TABLE_PAGES, lambda: process_page(
        work, store, plumber, vision, parsed_pages, settings.raster_dpi, check, ocr, settings.ocr_dpi))
    if done is not None:
        await page_done_pub.publish(done, key=done.document_id.encode())


@stage.subscriber(topics.TABLE_PAGE_DONE, group="tables-gather",
                  listener=ForgetOnRebalance(lambda: stage.client("gather")))
async def on_page_done(event: PageTablesDone, store: StoreDep, gather: GatherDep) -> None:
    """Count a page done (progress); once every page is, emit the document's tables."""
    done = await stage.run(event, topics.TABLE_PAGE_DONE, lambda: gather_page(event, store, gather))
    if done is None:
        return
    await stage.progress(event, pages_done=min(len(done), event.page_count), pages_total=event.page_count,
                         scanned_pages=[event.page_number] if event.scanned else [])
    if len(done) < event.page_count:
        return
    check = stage.deletion_check(event)
    tables = await stage.run(event, topics.TABLE_PAGE_DONE, lambda: finish_document(event, store, check))
    if tables is not None:
        await stage.emit(tables)
        with contextlib.suppress(DocumentGone):  # deleted meanwhile: no marker (the splitter drops it)
            await mark_gathered(store, gather, event.document_id, check)


app = stage.app

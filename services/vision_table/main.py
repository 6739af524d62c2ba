"""Vision-table service: consumes ``pages.rendered`` (one ``PageWork`` per PDF page), stores
the page's ``PageResult`` in MinIO and emits ``PageTablesDone`` on ``pages.tables``.

Per page (``services.vision_table.page_result.build_page_result``): pdfplumber tables of the
born-digital page (path 1, default); when the page was rendered for it and the vision path
is on, the vision LLM's answer (cached by image hash) replaces them if it validates (path 2);
scanned pages are flagged and only the vision path can read them (path 3). Run several of
these workers in one consumer group: the topic is keyed by document and page.
Run: ``python -m services.vision_table``.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from contextlib import asynccontextmanager

from faststream import AckPolicy

from services.vision_table.cache import cached_answer, store_answer
from services.vision_table.page_result import PageResult, build_page_result
from services.vision_table.plumber_pool import PlumberPool
from services.vision_table.vision import VisionClient
from shared import storage, topics
from shared.events import PageTablesDone, PageWork, ProgressEvent
from shared.kafka import make_broker, run_stage, stage_publishers
from shared.metrics import (PAGE_LATENCY, PAGES, TABLES_FOUND, VISION_CACHE_HITS, VISION_CALLS,
                            VISION_VALIDATION_FAILURES)
from shared.models import ParsedDocument
from shared.settings import get_settings
from shared.storage import ObjectStore, open_store
from shared.worker import make_app

GROUP = "vision-table"
log = logging.getLogger("legco.vision_table")
settings = get_settings()
broker = make_broker(settings, "vision-table")
pubs = stage_publishers(broker, topics.PAGES_TABLES)
store: ObjectStore | None = None
vision: VisionClient | None = None
plumber: PlumberPool | None = None
_pages_cache: OrderedDict[str, ParsedDocument] = OrderedDict()


@asynccontextmanager
async def lifespan():
    """Create the MinIO client, the pdfplumber child process (time/memory limited) and the
    vision client when the vision path is on."""
    global store, vision, plumber
    store = await open_store(settings)
    vision = VisionClient(settings) if settings.vision_active else None
    plumber = PlumberPool(settings.vision_plumber_timeout_s, settings.vision_plumber_memory_limit_bytes)
    yield
    await asyncio.to_thread(plumber.close)
    if vision is not None:
        await vision.close()


async def _parsed(key: str) -> ParsedDocument:
    """The parser's pages of a document, cached for the few documents in flight."""
    assert store is not None
    if key not in _pages_cache:
        _pages_cache[key] = ParsedDocument.model_validate(await asyncio.to_thread(store.get_json, key))
        while len(_pages_cache) > 8:
            _pages_cache.popitem(last=False)
    return _pages_cache[key]


async def vision_answer(work: PageWork) -> tuple[str | None, str | None, bool]:
    """(answer, error, from_cache) for a rendered page; (None, None, False) when the page is
    not for the vision path. A failed call is an ``error`` (path 1 stands), not a retry."""
    assert store is not None
    if vision is None or not work.image_key or not work.image_sha256:
        return None, None, False
    hit = await asyncio.to_thread(cached_answer, store, work.image_sha256, vision.model)
    if hit is not None:
        VISION_CACHE_HITS.inc()
        return hit, None, True
    try:
        png = await asyncio.to_thread(store.get_bytes, work.image_key)
        answer = await vision.page_markdown(png)
    except Exception as e:  # endpoint down, timeout, empty answer: keep path 1
        VISION_CALLS.labels("error").inc()
        log.warning("vision call failed for %s page %d: %s", work.document_id, work.page_number, e)
        return None, f"{type(e).__name__}: {e}", False
    VISION_CALLS.labels("ok").inc()
    await asyncio.to_thread(store_answer, store, work.image_sha256, vision.model, answer)
    return answer, None, False


async def process_page(work: PageWork) -> PageResult | None:
    """Build, store and return one page's result; ``None`` if the document was deleted.

    Idempotent: a redelivery overwrites the same result object (vision answers come from the
    cache). Raises ``KeyError`` when the parser's pages object is missing (retried, then
    dead-lettered); a missing page PDF only means no pdfplumber tables for that page.
    """
    assert store is not None
    doc_id = work.document_id
    if not await asyncio.to_thread(store.exists, storage.manifest_key(doc_id)):
        return None
    start = time.perf_counter()
    parsed = await _parsed(work.parsed.pages_key)
    page = next((p for p in parsed.pages if p.page_number == work.page_number), None)
    text = page.text if page else ""
    scanned = work.scanned or bool(page and page.scanned)
    pdf = None
    if not scanned:
        try:
            pdf = await asyncio.to_thread(store.get_bytes, work.page_pdf_key)
        except KeyError:  # the parser could not split this page out: no tables from it
            log.warning("page PDF %s missing; no pdfplumber tables for it", work.page_pdf_key)
    answer, error, cached = await vision_answer(work)
    assert plumber is not None
    result = await asyncio.to_thread(build_page_result, pdf, work.page_number, text, scanned, answer, error,
                                     extract=plumber.extract)
    result.vision_cached = cached
    if result.vision_reject_reason:
        VISION_VALIDATION_FAILURES.labels(result.vision_reject_reason).inc()
    n_tables = len(result.vision_tables) if result.table_source == "vision" else len(result.tables)
    if n_tables:
        TABLES_FOUND.labels(result.table_source).inc(n_tables)
    await asyncio.to_thread(store.put_json, storage.page_result_key(doc_id, work.page_number), result)
    PAGES.labels("tables").inc()
    PAGE_LATENCY.labels(result.table_source).observe(time.perf_counter() - start)
    return result


async def _pages_done(doc_id: str) -> int:
    assert store is not None
    return await asyncio.to_thread(lambda: sum(1 for _ in store.list_keys(storage.page_result_prefix(doc_id))))


@broker.subscriber(topics.PAGES_RENDERED, group_id=GROUP, ack_policy=AckPolicy.ACK, max_poll_records=1)
async def on_page(work: PageWork) -> None:
    """Handle one page under the retry/dead-letter contract; report progress per page."""
    parsed = work.parsed
    result = await run_stage(pubs=pubs, settings=settings, stage="tables", group=GROUP,
                             topic=topics.PAGES_RENDERED, event=work, filename=parsed.filename,
                             work=lambda: process_page(work))
    if result is None:
        return
    done = PageTablesDone(**parsed.model_dump(exclude={"event_id", "ts"}), table_stage=True,
                          page_number=work.page_number,
                          result_key=storage.page_result_key(work.document_id, work.page_number),
                          table_source=result.table_source, scanned=result.scanned)
    await pubs.emit(done)
    await pubs.report(ProgressEvent(
        document_id=work.document_id, department=work.department, filename=parsed.filename,
        stage="tables", status="processing", pages_done=min(await _pages_done(work.document_id), work.page_count),
        pages_total=work.page_count, scanned_pages=[work.page_number] if result.scanned else []))


app = make_app(broker, lifespan=lifespan)

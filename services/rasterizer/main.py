"""Rasterizer service: consumes ``documents.parsed``, emits one ``PageWork`` per PDF page on
``pages.rendered`` (keyed ``{document_id}:{page}``, so a document's pages spread over the
vision-table workers).

Only the pages the vision-table stage will show to the vision LLM are rendered (pypdfium2,
``RASTER_DPI``, PNG in MinIO): none while the vision path is off; scanned pages and pages
that draw table rules (:func:`may_hold_table`) when it is on. Rendering runs in a worker
thread, off the event loop. DOCX/TXT documents skip the table stage: they go straight to
the splitter's topic as a ``PageTablesDone`` with ``table_stage=False``.
Run: ``python -m services.rasterizer``.
"""
from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager

from faststream import AckPolicy

from services.rasterizer.render import may_hold_table, render_png, sha256
from shared import storage, topics
from shared.events import DocumentParsed, PageTablesDone, PageWork
from shared.kafka import make_broker, run_stage, stage_publishers
from shared.metrics import PAGES_RENDERED
from shared.settings import get_settings
from shared.storage import ObjectStore, open_store
from shared.worker import make_app

GROUP = "rasterizer"
settings = get_settings()
broker = make_broker(settings, "rasterizer")
pubs = stage_publishers(broker, topics.PAGES_RENDERED)
skip_pub = broker.publisher(topics.PAGES_TABLES)  # DOCX/TXT: straight to the splitter
store: ObjectStore | None = None


@asynccontextmanager
async def lifespan():
    """Create the MinIO client once per process."""
    global store
    store = await open_store(settings)
    yield


def _render_if_needed(pdf: bytes, scanned: bool) -> bytes | None:
    """PNG of the one-page ``pdf`` when the vision LLM will look at it, else ``None``."""
    if not settings.vision_active:
        return None
    if not scanned and not may_hold_table(pdf):
        return None
    return render_png(pdf, 1, settings.raster_dpi)


async def page_work(event: DocumentParsed, n: int) -> PageWork:
    """Render page ``n`` (1-based) if needed and describe it for the vision-table stage.

    Idempotent: a redelivery renders to the same key again. Raises ``KeyError`` when the
    page PDF is missing (retried, then dead-lettered).
    """
    assert store is not None
    doc_id = event.document_id
    pdf_key = storage.page_pdf_key(doc_id, n)
    scanned = n in event.scanned_pages
    image_key = digest = None
    if settings.vision_active:
        pdf = await asyncio.to_thread(store.get_bytes, pdf_key)
        png = await asyncio.to_thread(_render_if_needed, pdf, scanned)
        if png is not None:
            image_key, digest = storage.page_image_key(doc_id, n), sha256(png)
            await asyncio.to_thread(store.put_bytes, image_key, png, "image/png")
            PAGES_RENDERED.inc()
    return PageWork(document_id=doc_id, department=event.department, page_number=n,
                    page_count=event.page_count, page_pdf_key=pdf_key, image_key=image_key,
                    image_sha256=digest, dpi=settings.raster_dpi if image_key else None,
                    scanned=scanned, parsed=event)


async def fan_out(event: DocumentParsed) -> int | None:
    """Emit the per-page work of one parsed document (or its skip event); returns the
    number of pages emitted, ``None`` when the document was deleted meanwhile."""
    assert store is not None
    if not await asyncio.to_thread(store.exists, storage.manifest_key(event.document_id)):
        return None
    if event.file_type != "pdf" or not event.page_pdf_prefix:
        skip = PageTablesDone(**event.model_dump(exclude={"event_id", "ts"}), table_stage=False)
        await skip_pub.publish(skip, key=event.document_id.encode())
        return 0
    for n in range(1, event.page_count + 1):
        work = await page_work(event, n)
        await pubs.output.publish(work, key=f"{event.document_id}:{n}".encode())
    return event.page_count


@broker.subscriber(topics.PARSED, group_id=GROUP, ack_policy=AckPolicy.ACK, max_poll_records=1)
async def on_parsed(event: DocumentParsed) -> None:
    """Handle one parsed document under the retry/dead-letter contract."""
    await run_stage(pubs=pubs, settings=settings, stage="rasterizing", group=GROUP,
                    topic=topics.PARSED, event=event, filename=event.filename,
                    work=lambda: fan_out(event))


app = make_app(broker, lifespan=lifespan)

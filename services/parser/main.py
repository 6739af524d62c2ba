"""Parser service: consumes ``documents.uploaded``, emits ``documents.parsed``.

Reads the original from MinIO, parses it in an isolated child process (time and memory
limits), stores the page texts and the one-page PDFs in MinIO, and reports progress.
Run: ``python -m services.parser`` (PORT serves /metrics and /healthz).
"""
from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager

from faststream import AckPolicy

from services.parser.parse import parse_document_isolated
from services.parser.pdf import format_pages
from shared import storage, topics
from shared.errors import DocumentError
from shared.events import DocumentParsed, DocumentUploaded, ProgressEvent
from shared.kafka import make_broker, run_stage, stage_publishers
from shared.metrics import PAGES
from shared.settings import get_settings
from shared.storage import ObjectStore, open_store
from shared.worker import make_app

GROUP = "parser"
settings = get_settings()
broker = make_broker(settings, "parser")
pubs = stage_publishers(broker, topics.PARSED)
store: ObjectStore | None = None


@asynccontextmanager
async def lifespan():
    """Create the MinIO client once per process."""
    global store
    store = await open_store(settings)
    yield


async def parse_and_store(event: DocumentUploaded) -> DocumentParsed | None:
    """Parse one uploaded document and store its pages; ``None`` if it was deleted meanwhile.

    Idempotent: a redelivered event overwrites the same objects.

    Raises:
        DocumentError: the file cannot be read (the document is failed with the reason).
    """
    assert store is not None
    doc_id = event.document_id
    if not await asyncio.to_thread(store.exists, storage.manifest_key(doc_id)):
        return None  # deleted or replaced before we got to it
    await pubs.report(ProgressEvent(document_id=doc_id, department=event.department,
                                                 filename=event.filename, stage="parsing",
                                                 status="processing"))
    try:
        data = await asyncio.to_thread(store.get_bytes, event.object_key)
    except KeyError:
        raise DocumentError("The uploaded file is no longer in storage.", "missing") from None
    out = await asyncio.to_thread(parse_document_isolated, data, event.filename, doc_id, settings)
    parsed = out.parsed
    # with the vision path on, the vision-table stage reads scanned pages
    vision_reads_scans = settings.vision_active and settings.splitter_input_topic != topics.PARSED
    if all(p.scanned or not p.text.strip() for p in parsed.pages):
        scanned = [p.page_number for p in parsed.pages if p.scanned and p.page_number]
        if not scanned:
            raise DocumentError("The document contains no extractable text.", "empty")
        if not vision_reads_scans:
            raise DocumentError(
                f"No text layer: all {parsed.page_count} pages look scanned (pages "
                f"{format_pages(scanned)}); OCR or the vision stage is needed to index it.", "scanned")
    total = parsed.page_count
    for i, (n, pdf) in enumerate(sorted(out.page_pdfs.items()), start=1):
        await asyncio.to_thread(store.put_bytes, storage.page_pdf_key(doc_id, n), pdf, "application/pdf")
        if i % 10 == 0 or i == total:
            await pubs.report(ProgressEvent(
                document_id=doc_id, department=event.department, filename=event.filename,
                stage="parsing", status="processing", pages_done=i, pages_total=total))
    await asyncio.to_thread(store.put_json, storage.pages_key(doc_id), parsed)
    PAGES.labels("parsing").inc(total)
    scanned = [p.page_number for p in parsed.pages if p.scanned and p.page_number]
    warnings = list(parsed.warnings)
    if scanned:
        warnings.append(f"Pages without a text layer (scanned): {format_pages(scanned)}.")
    return DocumentParsed(
        document_id=doc_id, department=event.department, filename=event.filename,
        strategy=event.strategy, file_type=parsed.file_type, page_count=total,
        pages_key=storage.pages_key(doc_id),
        page_pdf_prefix=storage.page_pdf_prefix(doc_id) if out.page_pdfs else None,
        scanned_pages=scanned, warnings=warnings)


@broker.subscriber(topics.UPLOADED, group_id=GROUP, ack_policy=AckPolicy.ACK, max_poll_records=1)
async def on_uploaded(event: DocumentUploaded) -> None:
    """Handle one upload under the retry/dead-letter contract of ``shared.kafka.run_stage``."""
    parsed = await run_stage(pubs=pubs, settings=settings, stage="parsing", group=GROUP,
                             topic=topics.UPLOADED, event=event, filename=event.filename,
                             work=lambda: parse_and_store(event))
    if parsed is not None:
        await pubs.emit(parsed)
        await pubs.report(ProgressEvent(
            document_id=parsed.document_id, department=parsed.department, filename=parsed.filename,
            stage="parsing", status="processing", pages_done=parsed.page_count,
            pages_total=parsed.page_count, page_count=parsed.page_count, file_type=parsed.file_type,
            warnings=parsed.warnings, scanned_pages=parsed.scanned_pages))


app = make_app(broker, lifespan=lifespan)

"""Splitter service (the customer's Q&A-splitter): consumes ``pages.tables`` (the table
stage's per-page ``PageTablesDone``; or ``documents.parsed`` when ``SPLITTER_INPUT_TOPIC``
says so), emits ``documents.chunked``.

Owns the table stage's aggregate: a PDF's page events arrive keyed by document, so one
splitter sees them in order; it starts the document only when every page's ``PageResult``
is stored in MinIO (the completion check survives restarts), attaches the tables
(``services.vision_table.assemble.apply_page_results``), runs the chunking strategy chosen at
upload (``split_document``: token or question, which injects the markdown tables), stores the
chunks as one ``ChunkSet`` object and reports progress. After emitting it writes a marker so
late or redelivered page events do not split the document again. DOCX/TXT (and plain
``DocumentParsed`` events) are split directly.
Run: ``python -m services.splitter``.
"""
from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager

from faststream import AckPolicy

from services.splitter.split import split_document
from services.vision_table.assemble import apply_page_results
from services.vision_table.page_result import PageResult
from shared import storage, topics
from shared.errors import DocumentError
from shared.events import DocumentChunked, PageTablesDone, ProgressEvent
from shared.kafka import make_broker, run_stage, stage_publishers
from shared.metrics import CHUNKS
from shared.models import ParsedDocument
from shared.settings import get_settings
from shared.storage import ObjectStore, open_store
from shared.worker import make_app

GROUP = "splitter"
settings = get_settings()
broker = make_broker(settings, "splitter")
pubs = stage_publishers(broker, topics.CHUNKED)
store: ObjectStore | None = None


@asynccontextmanager
async def lifespan():
    """Create the MinIO client once per process."""
    global store
    store = await open_store(settings)
    yield


def boundary_checker():
    """The optional LLM boundary checker when an LLM is configured, else ``None``."""
    if not settings.llm_enabled:
        return None
    from services.splitter.llm_check import OpenAIBoundaryChecker

    return OpenAIBoundaryChecker(settings)


def _results_if_complete(doc_id: str, page_count: int) -> list[PageResult] | None:
    """Every page's stored ``PageResult``, or ``None`` while some page is not done (blocking)."""
    assert store is not None
    keys = list(store.list_keys(storage.page_result_prefix(doc_id)))
    if len(keys) < page_count:
        return None
    return [PageResult.model_validate(store.get_json(k)) for k in keys]


async def split_and_store(event: PageTablesDone) -> DocumentChunked | None:
    """Chunk one document and store the chunks; ``None`` if it was deleted meanwhile, or
    (table stage) while pages are still missing or after it was already split.

    Idempotent: chunk indexes are deterministic, a redelivery overwrites ``chunks.json``.
    """
    assert store is not None
    doc_id = event.document_id
    if not await asyncio.to_thread(store.exists, storage.manifest_key(doc_id)):
        return None
    results = None
    if event.table_stage:
        if await asyncio.to_thread(store.exists, storage.tables_split_marker_key(doc_id)):
            return None  # a late/redelivered page event of a document already split
        results = await asyncio.to_thread(_results_if_complete, doc_id, event.page_count)
        if results is None:
            return None
    await pubs.report(ProgressEvent(document_id=doc_id, department=event.department,
                                                 filename=event.filename, stage="splitting",
                                                 status="processing"))
    parsed = ParsedDocument.model_validate(await asyncio.to_thread(store.get_json, event.pages_key))
    if results is not None:
        parsed = await asyncio.to_thread(apply_page_results, parsed, results)
    chunk_set = await asyncio.to_thread(split_document, parsed, event.strategy, settings,
                                        boundary_checker())
    if not chunk_set.chunks:
        raise DocumentError("No text to index was found in the document.", "empty")
    await asyncio.to_thread(store.put_json, storage.chunks_key(doc_id), chunk_set)
    CHUNKS.labels("splitting").inc(len(chunk_set.chunks))
    return DocumentChunked(document_id=doc_id, department=event.department, filename=event.filename,
                           strategy=event.strategy, strategy_used=chunk_set.strategy_used,
                           file_type=parsed.file_type, page_count=parsed.page_count,
                           chunks_key=storage.chunks_key(doc_id), chunk_count=len(chunk_set.chunks))


@broker.subscriber(settings.splitter_input_topic, group_id=GROUP, ack_policy=AckPolicy.ACK,
                   max_poll_records=1)
async def on_parsed(event: PageTablesDone) -> None:
    """Handle one page-done (or parsed) event under the retry/dead-letter contract."""
    chunked = await run_stage(pubs=pubs, settings=settings, stage="splitting", group=GROUP,
                              topic=settings.splitter_input_topic, event=event, filename=event.filename,
                              work=lambda: split_and_store(event))
    if chunked is not None:
        await pubs.emit(chunked)
        await pubs.report(ProgressEvent(
            document_id=chunked.document_id, department=chunked.department, filename=chunked.filename,
            stage="splitting", status="processing", pages_done=chunked.page_count,
            pages_total=chunked.page_count, chunk_count=chunked.chunk_count,
            strategy_used=chunked.strategy_used, scanned_pages=event.scanned_pages))
        if event.table_stage:
            await asyncio.to_thread(store.put_bytes, storage.tables_split_marker_key(chunked.document_id),
                                    chunked.event_id.encode())


app = make_app(broker, lifespan=lifespan)

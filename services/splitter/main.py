"""Splitter service (the customer's Q&A-splitter): consumes ``documents.parsed``, emits
``documents.chunked``.

Loads the parser's page texts from MinIO, runs the chunking strategy chosen at upload
(``services.splitter.split.split_document``: token or question), stores the chunks as one
``ChunkSet`` object and reports progress. The input topic is a setting
(``SPLITTER_INPUT_TOPIC``) so a table stage can be deployed in front of it.
Run: ``python -m services.splitter``.
"""
from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager

from faststream import AckPolicy

from services.splitter.split import split_document
from shared import storage, topics
from shared.errors import DocumentError
from shared.events import DocumentChunked, DocumentParsed, ProgressEvent
from shared.kafka import make_broker, run_stage, stage_publishers
from shared.metrics import CHUNKS
from shared.models import ParsedDocument
from shared.settings import get_settings
from shared.storage import ObjectStore
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
    store = ObjectStore(settings)
    await asyncio.to_thread(store.ensure_bucket)
    yield


def boundary_checker():
    """The optional LLM boundary checker when an LLM is configured, else ``None``."""
    if not settings.llm_enabled:
        return None
    from services.splitter.llm_check import OpenAIBoundaryChecker

    return OpenAIBoundaryChecker(settings)


async def split_and_store(event: DocumentParsed) -> DocumentChunked | None:
    """Chunk one parsed document and store the chunks; ``None`` if it was deleted meanwhile.

    Idempotent: chunk indexes are deterministic, a redelivery overwrites ``chunks.json``.
    """
    assert store is not None
    doc_id = event.document_id
    if not await asyncio.to_thread(store.exists, storage.manifest_key(doc_id)):
        return None
    await pubs.report(ProgressEvent(document_id=doc_id, department=event.department,
                                                 filename=event.filename, stage="splitting",
                                                 status="processing"))
    parsed = ParsedDocument.model_validate(await asyncio.to_thread(store.get_json, event.pages_key))
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
async def on_parsed(event: DocumentParsed) -> None:
    """Handle one parsed document under the retry/dead-letter contract."""
    chunked = await run_stage(pubs=pubs, settings=settings, stage="splitting", group=GROUP,
                              topic=settings.splitter_input_topic, event=event, filename=event.filename,
                              work=lambda: split_and_store(event))
    if chunked is not None:
        await pubs.emit(chunked)
        await pubs.report(ProgressEvent(
            document_id=chunked.document_id, department=chunked.department, filename=chunked.filename,
            stage="splitting", status="processing", pages_done=chunked.page_count,
            pages_total=chunked.page_count, chunk_count=chunked.chunk_count,
            strategy_used=chunked.strategy_used))


app = make_app(broker, lifespan=lifespan)

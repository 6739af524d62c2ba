"""What the splitter stage does with one ``DocumentTablesDone``: read the document's pages
(for a PDF the copy with the tables attached by the table stage), run the chunking strategy
chosen at upload (``split_document``: token or question, which injects the markdown tables)
and store the chunks as one ``ChunkSet``. Clients and the progress callback are handed in
(see ``services/splitter/main.py``), so tests call this with real or fake ones.
"""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from services.splitter.split import split_document
from shared import storage
from shared.deletion import Check, never_gone
from shared.errors import DocumentError
from shared.events import DocumentChunked, DocumentTablesDone
from shared.metrics import CHUNKS
from shared.models import ParsedDocument
from shared.settings import Settings
from shared.storage import ObjectStore

if TYPE_CHECKING:
    from services.splitter.llm_check import BoundaryChecker

Report = Callable[..., Awaitable[None]]
"""``report()``: publishes a ``splitting`` progress event."""


def boundary_checker(settings: Settings) -> BoundaryChecker | None:
    """The optional LLM boundary checker when an LLM is configured, else ``None``."""
    if not settings.llm_enabled:
        return None
    from services.splitter.llm_check import OpenAIBoundaryChecker

    return OpenAIBoundaryChecker(settings)


async def split_and_store(event: DocumentTablesDone, store: ObjectStore, settings: Settings,
                          report: Report, check: Check = never_gone) -> DocumentChunked:
    """Chunk one document and store the chunks at ``documents/{id}/chunks.json``.

    Idempotent: chunk indexes are deterministic, a redelivery overwrites ``chunks.json``.

    Raises:
        DocumentError: ``empty`` when no chunk has text (the document is failed).
        KeyError: the pages object is missing (retried, then dead-lettered).
        DocumentGone: ``check`` found the document deleted before the chunks were written.
    """
    doc_id = event.document_id
    await report()
    parsed = ParsedDocument.model_validate(await asyncio.to_thread(store.get_json, event.pages_key))
    chunk_set = await asyncio.to_thread(split_document, parsed, event.strategy, settings,
                                        boundary_checker(settings))
    if not chunk_set.chunks:
        raise DocumentError("No text to index was found in the document.", "empty")
    await check(force=True)
    await asyncio.to_thread(store.put_json, storage.chunks_key(doc_id), chunk_set)
    CHUNKS.labels("splitting").inc(len(chunk_set.chunks))
    return DocumentChunked(document_id=doc_id, department=event.department, visibility=event.visibility,
                           filename=event.filename,
                           strategy=event.strategy, strategy_used=chunk_set.strategy_used,
                           file_type=parsed.file_type, page_count=parsed.page_count,
                           chunks_key=storage.chunks_key(doc_id), chunk_count=len(chunk_set.chunks))

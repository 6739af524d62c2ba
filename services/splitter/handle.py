"""What the splitter stage does with one ``DocumentTablesDone``: read the document's pages
(for a PDF the copy with the tables attached by the table stage), run the chunking strategy
chosen at upload (``split_document``: token or question, which injects the markdown tables),
mark where each chunk is printed (``highlight.add_highlights``, from the parser's text-position
layers of a PDF) and store the chunks as one ``ChunkSet``. Clients and the progress callback are handed in
(see ``services/splitter/main.py``), so tests call this with real or fake ones. While the LLM
verification pass runs, the ``splitting`` progress names it: ``step="verifying"``, ``step_done``
of ``step_total`` Q&A pairs.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from pydantic import ValidationError

from services.splitter.highlight import add_highlights
from services.splitter.split import split_document
from shared import storage
from shared.deletion import Check, never_gone
from shared.errors import DocumentError
from shared.events import DocumentChunked, DocumentTablesDone
from shared.metrics import CHUNKS
from shared.models import PageBoxes, ParsedDocument
from shared.settings import Settings
from shared.storage import ObjectStore

if TYPE_CHECKING:
    from services.splitter.llm_check import BoundaryChecker

log = logging.getLogger("legco.splitter")

Report = Callable[..., Awaitable[None]]
"""``report(**fields)``: publishes a ``splitting`` progress event (``fields``: further
``ProgressEvent`` fields, e.g. ``step``)."""

VERIFYING = "verifying"
"""The ``step`` of a ``splitting`` progress event while the LLM verification pass runs."""


def verify_reporter(report: Report, loop: asyncio.AbstractEventLoop) -> Callable[[int, int], None]:
    """A ``split_document`` ``on_verify`` callback for the chunking thread: publishes ``splitting``
    progress with ``step="verifying"``, ``step_done``/``step_total`` (Q&A pairs) on ``loop`` and
    waits until it is published, so the events go out in order. Raises what ``report`` raises
    (as the stage's first progress event would: the consumer contract retries the document)."""
    def on_verify(done: int, total: int) -> None:
        async def send() -> None:
            await report(step=VERIFYING, step_done=done, step_total=total)

        asyncio.run_coroutine_threadsafe(send(), loop).result()
    return on_verify


def boundary_checker(settings: Settings, store: ObjectStore | None = None) -> BoundaryChecker | None:
    """The optional LLM verification pass when an LLM is configured, else ``None`` (its replies
    cached in ``store``)."""
    if not settings.llm_enabled:
        return None
    from services.splitter.llm_check import OpenAIBoundaryChecker

    return OpenAIBoundaryChecker(settings, store)


def read_layers(store: ObjectStore, boxes_prefix: str | None, page_count: int) -> dict[int, PageBoxes]:
    """The parser's text-position layers (``PageBoxes``) by 1-based page, read from
    ``{boxes_prefix}{n}.json`` for n in 1..``page_count``; ``{}`` without a prefix (DOCX/TXT,
    documents parsed before the layers existed). A page without a layer (no text) or with an
    unreadable one is left out: its chunks get no highlights. Blocking."""
    if not boxes_prefix:
        return {}
    layers: dict[int, PageBoxes] = {}
    for n in range(1, page_count + 1):
        try:
            layers[n] = PageBoxes.model_validate(store.get_json(f"{boxes_prefix}{n}.json"))
        except KeyError:
            continue
        except (ValidationError, ValueError) as e:
            log.warning("position layer %s%d.json unreadable: %s", boxes_prefix, n, e)
    return layers


async def split_and_store(event: DocumentTablesDone, store: ObjectStore, settings: Settings,
                          report: Report, check: Check = never_gone) -> DocumentChunked:
    """Chunk one document and store the chunks at ``documents/{id}/chunks.json``, each with its
    ``highlights`` when the event names the parser's position layers (``boxes_prefix``).

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
                                        boundary_checker(settings, store),
                                        verify_reporter(report, asyncio.get_running_loop()))
    if not chunk_set.chunks:
        raise DocumentError("No text to index was found in the document.", "empty")
    layers = await asyncio.to_thread(read_layers, store, event.boxes_prefix, parsed.page_count)
    if layers:
        await asyncio.to_thread(add_highlights, chunk_set.chunks, layers)
    await check(force=True)
    await asyncio.to_thread(store.put_json, storage.chunks_key(doc_id), chunk_set)
    CHUNKS.labels("splitting").inc(len(chunk_set.chunks))
    return DocumentChunked(document_id=doc_id, department=event.department, visibility=event.visibility,
                           filename=event.filename,
                           strategy=event.strategy, strategy_used=chunk_set.strategy_used,
                           file_type=parsed.file_type, page_count=parsed.page_count,
                           chunks_key=storage.chunks_key(doc_id), chunk_count=len(chunk_set.chunks))

"""Splitter service (the customer's Q&A-splitter): consumes ``documents.tables`` (one
``DocumentTablesDone`` per document from the table stage), emits ``documents.chunked``.

Chunking only (``handle.split_and_store``): the table stage has already attached the tables to
the pages; the chosen strategy (token or question) injects them as markdown and cuts the
document. ``SPLITTER_INPUT_TOPIC=legco.documents.parsed.v1`` runs without the table stage (the
parser's events carry every field of ``DocumentTablesDone``).
Run: ``python -m services.splitter``.
"""
from __future__ import annotations

from functools import partial

from services.splitter.handle import split_and_store
from shared import topics
from shared.events import DocumentTablesDone
from shared.stage import SettingsDep, Stage, StoreDep

stage = Stage("splitter", progress_stage="splitting", output_topic=topics.CHUNKED)
INPUT_TOPIC = stage.settings.splitter_input_topic


@stage.subscriber(INPUT_TOPIC)
async def on_tables(event: DocumentTablesDone, store: StoreDep, settings: SettingsDep) -> None:
    """Chunk one document under the consumer contract; emit ``documents.chunked``."""
    report = partial(stage.progress, event)
    check = stage.deletion_check(event)
    chunked = await stage.run(event, INPUT_TOPIC, lambda: split_and_store(event, store, settings, report, check))
    if chunked is not None:
        await stage.emit(chunked)
        await stage.progress(chunked, pages_done=chunked.page_count, pages_total=chunked.page_count,
                             chunk_count=chunked.chunk_count, strategy_used=chunked.strategy_used,
                             scanned_pages=event.scanned_pages)


app = stage.app

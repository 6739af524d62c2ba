"""Parser service: consumes ``documents.uploaded``, emits ``documents.parsed``.

Reads the original from MinIO, parses it in an isolated child process (time and memory
limits), stores the page texts and the one-page PDFs in MinIO (``handle.parse_and_store``),
and reports progress. Run: ``python -m services.parser`` (PORT serves /metrics and /healthz).
"""
from __future__ import annotations

from functools import partial

from services.parser.handle import parse_and_store
from shared import topics
from shared.events import DocumentUploaded
from shared.stage import SettingsDep, Stage, StoreDep

stage = Stage("parser", progress_stage="parsing", output_topic=topics.PARSED)


@stage.subscriber(topics.UPLOADED)
async def on_uploaded(event: DocumentUploaded, store: StoreDep, settings: SettingsDep) -> None:
    """Parse one uploaded document under the consumer contract; emit ``documents.parsed``."""
    report = partial(stage.progress, event)
    check = stage.deletion_check(event)
    parsed = await stage.run(event, topics.UPLOADED, lambda: parse_and_store(event, store, settings, report, check))
    if parsed is not None:
        await stage.emit(parsed)
        await stage.progress(parsed, pages_done=parsed.page_count, pages_total=parsed.page_count,
                             page_count=parsed.page_count, file_type=parsed.file_type,
                             warnings=parsed.warnings, scanned_pages=parsed.scanned_pages)


app = stage.app

"""The table stage's clients, opened once per worker process in the app's lifespan and handed
to the handlers through FastStream's context (``PlumberDep`` etc. as handler parameters)."""
from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from faststream import Context

from services.tables.gather import GatherState
from services.tables.handle import ParsedPages
from services.tables.ocr import TesseractEngine
from services.tables.plumber_pool import PlumberPool
from services.tables.vision import VisionClient
from shared.settings import Settings
from shared.storage import open_store

PlumberDep = Annotated[PlumberPool, Context("plumber")]
"""pdfplumber's child process (time and memory limited per page)."""
log = logging.getLogger("legco.tables")

OcrDep = Annotated[TesseractEngine | None, Context("ocr", default=None)]
"""Local OCR of scanned pages; ``None`` while the vision path is on, OCR is off or Tesseract
(or one of its languages) is not installed."""
VisionDep = Annotated[VisionClient | None, Context("vision", default=None)]
"""The vision LLM client; ``None`` while the vision path is off."""
ParsedPagesDep = Annotated[ParsedPages, Context("parsed_pages")]
"""The parser's page texts of the documents in flight on this process."""
GatherDep = Annotated[GatherState, Context("gather")]
"""The gatherer's pages-done sets of the documents in flight on this process."""


def open_ocr(settings: Settings) -> TesseractEngine | None:
    """The OCR engine when scanned pages are for it (``ocr_enabled`` and the vision path off)
    and Tesseract with every language of ``ocr_langs`` is installed; else ``None`` (an error is
    logged when OCR is on but the engine is missing: scanned pages then keep their notice)."""
    if not settings.ocr_enabled or settings.vision_active:
        return None
    engine = TesseractEngine(settings.ocr_langs, settings.ocr_timeout_s)
    if not engine.available():
        log.error("OCR_ENABLED but tesseract or a language of %r is not installed (scripts/deps.sh ocr): "
                  "scanned pages are not read", settings.ocr_langs)
        return None
    return engine


@asynccontextmanager
async def open_clients(settings: Settings) -> AsyncIterator[dict[str, Any]]:
    """MinIO, the pdfplumber child process, the vision client (``None`` with the vision path
    off, ``settings.vision_active``), the OCR engine (:func:`open_ocr`) and this process's
    state; closed on exit."""
    plumber = PlumberPool(settings.vision_plumber_timeout_s, settings.vision_plumber_memory_limit_bytes)
    vision = VisionClient(settings) if settings.vision_active else None
    ocr = await asyncio.to_thread(open_ocr, settings)
    try:
        yield {"store": await open_store(settings), "plumber": plumber, "vision": vision, "ocr": ocr,
               "parsed_pages": ParsedPages(), "gather": GatherState()}
    finally:
        await asyncio.to_thread(plumber.close)
        if vision is not None:
            await vision.close()

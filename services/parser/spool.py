"""Where a parse puts a document's one-page PDFs and text-position layers, one page at a time.

The parse child writes them to a **spool directory** on disk (:class:`SpoolSink`) and the
service uploads them to MinIO one file at a time (``handle.parse_and_store``), so neither
process holds all pages of a document in memory: a 1,200-page PDF of real pages makes ~230 MB
of one-page PDFs, which used to sit in the child, in the pickled result and in the service at
once. In-process callers (``legco split``, the tests) collect them in memory instead
(:class:`MemorySink`).

Layout of a spool directory::

    page_count        the PDF's page count as text, written as soon as it is known (the
                      service's time limit for the child follows it: ``parse.parse_time_limit_s``)
    pages/{n}.pdf     the one-page PDF of page n (1-based)
    boxes/{n}.json    the ``PageBoxes`` JSON of page n (pages with text only)

Each file is written under a temporary name and renamed, so a file that exists is complete.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Protocol

from shared.models import PageBoxes

PAGE_COUNT_FILE = "page_count"
PAGES_DIR = "pages"
BOXES_DIR = "boxes"


class PageSink(Protocol):
    """Receives what a parse produces page by page (page numbers 1-based)."""

    def page_count(self, count: int) -> None:
        """The PDF's page count, before any page is read."""

    def page_pdf(self, page_number: int, pdf: bytes) -> None:
        """The one-page PDF (bytes) of ``page_number``."""

    def page_boxes(self, page_number: int, boxes: PageBoxes) -> None:
        """The text-position layer of ``page_number``."""


class MemorySink:
    """Keeps the pages in memory: ``pdfs`` and ``boxes`` by 1-based page number."""

    def __init__(self) -> None:
        self.count: int | None = None
        self.pdfs: dict[int, bytes] = {}
        self.boxes: dict[int, PageBoxes] = {}

    def page_count(self, count: int) -> None:
        self.count = count

    def page_pdf(self, page_number: int, pdf: bytes) -> None:
        self.pdfs[page_number] = pdf

    def page_boxes(self, page_number: int, boxes: PageBoxes) -> None:
        self.boxes[page_number] = boxes


def boxes_json(boxes: PageBoxes) -> bytes:
    """A layer as UTF-8 JSON, the same bytes ``ObjectStore.put_json`` writes for it."""
    return json.dumps(boxes.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(data)
    os.replace(tmp, path)


class SpoolSink:
    """Writes the pages into the spool directory ``root`` (see the module docstring) and
    remembers which pages it wrote (``pdf_pages``, ``box_pages``, ascending)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        (self.root / PAGES_DIR).mkdir(parents=True, exist_ok=True)
        (self.root / BOXES_DIR).mkdir(parents=True, exist_ok=True)
        self.pdf_pages: list[int] = []
        self.box_pages: list[int] = []

    def page_count(self, count: int) -> None:
        _write(self.root / PAGE_COUNT_FILE, str(count).encode())

    def page_pdf(self, page_number: int, pdf: bytes) -> None:
        _write(page_pdf_path(self.root, page_number), pdf)
        self.pdf_pages.append(page_number)

    def page_boxes(self, page_number: int, boxes: PageBoxes) -> None:
        _write(page_boxes_path(self.root, page_number), boxes_json(boxes))
        self.box_pages.append(page_number)


def page_pdf_path(root: str | Path, page_number: int) -> Path:
    """The spooled one-page PDF of ``page_number`` (1-based)."""
    return Path(root) / PAGES_DIR / f"{page_number}.pdf"


def page_boxes_path(root: str | Path, page_number: int) -> Path:
    """The spooled layer JSON of ``page_number`` (1-based)."""
    return Path(root) / BOXES_DIR / f"{page_number}.json"


def read_page_count(root: str | Path) -> int | None:
    """The page count the child wrote, or ``None`` before it did (or for a file PDFium could
    not count: DOCX, TXT, a damaged PDF)."""
    try:
        return int((Path(root) / PAGE_COUNT_FILE).read_text())
    except (FileNotFoundError, ValueError):
        return None

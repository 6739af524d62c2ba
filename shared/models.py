"""Data shapes passed between pipeline stages (stored as MinIO objects, referenced by events).

Conventions: page numbers are 1-based and ``None`` for formats without pages (DOCX, TXT);
sizes are in tokens (cl100k_base) unless the name says bytes or chars.
"""
from __future__ import annotations

from typing import Any, Literal, TypeGuard

from pydantic import BaseModel, Field

FileType = Literal["pdf", "docx", "txt"]
StrategyName = Literal["token", "question"]
STRATEGIES: tuple[str, ...] = ("token", "question")
Visibility = Literal["department", "shared"]
"""Who may read a document: its own department only, or every department (the shared library)."""
VISIBILITIES: tuple[Visibility, ...] = ("department", "shared")


def is_strategy(name: str) -> TypeGuard[StrategyName]:
    """True when ``name`` is one of ``STRATEGIES``."""
    return name in STRATEGIES


# What an upload's filename may end with (lower-cased): the gateway refuses anything else (400)
# and serves this list to clients at ``GET /api/v1/config``. One extension per ``FileType``.
ACCEPTED_EXTENSIONS: tuple[str, ...] = (".pdf", ".docx", ".txt")


class TableSpan(BaseModel):
    """One table the table stage found on a page, and the span of the page text it replaces.

    * ``role``: ``"table"`` on the table's first page, carrying the whole ``markdown`` (a table
      running over several pages is one table); ``"continuation"`` marks the flattened text
      of a later fragment, to be removed (``markdown`` empty).
    * ``source``: ``"pdfplumber"`` or ``"vision"`` (which path read the table).
    * ``pages``: every page (1-based) holding a fragment of the table; ``header``: one label
      per column; ``n_rows``: data rows (0 for a continuation of a vision table).
    * ``span``: ``(start, end)`` character offsets in that page's ``text`` (end exclusive);
      ``None`` = not located, the markdown is appended to the page.
    * ``in_text``: the markdown is already part of the page text (a scanned page transcribed
      by the vision model), nothing to swap in.

    Stored as JSON inside ``ParsedDocument`` (``span`` as a two-element list).
    """

    role: Literal["table", "continuation"]
    source: Literal["pdfplumber", "vision"]
    markdown: str = ""
    pages: list[int] = Field(default_factory=list)
    header: list[str] = Field(default_factory=list)
    n_rows: int = 0
    span: tuple[int, int] | None = None
    in_text: bool = False


class PageText(BaseModel):
    """Text of one page of a document.

    ``page_number`` is 1-based for PDFs and ``None`` for DOCX/TXT, whose whole body is one
    "page". ``scanned`` marks a PDF page with (almost) no text layer for its area.
    ``tables`` holds the tables the table stage found on the page and the span of ``text``
    each replaces (filled by ``services.tables.assemble``); the splitter injects them.
    """

    page_number: int | None
    text: str
    char_count: int = 0
    scanned: bool = False
    tables: list[TableSpan] = Field(default_factory=list)


class ParsedDocument(BaseModel):
    """Output of the parser: per-page text of one uploaded file.

    Stored as JSON in MinIO at ``documents/{document_id}/parsed/pages.json``.
    """

    schema_version: Literal[1] = 1
    document_id: str
    filename: str
    file_type: FileType
    page_count: int
    pages: list[PageText]
    extractor: str = ""
    warnings: list[str] = Field(default_factory=list)
    # True once the table stage ran (its results are in ``PageText.tables``); the splitter
    # then trusts those tables instead of its row-like-lines heuristic.
    tables_extracted: bool = False

    def full_text(self) -> str:
        """All page texts joined with a newline (DOCX/TXT: the body text)."""
        return "\n".join(p.text for p in self.pages)


class Chunk(BaseModel):
    """One retrievable unit produced by a chunking strategy.

    ``text`` is what a reader sees and what is stored in ChromaDB; ``embed_text`` (when set)
    is what gets embedded instead (e.g. question + answer for a Q&A pair).
    ``metadata`` holds strategy-specific flat fields (str/int/float/bool only, so they can be
    stored as ChromaDB metadata); ``page_number`` is the page the chunk belongs to (token
    strategy: its main page; question strategy: the page where the question starts).
    """

    chunk_index: int
    text: str
    embed_text: str | None = None
    page_number: int | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    def chunk_id(self, document_id: str) -> str:
        """Deterministic id ``{document_id}_{chunk_index}`` : a redelivered
        event upserts the same ids instead of adding duplicates."""
        return f"{document_id}_{self.chunk_index}"


class ChunkSet(BaseModel):
    """All chunks of one document, as the splitter stored them in MinIO
    (``documents/{document_id}/chunks.json``)."""

    schema_version: Literal[1] = 1
    document_id: str
    filename: str
    strategy: StrategyName
    strategy_used: str
    file_type: FileType
    chunks: list[Chunk]
    notes: list[str] = Field(default_factory=list)

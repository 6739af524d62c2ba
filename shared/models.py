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


class BoxLine(BaseModel):
    """One run of text on one printed line of a PDF page, with its position (``PageBoxes``).

    * ``o``: offset of its first character in the page's text as PDFium numbers it
      (``PdfTextPage.get_text_range(o, n)`` is ``t``, ``n`` its UTF-16 length: PDFium counts a
      supplementary-plane character such as 𨋢 as two; PDFium's U+0002 line-end hyphen is
      stored as ``-``).
    * ``t``: its text, as printed (no line break inside; spaces kept; a character the page's
      font maps wrongly as its shape reads, ``services/parser/glyphmap.py``).
    * ``b``: its box ``[x0, y0, x1, y1]`` in PDF points, origin at the top-left corner of the page
      as displayed (crop box, ``/Rotate`` applied), y downward; ``x0 < x1``, ``y0 < y1``.
    * ``x``: ``len(t) + 1`` x positions (points, same origin): character ``i`` spans
      ``x[i]..x[i + 1]``, so part of a line can be marked.

    A line that PDFium reads as one but that has a wide gap (table cells, columns) is two runs.
    """

    o: int
    t: str
    b: tuple[float, float, float, float]
    x: list[float]


class PageBoxes(BaseModel):
    """The text-position layer of one PDF page, as the parser stores it
    (``storage.page_boxes_key``: ``documents/{id}/parsed/boxes/{n}.json``, ``page`` 1-based).

    ``width``/``height``: the page as displayed, in PDF points (1/72 inch); ``lines`` in reading
    order, their boxes in the coordinates of ``BoxLine``. Read with PDFium (pypdfium2), whatever
    library gave the page's text in ``pages.json``: the splitter aligns a chunk's text with it.
    """

    schema_version: Literal[1] = 1
    page: int
    width: float
    height: float
    lines: list[BoxLine] = Field(default_factory=list)


class Highlight(BaseModel):
    """Where a chunk's own text is printed on one page of its PDF.

    ``page``: 1-based; ``rects``: ``[x0, y0, x1, y1]`` in PDF points, origin at the top-left
    corner of the page as displayed, y downward (the coordinates of ``PageBoxes``; multiply by
    the rendering scale to place them on a rendered page); ``texts``: the printed text under
    each rect (same length as ``rects``).
    """

    page: int
    rects: list[tuple[float, float, float, float]] = Field(default_factory=list)
    texts: list[str] = Field(default_factory=list)


class PageText(BaseModel):
    """Text of one page of a document.

    ``page_number`` is 1-based for PDFs and ``None`` for DOCX/TXT, whose whole body is one
    "page". ``scanned`` marks a PDF page with (almost) no text layer for its area; ``ocr`` marks
    a scanned page whose ``text`` was read by local OCR in the table stage, ``ocr_confidence``
    its mean word confidence (0..1).
    ``tables`` holds the tables the table stage found on the page and the span of ``text``
    each replaces (filled by ``services.tables.assemble``); the splitter injects them.
    """

    page_number: int | None
    text: str
    char_count: int = 0
    scanned: bool = False
    ocr: bool = False
    ocr_confidence: float | None = None
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
    # where the chunk's own text is printed (PDF pages with a position layer; else empty); not
    # in Chroma: the gateway reads it from chunks.json
    highlights: list[Highlight] = Field(default_factory=list)

    def chunk_id(self, document_id: str) -> str:
        """Deterministic id ``{document_id}_{chunk_index}`` : a redelivered
        event upserts the same ids instead of adding duplicates."""
        return f"{document_id}_{self.chunk_index}"

    def own_text(self) -> str:
        """The part of the chunk that is its own, not repeated from a neighbour: a Q&A pair's
        question and answer (``embed_text``); a token-strategy page chunk's page, without the
        overlap taken from the previous and next pages (``overlap_before_chars`` /
        ``overlap_after_chars`` characters at its ends); any other chunk's ``text``. The
        splitter highlights it on the page, the embedder embeds it (each page's text once)."""
        meta = self.metadata
        if meta.get("chunk_kind") == "qa" and self.embed_text:
            return self.embed_text
        before, after = meta.get("overlap_before_chars"), meta.get("overlap_after_chars")
        if meta.get("strategy_type") == "token" and isinstance(before, int) and isinstance(after, int):
            return self.text[before:len(self.text) - after]
        return self.text


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

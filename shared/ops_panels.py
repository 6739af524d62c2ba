"""The operator's panels: one list of PromQL expressions behind the Grafana dashboard
(``deploy/grafana/dashboards/legco.json``, generated from it), the web app's Operations page
(through the gateway's Prometheus proxy) and the end-to-end check that every panel returns data.

Each panel is an id (URL-safe), a title, a unit (Grafana's unit ids: ``pps`` per second,
``s`` seconds, ``short`` a count), the PromQL of its series and the label its legend shows.
Metric names: ``shared/metrics.py`` and the lag exporter (``services/lagexporter``, names of the
ecosystem's kafka_exporter). Rates are over ``RATE_WINDOW`` (a 5 s scrape interval gives a
rate after two scrapes).

Run ``python -m shared.ops_panels > deploy/grafana/dashboards/legco.json`` to regenerate the
dashboard; a unit test checks the committed file equals the generated one.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

RATE_WINDOW = "5m"


@dataclass(frozen=True)
class Panel:
    """One chart: ``promql`` gives one series per combination of ``legend``'s labels."""

    id: str
    title: str
    unit: str
    promql: str
    legend: str  # Grafana legend format, e.g. "{{stage}}"
    description: str = ""


def _rate(metric: str, by: str) -> str:
    return f"sum by ({by}) (rate({metric}[{RATE_WINDOW}]))"


def _quantile(q: float, metric: str, by: str) -> str:
    grouping = f"{by}, le" if by else "le"
    return f"histogram_quantile({q}, sum by ({grouping}) (rate({metric}_bucket[{RATE_WINDOW}])))"


PANELS: tuple[Panel, ...] = (
    Panel("ingest-pages", "Ingest: pages/s by department and strategy", "pps",
          _rate("legco_ingested_pages_total", "department, strategy"), "{{department}} · {{strategy}}",
          "Pages of documents indexed per second (embedder, once per document)."),
    Panel("ingest-documents", "Ingest: documents/s by department and strategy", "pps",
          _rate("legco_ingested_documents_total", "department, strategy"), "{{department}} · {{strategy}}",
          "Documents indexed per second."),
    Panel("consumer-lag", "Consumer lag by consumer group (messages)", "short",
          "sum by (consumergroup) (kafka_consumergroup_lag)", "{{consumergroup}}",
          "End offset minus committed offset, summed over each group's partitions."),
    Panel("in-flight", "Documents in flight by stage", "short",
          "sum by (stage) (max by (stage, department) (legco_documents_in_flight))", "{{stage}}",
          "Documents accepted and not yet indexed or failed, by the stage they are in (gateway registry)."),
    Panel("stage-p95", "Stage processing time p95 (s)", "s",
          _quantile(0.95, "legco_stage_latency_seconds", "stage"), "{{stage}}",
          "95th percentile of the time a stage spent on one document."),
    Panel("stage-p50", "Stage processing time p50 (s)", "s",
          _quantile(0.5, "legco_stage_latency_seconds", "stage"), "{{stage}}",
          "Median time a stage spent on one document."),
    Panel("failures", "Failures by stage and reason (per hour)", "short",
          "sum by (stage, reason) (increase(legco_failures_total[1h]))", "{{stage}} · {{reason}}",
          "Documents a stage ended failed in the last hour, by reason code."),
    Panel("deadletters", "Dead-lettered documents", "short",
          "max(legco_deadletter_documents)", "dead-lettered",
          "Documents whose event a stage gave up on and that have not been replayed (gateway)."),
    Panel("deadletter-rate", "Dead letters published by stage (per hour)", "short",
          "sum by (stage) (increase(legco_deadletters_total[1h]))", "{{stage}}",
          "Events a stage sent to the dead-letter topic in the last hour."),
    Panel("embedder-tokens", "Embedder tokens/s", "short",
          f"sum(rate(legco_embedded_tokens_total[{RATE_WINDOW}]))", "tokens/s",
          "e5 tokens embedded per second by all embedder replicas."),
    Panel("vision-calls", "Vision LLM calls/s by outcome", "pps",
          _rate("legco_vision_calls_total", "outcome"), "{{outcome}}",
          "Chat completions of the vision model (0 when vision is off)."),
    Panel("vision-cache", "Vision cache hits/s", "pps",
          f"sum(rate(legco_vision_cache_hits_total[{RATE_WINDOW}]))", "cache hits",
          "Pages whose vision answer came from the cache."),
    Panel("vision-rejections", "Vision answers rejected/s by reason", "pps",
          _rate("legco_vision_validation_failures_total", "reason"), "{{reason}}",
          "Vision answers the table stage rejected (no table, a number not on the page)."),
    Panel("query-p95", "Query latency p95 (s)", "s",
          _quantile(0.95, "legco_query_latency_seconds", ""), "p95",
          "95th percentile of the query service's answer time."),
    Panel("targets-up", "Scrape targets up", "short", "sum by (job) (up)", "{{job}}",
          "Targets of each job that answered the last scrape."),
)


def panel(panel_id: str) -> Panel | None:
    """The panel with ``panel_id``, or None."""
    return next((p for p in PANELS if p.id == panel_id), None)


def grafana_dashboard() -> dict[str, Any]:
    """The Grafana dashboard (JSON model, schemaVersion 39) of ``PANELS``: two time series per
    row, 12 × 8 grid units each, on the provisioned data source uid ``prometheus``."""
    panels: list[dict[str, Any]] = []
    for n, p in enumerate(PANELS):
        panels.append({
            "id": n + 1,
            "type": "timeseries",
            "title": p.title,
            "description": p.description,
            "datasource": {"type": "prometheus", "uid": "prometheus"},
            "gridPos": {"h": 8, "w": 12, "x": 12 * (n % 2), "y": 8 * (n // 2)},
            "fieldConfig": {"defaults": {"unit": p.unit}, "overrides": []},
            "options": {"legend": {"displayMode": "list", "placement": "bottom", "showLegend": True}},
            "targets": [{"refId": "A", "expr": p.promql, "legendFormat": p.legend,
                         "datasource": {"type": "prometheus", "uid": "prometheus"}}],
        })
    return {
        "uid": "legco-ops",
        "title": "LegCo briefing: ingest and operations",
        "tags": ["legco"],
        "timezone": "browser",
        "schemaVersion": 39,
        "version": 1,
        "refresh": "10s",
        "time": {"from": "now-1h", "to": "now"},
        "panels": panels,
    }


def main() -> None:
    """Print the Grafana dashboard JSON (2-space indent, trailing newline)."""
    sys.stdout.write(json.dumps(grafana_dashboard(), indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()

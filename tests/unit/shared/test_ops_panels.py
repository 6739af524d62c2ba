"""The operator panels (shared/ops_panels.py): the committed Grafana dashboard is generated from
them, and every metric they name is one a service really exports."""
from __future__ import annotations

import json
import re

from services.lagexporter.main import LagCollector
from services.lagexporter.offsets import Snapshot
from shared import metrics
from shared.ops_panels import PANELS, grafana_dashboard, panel
from tests.conftest import REPO

GATEWAY_GAUGES = {"legco_documents_in_flight", "legco_deadletter_documents"}
PROMETHEUS_OWN = {"up"}
FUNCTIONS = {"sum", "by", "rate", "increase", "max", "histogram_quantile", "or", "le", "and", "on"}


def exported_names() -> set[str]:
    names = set(GATEWAY_GAUGES | PROMETHEUS_OWN)
    for fam in metrics.REGISTRY.collect():
        names.add(fam.name + ("_total" if fam.type == "counter" else ""))
        if fam.type == "histogram":
            names.add(fam.name + "_bucket")
    snap = Snapshot(end={("t", 0): 5}, committed={"g": {("t", 0): 2}})
    collector = LagCollector()
    collector.snapshot = snap
    names |= {fam.name for fam in collector.collect()}
    return names


def test_committed_dashboard_is_the_generated_one():
    committed = json.loads((REPO / "deploy" / "grafana" / "dashboards" / "legco.json").read_text(encoding="utf-8"))
    assert committed == grafana_dashboard(), "run: python -m shared.ops_panels > deploy/grafana/dashboards/legco.json"


def test_every_panel_names_exported_metrics():
    exported = exported_names()
    for p in PANELS:
        inside = re.sub(r"\{[^}]*\}|\[[^\]]*\]|\"[^\"]*\"", " ", p.promql)
        words = set(re.findall(r"[a-z_][a-z0-9_]*", inside)) - FUNCTIONS
        grouping = set()
        for m in re.finditer(r"by \(([^)]*)\)", p.promql):
            grouping |= {w.strip() for w in m.group(1).split(",")}
        unknown = words - grouping - exported
        assert not unknown, f"{p.id}: {unknown} not exported"


def test_panels_cover_what_the_issue_asks():
    ids = {p.id for p in PANELS}
    assert {"ingest-pages", "ingest-documents", "consumer-lag", "stage-p95", "failures", "deadletters",
            "vision-calls", "embedder-tokens", "query-p95"} <= ids
    assert len(ids) == len(PANELS)
    assert panel("consumer-lag") is not None and panel("nope") is None
    assert all(re.fullmatch(r"[a-z0-9-]+", i) for i in ids)


def test_lag_is_end_minus_committed_never_negative():
    snap = Snapshot(end={("a", 0): 10, ("a", 1): 3}, committed={"g": {("a", 0): 4, ("a", 1): 5}})
    assert snap.lag() == {"g": {("a", 0): 6, ("a", 1): 0}}
    collector = LagCollector()
    collector.snapshot = snap
    fams = {f.name: f for f in collector.collect()}
    lag = {(s.labels["consumergroup"], s.labels["partition"]): s.value for s in fams["kafka_consumergroup_lag"].samples}
    assert lag == {("g", "0"): 6, ("g", "1"): 0}
    assert [s.value for s in fams["kafka_consumergroup_lag_sum"].samples] == [6]
    assert [s.value for s in fams["legco_lag_exporter_up"].samples] == [0]

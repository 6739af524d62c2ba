"""Operations on the real stack: Prometheus scrapes every target, consumer lag rises during an
ingest of the real corpus and returns to 0, every dashboard panel's PromQL returns data, and a
stopped embedder fires the target-down alert (rules with a short ``for:``)."""
from __future__ import annotations

import time

import httpx
import pytest

from shared.ops_panels import PANELS
from tests.conftest import BAD, REAL, REPO
from tests.e2e.helpers import upload, wait_terminal

JOBS = {"prometheus", "gateway", "query", "parser", "tables", "splitter", "embedder", "e5", "lagexporter"}
STAGE_GROUPS = "parser|tables-fanout|tables|tables-gather|splitter|embedder"
# The real corpus's papers of up to 17 pages (33 pages in all; the 24- and 64-page ones are left
# to tests/e2e/test_pipeline_e2e.py and to `make up` + bench/, which this suite's time cannot hold twice)
PAPERS = ["cn_landuse_standard_table_zh.pdf", "hk_brplus_rgbc_fulllist_zh.pdf", "hk_csb_coai_exam_venues_reply_zh.pdf",
          "hk_isd_pr_remarks_sfs_media_session_en.pdf", "hk_legco_sub_710-02_tables_zh.pdf",
          "hk_legco_sub_710-06_zh.pdf"]


def instant(stack, promql: str) -> list[dict]:
    r = httpx.get(f"{stack.prometheus_url}/api/v1/query", params={"query": promql}, timeout=30)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "success", body
    return body["data"]["result"]


def wait_for(predicate, timeout_s: float, what: str, every_s: float = 1.0):
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout_s:.0f} s")
        time.sleep(every_s)


def test_every_target_is_up(stack):
    def all_up():
        rows = instant(stack, "up")
        jobs = {r["metric"]["job"] for r in rows if r["value"][1] == "1"}
        return rows if jobs >= JOBS and all(r["value"][1] == "1" for r in rows) else None
    rows = wait_for(all_up, 60, "every Prometheus target up")
    assert {r["metric"]["job"] for r in rows} == JOBS


@pytest.fixture(scope="module")
def ingest(stack, api):
    """Upload six real papers and one broken file at once, sampling the stage groups'
    lag every second until every document is indexed or failed. Returns the lag samples."""
    ids = [upload(api, REAL / name)["document_id"] for name in PAPERS]
    ids.append(upload(api, BAD / "C08c_user_password_required.pdf")["document_id"])
    samples: list[float] = []
    deadline = time.monotonic() + 900
    while True:
        rows = instant(stack, f'sum(kafka_consumergroup_lag{{consumergroup=~"{STAGE_GROUPS}"}})')
        samples.append(float(rows[0]["value"][1]) if rows else 0.0)
        docs = {d["document_id"]: d for d in api.get("/api/v1/documents").json()["documents"]}
        if all(docs.get(i, {}).get("status") in ("indexed", "failed") for i in ids):
            break
        assert time.monotonic() < deadline, "ingest of the real corpus did not finish in 900 s"
        time.sleep(1.0)
    records = wait_terminal(api, ids, timeout_s=30)
    r = api.post("/api/v1/query", json={"question": "What does the Employment (Amendment) Ordinance change?"})
    assert r.status_code == 200, r.text
    return {"lag": samples, "records": records}


def test_lag_rose_during_ingest_and_returned_to_zero(stack, ingest):
    assert max(ingest["lag"]) > 0, f"no lag seen in {len(ingest['lag'])} samples"

    def drained():
        rows = instant(stack, f'sum(kafka_consumergroup_lag{{consumergroup=~"{STAGE_GROUPS}"}})')
        return rows and float(rows[0]["value"][1]) == 0
    wait_for(drained, 120, "stage consumer groups' lag back to 0", every_s=2)
    # the lag exporter reads every stage's group, on every partition of its topic
    groups = {r["metric"]["consumergroup"] for r in instant(stack, "kafka_consumergroup_lag")}
    assert {"parser", "tables", "splitter", "embedder"} <= groups


def test_every_dashboard_panel_returns_data(stack, ingest):
    assert any(r["status"] == "failed" for r in ingest["records"].values())  # the failures panel has a reason
    time.sleep(12)  # two scrapes after the last step and the question

    def empty_panels():
        missing = [p.id for p in PANELS if not instant(stack, p.promql)]
        return None if missing else "none"
    try:
        wait_for(empty_panels, 60, "every panel returns data", every_s=5)
    except AssertionError:
        missing = [p.id for p in PANELS if not instant(stack, p.promql)]
        raise AssertionError(f"panels without data: {missing}") from None
    rows = instant(stack, 'sum by (department, strategy) (legco_ingested_pages_total)')
    assert rows and float(rows[0]["value"][1]) > 0
    fails = instant(stack, "sum by (stage, reason) (legco_failures_total)")
    assert any(r["metric"]["stage"] == "parsing" for r in fails)


def test_stopped_embedder_fires_target_down(stack, tmp_path):
    rules = (REPO / "deploy" / "prometheus" / "rules.yml").read_text(encoding="utf-8")
    fast = tmp_path / "rules-fast.yml"
    fast.write_text(rules.replace("for: 2m", "for: 5s"), encoding="utf-8")
    default = str(REPO / "deploy" / "prometheus" / "rules.yml")
    stack.reconfigure({"PROMETHEUS_RULES": str(fast)})
    port = 8140 + int(stack.env["PORT_OFFSET"])  # embedder replica 0 (scripts/stack.sh ports embedder)
    try:
        stack.ctl("stop", "embedder")

        def firing():
            alerts = httpx.get(f"{stack.prometheus_url}/api/v1/alerts", timeout=30).json()["data"]["alerts"]
            return [a for a in alerts if a["labels"]["alertname"] == "LegcoTargetDown"
                    and a["labels"]["job"] == "embedder" and a["state"] == "firing"]
        alerts = wait_for(firing, 120, "LegcoTargetDown firing for the stopped embedder", every_s=2)
        assert alerts[0]["labels"]["instance"] == f"127.0.0.1:{port}"
        assert alerts[0]["labels"]["severity"] == "critical"
    finally:
        stack.ctl("start", "embedder")
        stack.reconfigure({"PROMETHEUS_RULES": default})
    wait_for(lambda: httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200, 60,
             "embedder healthy again")

    def resolved():
        alerts = httpx.get(f"{stack.prometheus_url}/api/v1/alerts", timeout=30).json()["data"]["alerts"]
        return not [a for a in alerts if a["labels"]["alertname"] == "LegcoTargetDown"]
    wait_for(resolved, 60, "target-down alert resolved once the embedder is back", every_s=2)

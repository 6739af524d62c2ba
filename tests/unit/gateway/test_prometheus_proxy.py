"""The gateway's Prometheus proxy (``GET /api/v1/operations/panels…``) against a real
Prometheus: Debian's ``/usr/bin/prometheus`` started on a temporary directory, scraping itself
and a small ``prometheus_client`` exporter (the pipeline's metric names, a counter that keeps
rising) every second. So the series the proxy returns are what Prometheus computed from the
panels' PromQL (``shared/ops_panels.py``), not a recording.

Also: admin keys only (403 for a member and a reader), no PromQL from the client, bounds on
the range and step, and Prometheus down, mute or refusing the query answered 503 / 503 / 502
with a sentence, never a stack trace."""
from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server

from shared import ops_panels
from shared.api import OPS_MAX_POINTS
from shared.ops_panels import Panel
from tests.unit.gateway.test_departments import A_MEMBER, A_READER, Stack
from tests.unit.gateway.test_gateway_contract import ADMIN_KEY

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
SERIES = "/api/v1/operations/panels/{}/series"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Exporter:
    """A ``/metrics`` server with the pipeline's names: pages indexed (rising every 0.2 s) for
    ``dept-a``/``token`` and ``dept-b``/``qa``, stage latencies observed, and a query latency
    histogram that never observes anything (its quantile is NaN)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.pages = Counter("legco_ingested_pages_total", "pages indexed", ["department", "strategy"],
                             registry=self.registry)
        self.stage = Histogram("legco_stage_latency_seconds", "stage time", ["stage"], registry=self.registry)
        Histogram("legco_query_latency_seconds", "query time", registry=self.registry)
        self.port = free_port()
        self.server, _ = start_http_server(self.port, addr="127.0.0.1", registry=self.registry)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._rise, daemon=True)
        self.thread.start()

    def _rise(self) -> None:
        while not self.stop.wait(0.2):
            self.pages.labels("dept-a", "token").inc(3)
            self.pages.labels("dept-b", "qa").inc(1)
            self.stage.labels("parsing").observe(0.4)
            self.stage.labels("embedding").observe(2.0)

    def close(self) -> None:
        self.stop.set()
        self.server.shutdown()


@pytest.fixture(scope="module")
def prometheus_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Prometheus scraping itself and the exporter every second (its URL)."""
    assert Path(PROMETHEUS).is_file(), "Debian's prometheus is not installed (apt-get install prometheus)"
    exporter = Exporter()
    root = tmp_path_factory.mktemp("prometheus")
    port = free_port()
    (root / "prometheus.yml").write_text(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        "scrape_configs:\n"
        f"  - job_name: prometheus\n    static_configs:\n      - targets: ['127.0.0.1:{port}']\n"
        f"  - job_name: gateway\n    static_configs:\n      - targets: ['127.0.0.1:{exporter.port}']\n")
    log = (root / "prometheus.log").open("wb")
    proc = subprocess.Popen([PROMETHEUS, f"--config.file={root / 'prometheus.yml'}",
                             f"--storage.tsdb.path={root / 'data'}", f"--web.listen-address=127.0.0.1:{port}"],
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (root / "prometheus.log").read_text()[-3000:]
            try:
                if httpx.get(f"{url}/-/ready", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "Prometheus did not become ready in 60 s"
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        exporter.close()


def gateway(url: str, **settings: Any) -> Stack:
    """The gateway app (keys of ``test_departments.Stack``) pointed at ``url``, with an HTTP
    client that keeps no connection between requests (each ``TestClient`` call has its own
    event loop)."""
    st = Stack()
    st.state.settings = st.state.settings.model_copy(update={"prometheus_url": url, **settings})
    st.state.http = httpx.AsyncClient(limits=httpx.Limits(max_keepalive_connections=0))
    return st


@pytest.fixture
def st(prometheus_url: str) -> Stack:
    return gateway(prometheus_url)


def series_until(c: Any, panel_id: str, done: Any, timeout_s: float = 45, **params: Any) -> dict[str, Any]:
    """The panel's series, asked again until ``done(body)`` (the first scrapes take seconds)."""
    deadline = time.monotonic() + timeout_s
    while True:
        r = c.get(SERIES.format(panel_id), params=params or {"range_s": 900, "step_s": 5})
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        if done(body):
            return body
        assert time.monotonic() < deadline, f"{panel_id}: no data after {timeout_s} s: {body['series']}"
        time.sleep(1)


def last_value(series: dict[str, Any]) -> float | None:
    values = [v for _, v in series["points"] if v is not None]
    return values[-1] if values else None


@pytest.mark.parametrize("key", [A_MEMBER, A_READER])
def test_panels_are_for_admins_only(st: Stack, key: str) -> None:
    c = st.client(key)
    assert c.get("/api/v1/operations/panels").status_code == 403
    r = c.get(SERIES.format("targets-up"))
    assert r.status_code == 403 and r.json()["detail"] == "This needs an admin key."


def test_panels_list_every_panel_without_its_promql(st: Stack) -> None:
    body = st.client(ADMIN_KEY).get("/api/v1/operations/panels").json()
    assert [p["id"] for p in body["panels"]] == [p.id for p in ops_panels.PANELS]
    assert all(set(p) == {"id", "title", "unit", "description"} for p in body["panels"])
    first = body["panels"][0]
    assert (first["title"], first["unit"]) == (ops_panels.PANELS[0].title, ops_panels.PANELS[0].unit)


def test_targets_up_comes_from_prometheus_on_a_regular_grid(st: Stack) -> None:
    c = st.client(ADMIN_KEY)
    body = series_until(c, "targets-up", lambda b: {s["name"] for s in b["series"]} == {"gateway", "prometheus"}
                        and all(last_value(s) == 1 for s in b["series"]))
    assert (body["range_s"], body["step_s"]) == (900, 5)
    assert body["end"] <= time.time() and body["end"] % 5 == 0 and body["start"] == body["end"] - 900
    for s in body["series"]:
        assert s["labels"] == {"job": s["name"]}  # legend {{job}}
        ts = [t for t, _ in s["points"]]
        assert len(ts) == 181 and ts[0] == body["start"] and ts[-1] == body["end"]
        assert all(b - a == 5 for a, b in zip(ts, ts[1:], strict=False))
        # Before this Prometheus started there is nothing: null, not 0.
        assert s["points"][0][1] is None


def test_ingest_rate_by_department_and_strategy_names_each_series_from_the_legend(st: Stack) -> None:
    c = st.client(ADMIN_KEY)
    body = series_until(c, "ingest-pages", lambda b: len(b["series"]) == 2
                        and all((last_value(s) or 0) > 0 for s in b["series"]))
    by_name = {s["name"]: s for s in body["series"]}
    assert set(by_name) == {"dept-a · token", "dept-b · qa"}
    assert by_name["dept-a · token"]["labels"] == {"department": "dept-a", "strategy": "token"}
    # 3 pages every 0.2 s against 1: the rates Prometheus computed keep that ratio roughly.
    a, b = last_value(by_name["dept-a · token"]), last_value(by_name["dept-b · qa"])
    assert a is not None and b is not None and 2.0 < a / b < 4.0
    assert body["panel"]["id"] == "ingest-pages" and body["panel"]["unit"] == "pps"


def test_quantiles_and_nan_become_numbers_and_nulls(st: Stack) -> None:
    c = st.client(ADMIN_KEY)
    body = series_until(c, "stage-p95", lambda b: len(b["series"]) == 2 and all(last_value(s) for s in b["series"]))
    p95 = {s["name"]: last_value(s) for s in body["series"]}
    assert 0.25 < p95["parsing"] <= 0.5 and 1.0 < p95["embedding"] <= 2.5  # type: ignore[operator]
    # No query was ever observed: histogram_quantile is NaN, sent as null (JSON has no NaN).
    body = series_until(c, "query-p95", lambda b: len(b["series"]) == 1)
    [q] = body["series"]
    assert q["name"] == "p95" and q["labels"] == {} and all(v is None for _, v in q["points"])


def test_a_panel_without_data_has_no_series(st: Stack) -> None:
    r = st.client(ADMIN_KEY).get(SERIES.format("consumer-lag"), params={"range_s": 3600})
    assert r.status_code == 200
    body = r.json()
    assert body["series"] == [] and body["step_s"] == 15  # default step: ~240 points


def test_no_promql_from_the_client(st: Stack) -> None:
    r = st.client(ADMIN_KEY).get(SERIES.format("targets-up"), params={"query": "legco_ingested_pages_total",
                                                                       "promql": "up == 0"})
    assert r.status_code == 200
    assert {tuple(s["labels"]) for s in r.json()["series"]} <= {("job",)}
    assert st.client(ADMIN_KEY).get(SERIES.format("up")).status_code == 404


@pytest.mark.parametrize(("params", "status"), [({"range_s": 30}, 422), ({"range_s": 21600, "step_s": 5}, 422),
                                                ({"range_s": 900, "step_s": 0}, 422),
                                                ({"range_s": 10 * 24 * 3600}, 422), ({"range_s": 21600}, 200)])
def test_range_and_step_bounds(st: Stack, params: dict[str, int], status: int) -> None:
    r = st.client(ADMIN_KEY).get(SERIES.format("targets-up"), params=params)
    assert r.status_code == status, r.text
    if status == 200:  # a 90-s step: the grid's last point may still be before this Prometheus started
        body = r.json()
        assert body["step_s"] == 90 and all(len(s["points"]) == 241 <= OPS_MAX_POINTS for s in body["series"])
    if params == {"range_s": 21600, "step_s": 5}:
        assert r.json()["detail"] == ("21600 s every 5 s is 4321 points; at most 1100 (use a step of at "
                                      "least 20 s).")


def test_prometheus_refusing_the_query_is_502(st: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ops_panels, "PANELS", (Panel("broken", "Broken", "short", "sum(", ""),))
    r = st.client(ADMIN_KEY).get(SERIES.format("broken"))
    assert r.status_code == 502
    assert r.json()["detail"].startswith("Prometheus refused the panel's query: ") and "Traceback" not in r.text


def test_prometheus_down_is_503_with_the_reason() -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    r = gateway(url).client(ADMIN_KEY).get(SERIES.format("targets-up"))
    assert r.status_code == 503
    assert r.json() == {"detail": f"Prometheus could not be reached at {url} (ConnectError); the charts come "
                                  "back when it answers."}


def test_prometheus_not_answering_is_503_within_the_timeout() -> None:
    with socket.socket() as server:  # accepts connections, never answers
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        url = f"http://127.0.0.1:{server.getsockname()[1]}"
        t0 = time.monotonic()
        r = gateway(url, prometheus_timeout_s=0.5).client(ADMIN_KEY).get(SERIES.format("targets-up"))
        took = time.monotonic() - t0
    assert r.status_code == 503 and took < 5
    assert r.json()["detail"] == (f"Prometheus at {url} did not answer within 0.5 s; the charts come back "
                                  "when it answers.")


def test_every_panel_has_its_words_in_both_interface_languages() -> None:
    """The web app names each panel by id in its locale files (``ops.panels.<id>``) and knows
    which panels have one labelless series (``frontend/src/lib/opsChart.ts``): a panel added to
    ``shared/ops_panels.py`` without them would show the server's English title."""
    import json
    import re

    frontend = Path(__file__).resolve().parents[3] / "frontend" / "src"
    ids = [p.id for p in ops_panels.PANELS]
    for locale in ("en", "zh-HK"):
        words = json.loads((frontend / "locales" / f"{locale}.json").read_text(encoding="utf-8"))["ops"]["panels"]
        assert sorted(words) == sorted(ids), locale
        for pid in ids:
            assert {"title", "description", "axis"} <= set(words[pid]), (locale, pid)
            labelless = "{{" not in ops_panels.panel(pid).legend  # type: ignore[union-attr]
            assert ("series" in words[pid]) == labelless, (locale, pid)
    chart = (frontend / "lib" / "opsChart.ts").read_text(encoding="utf-8")
    start = chart.index("PANEL_IDS = [")
    known = re.findall(r"'([a-z0-9-]+)'", chart[start:chart.index("] as const", start)])
    assert known == ids

"""The gateway's Prometheus proxy: the Operations page's charts come from here, never from the
browser talking to Prometheus.

A chart is one panel of ``shared/ops_panels.py`` (its PromQL is fixed on the server: a client
names a panel, it never sends an expression). :func:`panel_series` runs the panel's expression
over Prometheus' HTTP API (``GET {PROMETHEUS_URL}/api/v1/query_range``) and returns its series
on a regular grid of ``step_s`` seconds, with each series' name filled in from the panel's
legend (``{{department}} · {{strategy}}`` → ``dept-a · token``).

Errors: :class:`PrometheusUnavailable` (not reachable, no answer within
``PROMETHEUS_TIMEOUT_S``, or a 5xx) and :class:`PrometheusRefused` (Prometheus answered the
query with an error), each with a sentence for an operator.
"""
from __future__ import annotations

import math
import re
from typing import Any

import httpx

from shared.api import OpsPanel, OpsSeries, OpsSeriesResponse
from shared.ops_panels import Panel
from shared.settings import Settings

_LEGEND_LABEL = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
DEFAULT_POINTS = 240  # the step when a client names none: about this many points per range


class PrometheusUnavailable(Exception):
    """Prometheus could not be asked: not reachable, too slow, or answering 5xx (``str``: why)."""


class PrometheusRefused(Exception):
    """Prometheus answered the query with an error (``str``: its error)."""


def panel_info(p: Panel) -> OpsPanel:
    """What a client sees of a panel: id, title, unit, description (not its PromQL)."""
    return OpsPanel(id=p.id, title=p.title, unit=p.unit, description=p.description)


def default_step(range_s: int) -> int:
    """The step (seconds) for ``range_s`` when none is asked: at least 5 s (the scrape interval),
    else about :data:`DEFAULT_POINTS` points."""
    return max(5, -(-range_s // DEFAULT_POINTS))


def window(range_s: int, step_s: int, now: float) -> tuple[int, int]:
    """``(start, end)`` unix seconds: ``end`` the last multiple of ``step_s`` at or before
    ``now`` (so refreshes within one step ask the same grid), ``start`` ``range_s`` before it,
    rounded down to whole steps."""
    end = int(now // step_s) * step_s
    return end - (range_s // step_s) * step_s, end


def legend_name(template: str, labels: dict[str, str]) -> str:
    """The panel's ``legend`` with each ``{{label}}`` replaced by the series' value ("" when it
    has none, as Grafana does); without a legend, the labels as PromQL writes them."""
    if template:
        return _LEGEND_LABEL.sub(lambda m: labels.get(m.group(1), ""), template)
    return "{" + ", ".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"


def _value(text: str) -> float | None:
    """A sample value as Prometheus writes it (``"0.25"``, ``"NaN"``, ``"+Inf"``): None when
    it is not a finite number."""
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def to_series(result: list[dict[str, Any]], legend: str, start: int, end: int, step_s: int) -> list[OpsSeries]:
    """A ``matrix`` result as :class:`OpsSeries` on the grid ``start, start + step_s … end``
    (None where a series has no sample), ``__name__`` dropped from the labels; sorted by name."""
    grid = range(start, end + 1, step_s)
    out = []
    for item in result:
        labels = {k: str(v) for k, v in item.get("metric", {}).items() if k != "__name__"}
        samples = {round(float(ts)): _value(v) for ts, v in item.get("values", [])}
        out.append(OpsSeries(labels=labels, name=legend_name(legend, labels),
                             points=[(float(t), samples.get(t)) for t in grid]))
    return sorted(out, key=lambda s: (s.name, sorted(s.labels.items())))


async def query_range(http: httpx.AsyncClient, settings: Settings, promql: str, start: int, end: int,
                      step_s: int) -> list[dict[str, Any]]:
    """The ``matrix`` result of ``promql`` from ``start`` to ``end`` every ``step_s`` seconds
    (Prometheus' ``/api/v1/query_range``).

    Raises:
        PrometheusUnavailable: not reachable within ``prometheus_connect_timeout_s``, no answer
            within ``prometheus_timeout_s``, a 5xx, or an answer that is not Prometheus' JSON.
        PrometheusRefused: Prometheus refused the query (its ``error``).
    """
    s = settings
    url = f"{s.prometheus_url.rstrip('/')}/api/v1/query_range"
    params = {"query": promql, "start": str(start), "end": str(end), "step": str(step_s),
              "timeout": f"{s.prometheus_timeout_s:g}s"}
    try:
        resp = await http.get(url, params=params,
                              timeout=httpx.Timeout(s.prometheus_timeout_s, connect=s.prometheus_connect_timeout_s))
    except httpx.TimeoutException as e:
        what = "connect" if isinstance(e, httpx.ConnectTimeout) else "answer"
        limit = s.prometheus_connect_timeout_s if what == "connect" else s.prometheus_timeout_s
        raise PrometheusUnavailable(f"Prometheus at {s.prometheus_url} did not {what} within {limit:g} s; "
                                    "the charts come back when it answers.") from None
    except httpx.HTTPError as e:
        raise PrometheusUnavailable(f"Prometheus could not be reached at {s.prometheus_url} "
                                    f"({type(e).__name__}); the charts come back when it answers.") from None
    try:
        body = resp.json()
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if resp.status_code >= 500 or not isinstance(body, dict):
        raise PrometheusUnavailable(f"Prometheus at {s.prometheus_url} answered HTTP {resp.status_code}"
                                    + (f" ({error})" if error else "") + "; try again shortly.")
    if body.get("status") != "success":
        raise PrometheusRefused(f"Prometheus refused the panel's query: {error or resp.status_code}.")
    data = body.get("data") or {}
    if data.get("resultType") != "matrix":
        raise PrometheusRefused(f"Prometheus answered a {data.get('resultType')!r}, not a range of samples.")
    result: list[dict[str, Any]] = data.get("result") or []
    return result


async def panel_series(http: httpx.AsyncClient, settings: Settings, p: Panel, range_s: int, step_s: int,
                       now: float) -> OpsSeriesResponse:
    """The series of panel ``p`` over the last ``range_s`` seconds before ``now`` (unix s),
    every ``step_s`` seconds (:func:`window`). Raises what :func:`query_range` raises."""
    start, end = window(range_s, step_s, now)
    result = await query_range(http, settings, p.promql, start, end, step_s)
    return OpsSeriesResponse(panel=panel_info(p), range_s=range_s, step_s=step_s, start=start, end=end,
                             series=to_series(result, p.legend, start, end, step_s))

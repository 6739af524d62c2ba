"""The Operations page's charts (admin keys): Prometheus proxied by the gateway.

* ``GET /api/v1/operations/panels``: the panels of ``shared/ops_panels.py`` (id, title, unit,
  description), in the dashboard's order;
* ``GET /api/v1/operations/panels/{id}/series?range_s=&step_s=``: that panel's PromQL run over
  Prometheus' ``/api/v1/query_range`` (``services/gateway/prometheus.py``) for the last
  ``range_s`` seconds every ``step_s`` seconds.

The browser never talks to Prometheus and never sends PromQL: it names a panel. Member and
reader keys get 403 (``AdminDep``, as every operations route). Prometheus down or too slow: 503
with the reason; a query Prometheus refuses: 502.
"""
from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query

from services.gateway import prometheus
from services.gateway.api.deps import StateDep
from services.gateway.auth.principal import AdminDep
from shared import ops_panels
from shared.api import OPS_MAX_POINTS, OPS_MAX_RANGE_S, OPS_MAX_STEP_S, OPS_MIN_RANGE_S, OpsPanelList, OpsSeriesResponse

router = APIRouter(prefix="/operations", tags=["operations"])


@router.get("/panels", response_model=OpsPanelList)
async def list_panels(caller: AdminDep) -> OpsPanelList:
    """Every chart of the Operations page: id, title, unit (Grafana's: ``pps`` per second,
    ``s`` seconds, ``short`` a number) and description. Asks nothing of Prometheus."""
    return OpsPanelList(panels=[prometheus.panel_info(p) for p in ops_panels.PANELS])


@router.get("/panels/{panel_id}/series", response_model=OpsSeriesResponse,
            responses={404: {"description": "No such panel"},
                       502: {"description": "Prometheus refused the panel's query"},
                       503: {"description": "Prometheus is not reachable or did not answer in time"}})
async def panel_series(
        state: StateDep, caller: AdminDep,
        panel_id: Annotated[str, Path(description="a panel's id (GET /api/v1/operations/panels)")],
        range_s: Annotated[int, Query(ge=OPS_MIN_RANGE_S, le=OPS_MAX_RANGE_S,
                                      description="seconds of history, up to now")] = 3600,
        step_s: Annotated[int | None, Query(ge=1, le=OPS_MAX_STEP_S,
                                            description="seconds between points (default: about 240 "
                                                        "points, at least 5 s)")] = None,
) -> OpsSeriesResponse:
    """The panel's series over the last ``range_s`` seconds, one point every ``step_s`` seconds
    (at most 1,100 points: ``range_s / step_s + 1``): ``[unix_s, value]``, ``value`` null where
    a series has no sample. An empty ``series``: no data yet. 404 for an unknown panel, 422 for
    too many points, 503 when Prometheus (``PROMETHEUS_URL``) cannot be reached or does not
    answer within ``PROMETHEUS_TIMEOUT_S``, 502 when it refuses the query; each with a
    readable ``detail``."""
    p = ops_panels.panel(panel_id)
    if p is None:
        raise HTTPException(404, f"No such panel: {panel_id}.")
    step = step_s or prometheus.default_step(range_s)
    if range_s // step + 1 > OPS_MAX_POINTS:
        raise HTTPException(422, f"{range_s} s every {step} s is {range_s // step + 1} points; at most "
                                 f"{OPS_MAX_POINTS} (use a step of at least {-(-range_s // (OPS_MAX_POINTS - 1))} s).")
    try:
        return await prometheus.panel_series(state.http, state.settings, p, range_s, step, time.time())
    except prometheus.PrometheusUnavailable as e:
        raise HTTPException(503, str(e)) from None
    except prometheus.PrometheusRefused as e:
        raise HTTPException(502, str(e)) from None

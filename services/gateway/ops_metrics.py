"""The gateway's operator gauges, computed from what it already holds (``shared/ops_panels.py``).

* ``legco_documents_in_flight{stage,department}``: documents neither indexed nor failed, by the
  stage their last progress event named (``uploaded`` = queued for the parser), counted from the
  registry at every scrape. Every gateway replica folds every progress event, so replicas report
  the same figure: panels take ``max`` over instances.
* ``legco_deadletter_documents``: documents whose latest dead letter has not been replayed
  (their status is still ``failed``), from the dead-letter topic read back every
  ``deadletter_gauge_interval_s`` seconds (``services/gateway/deadletters.py``); -1 until the
  first read succeeded, so a gauge that never answered is not mistaken for "none".
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import AsyncIterator, Iterator

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from services.gateway.deadletters import entries, read_letters
from services.gateway.state import GatewayState
from shared.metrics import REGISTRY

log = logging.getLogger("legco.gateway.metrics")

# Stages a document can be in before it is indexed; each is reported (0 when empty), so a panel
# shows every stage and "documents in flight" answers 0 rather than nothing when all is done.
STAGES = ("uploaded", "parsing", "tables", "splitting", "embedding")


class GatewayCollector(Collector):
    """Prometheus collector of the gauges above for one gateway's ``GatewayState``."""

    def __init__(self, state: GatewayState) -> None:
        self.state = state
        self.deadlettered = -1

    def collect(self) -> Iterator[GaugeMetricFamily]:
        in_flight = GaugeMetricFamily("legco_documents_in_flight",
                                      "Documents neither indexed nor failed, by current stage and department",
                                      labels=["stage", "department"])
        counts: Counter[tuple[str, str]] = Counter()
        departments = {"default"}
        for rec in self.state.registry.list():
            departments.add(rec.department)
            if rec.status in ("queued", "processing"):
                counts[(rec.stage, rec.department)] += 1
        stages = sorted(set(STAGES) | {s for s, _ in counts})
        for stage in stages:
            for dept in sorted(departments):
                in_flight.add_metric([stage, dept], counts.get((stage, dept), 0))
        yield in_flight
        dead = GaugeMetricFamily("legco_deadletter_documents",
                                 "Documents whose latest dead letter is not replayed (-1: not read yet)")
        dead.add_metric([], self.deadlettered)
        yield dead

    async def refresh_deadletters(self) -> int:
        """Read the dead-letter topic and count the documents still failed; returns the count.

        Raises:
            aiokafka errors: Kafka unreachable (the caller keeps the last figure).
        """
        listed = entries(self.state, await read_letters(self.state.settings))
        self.deadlettered = sum(1 for e in listed if e.status == "failed")
        return self.deadlettered

    async def run(self) -> None:
        """Refresh the dead-letter gauge every ``deadletter_gauge_interval_s`` seconds, forever."""
        interval = self.state.settings.deadletter_gauge_interval_s
        while True:
            try:
                await self.refresh_deadletters()
            except Exception as e:  # noqa: BLE001 - Kafka down: keep the last figure, try again
                log.warning("dead-letter gauge not refreshed (%s: %s)", type(e).__name__, str(e)[:200])
            await asyncio.sleep(interval)


@contextlib.asynccontextmanager
async def gateway_metrics(state: GatewayState) -> AsyncIterator[GatewayCollector]:
    """Register the collector on the shared registry and run its refresher for the block."""
    collector = GatewayCollector(state)
    REGISTRY.register(collector)
    task = asyncio.create_task(collector.run())
    try:
        yield collector
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        REGISTRY.unregister(collector)

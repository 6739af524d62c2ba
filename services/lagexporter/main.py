"""Consumer-lag exporter: ``/metrics`` with each consumer group's lag per topic and partition.

The ecosystem's kafka_exporter is not served by this machine's Go module proxy, so this service
reads the same figures with aiokafka (``offsets.py``) every ``lag_interval_s`` seconds and serves
them under kafka_exporter's metric names, so its dashboards and alert rules apply unchanged:

* ``kafka_consumergroup_lag{consumergroup,topic,partition}`` end offset - committed offset (messages)
* ``kafka_consumergroup_lag_sum{consumergroup,topic}`` the same summed over partitions
* ``kafka_consumergroup_current_offset{consumergroup,topic,partition}`` committed offset
* ``kafka_topic_partition_current_offset{topic,partition}`` end offset
* ``kafka_topic_partitions{topic}`` partition count
* ``legco_lag_exporter_up`` 1 when the last reading succeeded, else 0 (the figures above are
  then those of the last good reading); ``legco_lag_exporter_read_seconds`` its duration.

``/healthz`` answers 200 once a reading succeeded within 3 intervals, else 503.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Iterator

from fastapi import FastAPI, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from services.lagexporter.offsets import OffsetReader, Snapshot
from shared.settings import Settings, get_settings

log = logging.getLogger("legco.lagexporter")


class LagCollector(Collector):
    """Serves the last ``Snapshot`` (read by ``poll``) in kafka_exporter's names."""

    def __init__(self) -> None:
        self.snapshot = Snapshot()
        self.ok = False
        self.last_ok = 0.0  # time.monotonic() of the last good reading

    def collect(self) -> Iterator[GaugeMetricFamily]:
        snap = self.snapshot
        lag = GaugeMetricFamily("kafka_consumergroup_lag", "Consumer group lag (messages)",
                                labels=["consumergroup", "topic", "partition"])
        lag_sum = GaugeMetricFamily("kafka_consumergroup_lag_sum", "Consumer group lag summed over partitions",
                                    labels=["consumergroup", "topic"])
        current = GaugeMetricFamily("kafka_consumergroup_current_offset", "Consumer group committed offset",
                                    labels=["consumergroup", "topic", "partition"])
        for group, per_partition in sorted(snap.lag().items()):
            sums: dict[str, int] = {}
            for (topic, partition), value in sorted(per_partition.items()):
                lag.add_metric([group, topic, str(partition)], value)
                current.add_metric([group, topic, str(partition)], snap.committed[group][(topic, partition)])
                sums[topic] = sums.get(topic, 0) + value
            for topic, value in sorted(sums.items()):
                lag_sum.add_metric([group, topic], value)
        end = GaugeMetricFamily("kafka_topic_partition_current_offset", "Topic partition end offset",
                                labels=["topic", "partition"])
        counts: dict[str, int] = {}
        for (topic, partition), value in sorted(snap.end.items()):
            end.add_metric([topic, str(partition)], value)
            counts[topic] = counts.get(topic, 0) + 1
        parts = GaugeMetricFamily("kafka_topic_partitions", "Partitions of the topic", labels=["topic"])
        for topic, n in sorted(counts.items()):
            parts.add_metric([topic], n)
        up = GaugeMetricFamily("legco_lag_exporter_up", "1 when the last reading of Kafka succeeded")
        up.add_metric([], 1 if self.ok else 0)
        took = GaugeMetricFamily("legco_lag_exporter_read_seconds", "Duration of the last reading (s)")
        took.add_metric([], snap.took_s)
        yield from (lag, lag_sum, current, end, parts, up, took)

    async def poll(self, settings: Settings) -> None:
        """Read Kafka every ``lag_interval_s`` seconds, forever; an outage keeps the last
        snapshot, sets ``up`` to 0 and reconnects."""
        reader: OffsetReader | None = None
        while True:
            try:
                if reader is None:
                    reader = OffsetReader(settings.kafka_bootstrap)
                    await reader.start()
                self.snapshot = await reader.read()
                self.ok, self.last_ok = True, time.monotonic()
            except Exception as e:  # noqa: BLE001 - Kafka down: report it, keep the last figures, reconnect
                if self.ok:
                    log.warning("reading offsets failed (%s: %s); retrying", type(e).__name__, str(e)[:200])
                self.ok = False
                if reader is not None:
                    with contextlib.suppress(Exception):
                        await reader.close()
                    reader = None
            await asyncio.sleep(settings.lag_interval_s)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The exporter's app: ``GET /metrics`` (its own registry, only the figures above), ``GET /healthz``."""
    settings = settings or get_settings()
    registry = CollectorRegistry(auto_describe=True)
    collector = LagCollector()
    registry.register(collector)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        task = asyncio.create_task(collector.poll(settings))
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    app = FastAPI(title="LegCo consumer-lag exporter", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)

    @app.get("/metrics")
    async def metrics() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    @app.get("/healthz")
    async def healthz() -> Response:
        fresh = collector.ok and time.monotonic() - collector.last_ok < 3 * settings.lag_interval_s + 5
        return Response(b'{"status":"ok"}' if fresh else b'{"status":"kafka unreachable"}',
                        status_code=200 if fresh else 503, media_type="application/json")

    app.state.collector = collector
    return app


app = create_app()

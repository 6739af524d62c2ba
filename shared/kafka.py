"""Kafka broker factory and a stage's publishers: one long-lived producer (the FastStream
broker) per service, idempotent, with Prometheus metrics. The consumer contract built on them is
``shared.stage.Stage``.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from aiokafka.partitioner import DefaultPartitioner, murmur2
from faststream.kafka import KafkaBroker
from faststream.kafka.prometheus import KafkaPrometheusMiddleware

from shared import topics
from shared.events import EventBase, ProgressEvent
from shared.metrics import REGISTRY
from shared.settings import Settings

_PAGE_KEY = re.compile(rb"^(.+):([0-9]{1,9})$")


def spread_partitioner(key: bytes | None, all_partitions: list[int], available: list[int]) -> int:
    """aiokafka partitioner: a ``{document_id}:{page}`` key (the table stage's page work) goes to
    partition (murmur2(document_id) + page) mod n, so a document's consecutive pages land on
    consecutive partitions — and, with the round-robin assignor, on the workers in turn: N pages
    are spread over W workers N/W ± 1 each, where hashing each page's key gave shares that varied
    with the document id. Every other key (a document id, a department) is hashed as by Kafka's
    default partitioner (murmur2 of the key), so a document's events keep one partition.

    Args:
        key: the record key (``None``: a random available partition).
        all_partitions: the topic's partition ids, sorted.
        available: partitions with a leader now.
    """
    m = _PAGE_KEY.match(key) if key is not None else None
    if m is None:
        partition: int = DefaultPartitioner()(key, all_partitions, available)
        return partition
    idx = ((murmur2(m.group(1)) & 0x7FFFFFFF) + int(m.group(2))) % len(all_partitions)
    chosen: int = all_partitions[idx]
    return chosen


def make_broker(settings: Settings, service: str) -> KafkaBroker:
    """A FastStream Kafka broker for ``service`` with Prometheus metrics and idempotent producing.

    Its producer waits for every in-sync replica (``acks="all"``; with 3 copies and
    ``min.insync.replicas`` 2, a write is on two brokers when it is acknowledged) and is
    idempotent, so a send retried after a broker failed is written once. Keys are placed by
    :func:`spread_partitioner` (Kafka's murmur2 hash, except that a document's page-work keys
    go round its partitions).

    Args:
        settings: ``kafka_bootstrap`` (comma-separated host:port of every broker).
        service: service name, used as the Kafka client id.
    """
    return KafkaBroker(
        settings.kafka_servers,
        client_id=f"legco-{service}",
        acks="all",
        enable_idempotence=True,
        partitioner=spread_partitioner,
        middlewares=[KafkaPrometheusMiddleware(registry=REGISTRY, app_name=f"legco-{service}")],
        logger=logging.getLogger(f"legco.{service}"),
    )


@dataclass
class StagePublishers:
    """The long-lived publishers a stage needs: its output topic, progress and dead letters.

    Publishers (rather than ``broker.publish``) make handlers testable with
    ``TestKafkaBroker``: ``publishers.output.mock`` records what was sent.
    """

    output: Any
    progress: Any
    dead_letter: Any

    async def emit(self, event: EventBase) -> None:
        """Publish a pipeline event to the stage's output topic, keyed by document id."""
        await self.output.publish(event, key=event.document_id.encode())

    async def report(self, event: ProgressEvent) -> None:
        """Publish a progress event keyed by document id."""
        await self.progress.publish(event, key=event.document_id.encode())


def stage_publishers(broker: KafkaBroker, output_topic: str | None) -> StagePublishers:
    """Create a stage's publishers on ``broker`` (``output_topic`` None: no output topic)."""
    return StagePublishers(
        output=broker.publisher(output_topic) if output_topic else None,
        progress=broker.publisher(topics.PROGRESS),
        dead_letter=broker.publisher(topics.DEAD_LETTER),
    )

"""Kafka broker factory and a stage's publishers: one long-lived producer (the FastStream
broker) per service, idempotent, with Prometheus metrics. The consumer contract built on them is
``shared.stage.Stage``.
"""
from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any

from aiokafka import ConsumerRecord
from aiokafka.partitioner import DefaultPartitioner, murmur2
from faststream import BaseMiddleware
from faststream.kafka import KafkaBroker
from faststream.kafka.prometheus import KafkaPrometheusMiddleware

from shared import logs, topics
from shared.events import EventBase, ProgressEvent
from shared.metrics import REGISTRY
from shared.settings import Settings
from shared.topic_events import TOPIC_EVENTS

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


class LogContextMiddleware:
    """FastStream middleware factory: puts the document of each consumed message in the log
    context (``shared.logs``) before FastStream logs ``Received``, so every line about the message
    names it: ``document_id`` and ``department`` from the event, ``stage`` the broker's (``None``:
    the event's own ``stage`` field, as in a progress event).

    The context is replaced by the next message, not reset after this one: FastStream logs
    ``Processed`` after the middlewares have exited. A message that is not one document's event (a
    batch, an ``IndexSwitched``, a body that is not JSON) clears it.
    """

    def __init__(self, stage: str | None = None) -> None:
        self.stage = stage

    def __call__(self, msg: Any, /, *, context: Any) -> BaseMiddleware:
        return _LogContext(msg, context=context, stage=self.stage)


class _LogContext(BaseMiddleware):
    def __init__(self, msg: Any, /, *, context: Any, stage: str | None) -> None:
        super().__init__(msg, context=context)
        self.stage = stage

    async def on_receive(self) -> None:
        body: Any = None
        if isinstance(self.msg, ConsumerRecord) and isinstance(self.msg.value, bytes | bytearray):
            try:
                body = json.loads(self.msg.value)
            except ValueError:
                body = None
        if isinstance(body, dict) and isinstance(body.get("document_id"), str):
            stage = self.stage or body.get("stage")
            logs.bind(body["document_id"], body.get("department"), stage if isinstance(stage, str) else None)
        elif self.msg is not None:  # a consumed message (publishing passes None)
            logs.bind(None)


def make_broker(settings: Settings, service: str, stage: str | None = None) -> KafkaBroker:
    """A FastStream Kafka broker for ``service`` with Prometheus metrics, idempotent producing
    and the consumed message's document in the log context (``stage``: the stage its log lines
    name, see :class:`LogContextMiddleware`).

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
        middlewares=[KafkaPrometheusMiddleware(registry=REGISTRY, app_name=f"legco-{service}"),
                     LogContextMiddleware(stage)],
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


def event_publisher(broker: KafkaBroker, topic: str, **kwargs: Any) -> Any:
    """A publisher to ``topic`` on ``broker`` that declares the topic's event model
    (``shared.topic_events.TOPIC_EVENTS``) as its payload, for the AsyncAPI document. Raises
    ``KeyError`` for a topic without one."""
    return broker.publisher(topic, schema=TOPIC_EVENTS[topic], **kwargs)


def stage_publishers(broker: KafkaBroker, output_topic: str | None) -> StagePublishers:
    """Create a stage's publishers on ``broker`` (``output_topic`` None: no output topic)."""
    return StagePublishers(
        output=event_publisher(broker, output_topic) if output_topic else None,
        progress=event_publisher(broker, topics.PROGRESS),
        dead_letter=event_publisher(broker, topics.DEAD_LETTER),
    )

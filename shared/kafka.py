"""Kafka broker factory and the consumer contract every stage follows.

Contract (see ARCHITECTURE.md):
* one long-lived producer per service (the FastStream broker), one consumer group per stage;
* offsets are committed after the handler finished (``AckPolicy.ACK``), so a worker killed
  mid-document gets the event again on restart; handlers are idempotent;
* a handler failure is retried ``handler_max_attempts`` times with backoff; then the event goes to
  the dead-letter topic and the document is failed with a human-readable reason; a
  ``DocumentError`` (bad input) fails the document at once, without retries;
* the consume loop never dies on a handler error.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from faststream.kafka import KafkaBroker
from faststream.kafka.prometheus import KafkaPrometheusMiddleware

from shared import topics
from shared.errors import DocumentError
from shared.events import DeadLetter, EventBase, ProgressEvent
from shared.metrics import DOCUMENTS, FAILURES, REGISTRY, RETRIES, STAGE_LATENCY
from shared.settings import Settings

log = logging.getLogger("legco.kafka")
T = TypeVar("T")

STAGE_NAMES = {"parser": "parsing", "splitter": "splitting", "embedder": "embedding"}


def make_broker(settings: Settings, service: str) -> KafkaBroker:
    """A FastStream Kafka broker for ``service`` with Prometheus metrics and idempotent producing.

    Args:
        settings: ``kafka_bootstrap`` (host:port list).
        service: service name, used as the Kafka client id.
    """
    return KafkaBroker(
        settings.kafka_bootstrap,
        client_id=f"legco-{service}",
        enable_idempotence=True,
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


async def run_stage(
    *,
    pubs: StagePublishers,
    settings: Settings,
    stage: str,
    group: str,
    topic: str,
    event: EventBase,
    filename: str,
    work: Callable[[], Awaitable[T]],
) -> T | None:
    """Run one handler's ``work`` under the consumer contract above.

    Args:
        pubs: the stage's publishers (progress and dead-letter are used here).
        stage: user-facing stage name ("parsing", "splitting", "embedding").
        group: consumer group (goes into the dead letter).
        topic: topic the event came from.
        event: the consumed event (its ``document_id`` is failed on a final error).
        filename: for the progress event.
        work: the handler body; its result is returned.

    Returns:
        ``work()``'s result, or ``None`` when the document was failed.
    """
    start = time.perf_counter()
    attempts = settings.handler_max_attempts
    for attempt in range(1, attempts + 1):
        try:
            result = await work()
            STAGE_LATENCY.labels(stage).observe(time.perf_counter() - start)
            DOCUMENTS.labels(stage, "ok").inc()
            return result
        except DocumentError as e:
            await fail_document(pubs, event, stage, filename, e.reason, e.code)
            return None
        except Exception as e:  # transient or a bug: bounded retries, then dead-letter
            log.exception("%s failed on %s (attempt %d/%d)", stage, event.document_id, attempt, attempts)
            if attempt < attempts:
                RETRIES.labels(stage).inc()
                await asyncio.sleep(settings.handler_retry_base_s * 2 ** (attempt - 1))
                continue
            reason = (f"The {stage} stage failed {attempts} times ({type(e).__name__}: "
                      f"{str(e)[:200]}); the event was moved to the dead-letter topic.")
            await pubs.dead_letter.publish(
                DeadLetter(document_id=event.document_id, department=event.department,
                           source_topic=topic, consumer_group=group, reason=str(e)[:2000],
                           error_type=type(e).__name__, attempts=attempts,
                           payload=event.model_dump(mode="json")),
                key=event.document_id.encode())
            await fail_document(pubs, event, stage, filename, reason, "internal")
            return None
    return None


async def fail_document(pubs: StagePublishers, event: EventBase, stage: str, filename: str,
                        reason: str, code: str) -> None:
    """Mark a document failed: count it and publish a terminal progress event with ``reason``."""
    FAILURES.labels(stage, code).inc()
    DOCUMENTS.labels(stage, "failed").inc()
    await pubs.report(ProgressEvent(
        document_id=event.document_id, department=event.department, filename=filename,
        stage="failed", status="failed", error=reason))

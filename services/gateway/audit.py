"""The audit log: who uploaded, deleted, replaced, created or revoked what, and which requests
were refused (401/403), as ``AuditEvent`` records on ``legco.audit.v1``.

Writing never holds up a request: ``record`` puts the entry on a bounded in-memory queue and
returns; one background task publishes the queue in order. When Kafka is slow or down the queue
fills and further entries are dropped (logged, and counted in ``legco_audit_dropped_total``);
the request is served either way. The topic keeps entries forever (``shared.topics.TOPIC_CONFIGS``);
``read_entries`` reads them back for ``GET /api/v1/audit``.
"""
from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import re
import time
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from aiokafka import AIOKafkaConsumer, TopicPartition
from prometheus_client import Counter

from shared import topics
from shared.api import Caller
from shared.events import AuditAction, AuditEvent
from shared.metrics import REGISTRY
from shared.settings import Settings

if TYPE_CHECKING:
    from services.gateway.state import GatewayState

log = logging.getLogger("legco.gateway.audit")

DROPPED = Counter("legco_audit_dropped_total", "Audit entries not published (reason: queue_full | publish_failed)",
                  ["reason"], registry=REGISTRY)
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhdw]?)$")
_UNIT_S = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


class AuditLog:
    """Fire-and-forget publisher of audit entries.

    Args:
        publisher: the ``legco.audit.v1`` publisher (``await publisher.publish(event, key=...)``).
        maxsize: entries that may wait to be published (more are dropped).
        publish_timeout_s: seconds one publish may take before the entry is given up.
    """

    def __init__(self, publisher: Any, maxsize: int = 1000, publish_timeout_s: float = 5.0) -> None:
        self.publisher = publisher
        self.queue: asyncio.Queue[AuditEvent] = asyncio.Queue(maxsize=maxsize)
        self.publish_timeout_s = publish_timeout_s
        self._task: asyncio.Task[None] | None = None
        self._failing = False

    def submit(self, event: AuditEvent) -> bool:
        """Queue ``event`` for publishing; ``False`` (logged, counted) when the queue is full."""
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            DROPPED.labels("queue_full").inc()
            log.warning("audit queue full, entry dropped: %s", event.model_dump_json())
            return False
        return True

    async def start(self) -> None:
        """Start the background publisher (in the gateway's lifespan)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="audit-publisher")

    async def stop(self, drain_timeout_s: float = 5.0) -> None:
        """Publish what is queued (up to ``drain_timeout_s`` seconds), then stop."""
        if self._task is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.queue.join(), drain_timeout_s)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None

    async def _run(self) -> None:
        while True:
            event = await self.queue.get()
            try:
                await asyncio.wait_for(self.publisher.publish(event, key=event.department.encode()),
                                       self.publish_timeout_s)
                if self._failing:
                    log.info("audit log publishing again")
                self._failing = False
            except Exception as e:  # noqa: BLE001 - any failure: log the entry, keep serving
                DROPPED.labels("publish_failed").inc()
                log.warning("audit entry not published (%s: %s): %s", type(e).__name__, e, event.model_dump_json())
                self._failing = True
            finally:
                self.queue.task_done()


async def record(state: GatewayState, caller: Caller | None, action: AuditAction, target: str, result: str,
                 detail: str = "", *, department: str | None = None, key_prefix: str | None = None) -> None:
    """Write one audit entry; never raises and never waits for Kafka.

    Args:
        state: the gateway state (its ``audit`` log; ``None`` in tests without one: nothing is written).
        caller: who acted (``None`` for the gateway itself, e.g. a replacement once the new copy is
            indexed; then give ``department``).
        action, target, result, detail: see ``shared.events.AuditEvent``.
        department, key_prefix: override the caller's (a refused key's prefix, a document's department).
    """
    audit: AuditLog | None = getattr(state, "audit", None)
    if audit is None:
        return
    try:
        audit.submit(AuditEvent(
            key_prefix=key_prefix if key_prefix is not None else (caller.key_prefix if caller else ""),
            department=department if department is not None else (caller.department if caller else ""),
            action=action, target=target, result=result, detail=detail[:500]))
    except Exception:  # a bad entry must not fail the request it describes
        log.exception("audit entry not recorded: %s %s %s", action, target, result)


def parse_since(value: str, now: datetime | None = None) -> datetime:
    """The start time of an audit query: seconds (``3600``), a duration (``30m``, ``1h``, ``2d``,
    ``1w``) back from ``now``, or an ISO-8601 time (UTC when it has no offset).

    Raises:
        ValueError: anything else (the message says what is accepted).
    """
    now = now or datetime.now(UTC)
    v = value.strip().lower()
    m = _DURATION.match(v)
    if m:
        return now - timedelta(seconds=float(m.group(1)) * _UNIT_S[m.group(2)])
    try:
        t = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValueError(f"since={value!r} is not a time: give seconds (3600), a duration (30m, 1h, 2d) "
                         "or an ISO-8601 time (2026-05-01T09:00)") from None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


async def read_entries(settings: Settings, since: datetime, department: str | None = None,
                       limit: int = 100) -> list[AuditEvent]:
    """The audit entries published at or after ``since`` (of ``department`` when given), newest
    first, at most ``limit``.

    Reads ``legco.audit.v1`` with an unsubscribed consumer (no consumer group, nothing committed):
    from the offsets ``offsets_for_times(since)`` gives to the end offsets taken at the start, so
    entries published meanwhile are not waited for. Gives up after ``audit_read_timeout_s``
    seconds with what it has read.

    Raises:
        aiokafka.errors.KafkaError: Kafka is not reachable.
    """
    consumer = AIOKafkaConsumer(bootstrap_servers=settings.kafka_bootstrap, enable_auto_commit=False,
                                group_id=None, client_id="legco-gateway-audit")
    await consumer.start()
    newest = Newest(limit)
    try:
        ends = await _seek_since(consumer, since)
        pending = {tp for tp, end in ends.items() if await consumer.position(tp) < end}
        deadline = time.monotonic() + settings.audit_read_timeout_s
        while pending and time.monotonic() < deadline:
            batch = await consumer.getmany(*pending, timeout_ms=500, max_records=1000)
            for tp, msgs in batch.items():
                for msg in msgs:
                    event = _parse(msg.value) if msg.offset < ends[tp] else None
                    if event is not None and department in (None, event.department):
                        newest.add(event)
                if msgs and msgs[-1].offset + 1 >= ends[tp]:
                    pending.discard(tp)
        if pending:
            log.warning("audit read stopped after %.0f s with partitions unread: %s",
                        settings.audit_read_timeout_s, sorted(tp.partition for tp in pending))
    finally:
        await consumer.stop()
    return newest.entries()


async def _seek_since(consumer: AIOKafkaConsumer, since: datetime) -> dict[TopicPartition, int]:
    """Assign every partition of the audit topic (``shared.admin`` creates it with
    ``topics.TOPIC_PARTITIONS``), each at its first offset at or after ``since``; returns their end
    offsets (an empty dict when the topic does not exist yet)."""
    if topics.AUDIT not in await consumer.topics():
        return {}
    tps = [TopicPartition(topics.AUDIT, p) for p in range(topics.TOPIC_PARTITIONS[topics.AUDIT])]
    consumer.assign(tps)
    ends: dict[TopicPartition, int] = await consumer.end_offsets(tps)
    starts = await consumer.offsets_for_times({tp: int(since.timestamp() * 1000) for tp in tps})
    for tp in tps:
        found = starts.get(tp)
        consumer.seek(tp, found.offset if found is not None else ends[tp])
    return ends


class Newest:
    """The ``limit`` newest audit entries seen (a min-heap on time, then arrival)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._heap: list[tuple[str, int, AuditEvent]] = []
        self._seq = 0

    def add(self, event: AuditEvent) -> None:
        """Keep ``event`` if it is among the newest."""
        self._seq += 1
        item = (event.ts, self._seq, event)
        if len(self._heap) < self.limit:
            heapq.heappush(self._heap, item)
        elif item[:2] > self._heap[0][:2]:
            heapq.heapreplace(self._heap, item)

    def entries(self) -> list[AuditEvent]:
        """The kept entries, newest first."""
        return [e for _, _, e in sorted(self._heap, key=lambda it: it[:2], reverse=True)]


def _parse(value: bytes | None) -> AuditEvent | None:
    """An audit entry from a record's value; ``None`` (logged) for one that is not."""
    try:
        return AuditEvent.model_validate_json(value or b"")
    except ValueError:
        log.warning("unreadable audit record skipped")
        return None

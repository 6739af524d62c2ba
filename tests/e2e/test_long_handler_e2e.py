"""A handler slower than the consumer's ``max_poll_interval_ms`` does not get its consumer
evicted from the group: ``Stage.subscriber`` runs handlers through a ``WorkQueue`` and returns
to the consumer at once, so the consumer keeps polling while the work runs. On the test stack's
real Kafka: three records, each handled for 3x the poll interval, are handled once each, with
one partition assignment and no revocation, and their offsets are committed. The control — the
same handler on a plain FastStream subscriber — is evicted: its partition is revoked."""
from __future__ import annotations

import asyncio
import time
import uuid

from aiokafka import ConsumerRebalanceListener, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from faststream import AckPolicy

from shared.events import EventBase
from shared.settings import Settings
from shared.stage import Stage

POLL_MS = 2000
WORK_S = 6.0                       # 3x the poll interval
TIMING = {"max_poll_interval_ms": POLL_MS, "rebalance_timeout_ms": 30_000, "session_timeout_ms": 10_000,
          "heartbeat_interval_ms": 500}


class Rebalances(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self) -> None:
        self.assigned = 0
        self.revoked = 0

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        if assigned:
            self.assigned += 1

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        if revoked:
            self.revoked += 1


async def _topic(bootstrap: str) -> str:
    name = f"legco.test.slow-{uuid.uuid4().hex[:8]}"
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(name, num_partitions=1, replication_factor=1)])
    finally:
        await admin.close()
    return name


async def _until(cond, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


async def _committed(bootstrap: str, group: str, topic: str) -> int:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        offsets = await admin.list_consumer_group_offsets(group)
    finally:
        await admin.close()
    return next((m.offset for tp, m in offsets.items() if tp.topic == topic), -1)


async def test_a_handler_slower_than_the_poll_interval_keeps_its_consumer(stack):
    bootstrap = stack.env["KAFKA_BOOTSTRAP"]
    topic = await _topic(bootstrap)
    stage = Stage("slowtest", progress_stage="embedding", settings=Settings(kafka_bootstrap=bootstrap),
                  group=f"slowtest-{uuid.uuid4().hex[:8]}")
    seen: list[str] = []
    listener = Rebalances()

    @stage.subscriber(topic, listener=listener, auto_offset_reset="earliest", **TIMING)
    async def slow(event: EventBase) -> None:
        await asyncio.sleep(WORK_S)
        seen.append(event.document_id)

    await stage.broker.start()
    try:
        assert await _until(lambda: listener.assigned >= 1, 60)
        for n in range(3):
            await stage.broker.publish(EventBase(document_id=f"d{n}"), topic, key=f"d{n}".encode())
        assert await _until(lambda: len(seen) >= 3, 3 * WORK_S + 30), seen
        await asyncio.sleep(POLL_MS / 1000 + 1)       # an eviction would show up by now
        assert sorted(seen) == ["d0", "d1", "d2"]      # each handled once
        assert (listener.assigned, listener.revoked) == (1, 0)
        assert await _committed(bootstrap, stage.group, topic) == 3
    finally:
        for q in stage.queues:
            await q.close()
        await stage.broker.stop()


async def test_control_the_same_handler_without_the_work_queue_is_evicted(stack):
    bootstrap = stack.env["KAFKA_BOOTSTRAP"]
    topic = await _topic(bootstrap)
    stage = Stage("slowcontrol", progress_stage="embedding", settings=Settings(kafka_bootstrap=bootstrap))
    seen: list[str] = []
    listener = Rebalances()

    @stage.broker.subscriber(topic, group_id=f"slowcontrol-{uuid.uuid4().hex[:8]}", listener=listener,
                             auto_offset_reset="earliest", ack_policy=AckPolicy.ACK, **TIMING)
    async def slow(event: EventBase) -> None:
        await asyncio.sleep(WORK_S)
        seen.append(event.document_id)

    await stage.broker.start()
    try:
        assert await _until(lambda: listener.assigned >= 1, 60)
        await stage.broker.publish(EventBase(document_id="c0"), topic, key=b"c0")
        assert await _until(lambda: listener.revoked >= 1, WORK_S + 30)   # left the group mid-handler
    finally:
        await stage.broker.stop()

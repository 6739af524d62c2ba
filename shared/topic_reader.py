"""Reading one topic from its beginning to its end offsets, outside any consumer group: what an
operator's view of a topic needs (the dead letters, ``services/gateway/deadletters.py``) — reading
commits nothing, and every reader sees the same records.

The partitions are asked of the cluster (``describe_topics``): a consumer's own metadata knows
only the topics it subscribed to, so a group-less consumer would find none.
"""
from __future__ import annotations

import logging
import time

from aiokafka import AIOKafkaConsumer, ConsumerRecord, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from shared.settings import Settings

log = logging.getLogger("legco.topic_reader")


async def partitions(settings: Settings, topic: str) -> list[TopicPartition]:
    """The partitions of ``topic`` (none when it does not exist).

    Raises:
        aiokafka errors when Kafka is unreachable.
    """
    admin = AIOKafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap, client_id="legco-topic-reader")
    await admin.start()
    try:
        described = await admin.describe_topics([topic])
    finally:
        await admin.close()
    return sorted((TopicPartition(t["topic"], p["partition"]) for t in described if t["error_code"] == 0
                   for p in t["partitions"]), key=lambda tp: tp.partition)


async def read_topic(settings: Settings, topic: str, timeout_s: float) -> list[ConsumerRecord[bytes, bytes]]:
    """Every record of ``topic`` below the end offsets it has when called, oldest first per
    partition; what could be read in ``timeout_s`` seconds (logged when that was not all).

    Raises:
        aiokafka errors when Kafka is unreachable.
    """
    tps = await partitions(settings, topic)
    if not tps:
        return []
    consumer = AIOKafkaConsumer(bootstrap_servers=settings.kafka_bootstrap, enable_auto_commit=False,
                                client_id="legco-topic-reader")
    await consumer.start()
    out: list[ConsumerRecord[bytes, bytes]] = []
    try:
        consumer.assign(tps)
        begin, end = await consumer.beginning_offsets(tps), await consumer.end_offsets(tps)
        left = {tp for tp in tps if end[tp] > begin[tp]}
        for tp in left:
            consumer.seek(tp, begin[tp])
        deadline = time.monotonic() + timeout_s
        while left and time.monotonic() < deadline:
            batch = await consumer.getmany(*left, timeout_ms=500, max_records=1000)
            for tp, records in batch.items():
                out.extend(r for r in records if r.offset < end[tp])
            for tp in list(left):
                if await consumer.position(tp) >= end[tp]:
                    left.discard(tp)
        if left:
            log.warning("%s not read to its end within %.0f s", topic, timeout_s)
        return out
    finally:
        await consumer.stop()

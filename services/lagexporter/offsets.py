"""Read consumer-group lag from Kafka: committed offsets (admin client) against end offsets.

One ``Snapshot`` is a reading of every consumer group's committed offset and every partition's
end offset (the offset the next message will get), so lag = end - committed, in messages.
Only partitions a group has committed an offset for are reported, as the ecosystem's
kafka_exporter does: a group that never committed on a partition has no position to lag behind.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient


@dataclass
class Snapshot:
    """One reading. ``end[(topic, partition)]`` end offsets of every topic partition;
    ``committed[group][(topic, partition)]`` committed offsets; ``took_s`` the reading's time."""

    end: dict[tuple[str, int], int] = field(default_factory=dict)
    committed: dict[str, dict[tuple[str, int], int]] = field(default_factory=dict)
    took_s: float = 0.0

    def lag(self) -> dict[str, dict[tuple[str, int], int]]:
        """Lag in messages per group and partition (never negative: a commit read after the end
        offset can be ahead of it)."""
        out: dict[str, dict[tuple[str, int], int]] = {}
        for group, offsets in self.committed.items():
            out[group] = {tp: max(0, self.end[tp] - off) for tp, off in offsets.items() if tp in self.end}
        return out


class OffsetReader:
    """Long-lived admin client and group-less consumer on ``bootstrap`` (comma-separated host:port)."""

    def __init__(self, bootstrap: str) -> None:
        self.admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, client_id="legco-lagexporter")
        self.consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, client_id="legco-lagexporter",
                                         enable_auto_commit=False, group_id=None)

    async def start(self) -> None:
        """Connect both clients. Raises: aiokafka.errors.KafkaConnectionError (Kafka unreachable)."""
        await self.admin.start()
        await self.consumer.start()

    async def close(self) -> None:
        """Close both clients."""
        await self.consumer.stop()
        await self.admin.close()

    async def read(self) -> Snapshot:
        """A snapshot of every non-internal topic's end offsets and every consumer group's commits.

        Raises:
            aiokafka.errors.KafkaError: Kafka unreachable or a request failed.
        """
        import time

        t0 = time.monotonic()
        snap = Snapshot()
        topic_names = [t for t in await self.admin.list_topics() if not t.startswith("__")]
        partitions: list[TopicPartition] = []
        if topic_names:
            for desc in await self.admin.describe_topics(topic_names):
                partitions += [TopicPartition(desc["topic"], p["partition"]) for p in desc.get("partitions", [])]
        if partitions:
            ends = await self.consumer.end_offsets(partitions)
            snap.end = {(tp.topic, tp.partition): off for tp, off in ends.items()}
        for group_id, _protocol in await self.admin.list_consumer_groups():
            offsets = await self.admin.list_consumer_group_offsets(group_id)
            committed = {(tp.topic, tp.partition): meta.offset for tp, meta in offsets.items()
                         if meta is not None and meta.offset >= 0}
            if committed:
                snap.committed[group_id] = committed
        snap.took_s = time.monotonic() - t0
        return snap

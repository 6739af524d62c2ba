"""Create the pipeline's Kafka topics with their partition counts, replication and configs (idempotent).

Run once when the stack starts: ``python -m shared.admin``. Topics are keyed by document id,
so ``KAFKA_TOPIC_PARTITIONS`` (12) bounds how many replicas of one stage share the load
(``scripts/stack.sh`` allows at most 10 per stage); the topics of ``topics.TOPIC_PARTITIONS``
have a fixed count. An existing topic with fewer partitions than that (created by an older
version, or with a smaller ``KAFKA_TOPIC_PARTITIONS``) is grown to it (``grow_partitions``);
a topic is never shrunk (Kafka cannot). The configs of ``topics.TOPIC_CONFIGS``
(the audit log's unlimited retention) are set on creation and re-applied to an existing topic,
so a topic created by an older version gets them too.

Replication: ``KAFKA_REPLICATION_FACTOR`` copies of every partition (0: min(3, the brokers the
cluster has)); with 3 copies or more, ``min.insync.replicas`` is 2, so an ``acks=all`` write is
on two brokers before it is acknowledged and the loss of any one broker loses nothing and stops
nothing. With 3 copies the admin first waits (``kafka_admin_wait_s``) until 3 brokers are in
the cluster, as a cluster started a moment ago may not have registered them all.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import Any

from aiokafka.admin import AIOKafkaAdminClient, NewPartitions, NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.errors import InvalidPartitionsError

from shared import topics
from shared.settings import Settings, get_settings

log = logging.getLogger("legco.admin")


def topic_configs(replication_factor: int) -> dict[str, str]:
    """Topic-level configs for ``replication_factor`` copies: ``min.insync.replicas`` 2 with 3
    copies or more (one broker may be lost), else 1."""
    return {"min.insync.replicas": "2" if replication_factor >= 3 else "1"}


async def _broker_count(admin: AIOKafkaAdminClient) -> int:
    cluster: dict[str, Any] = await admin.describe_cluster()
    return len(cluster.get("brokers", []))


async def _replication_of(admin: AIOKafkaAdminClient, names: list[str]) -> dict[str, int]:
    """Copies of each existing topic of ``names`` (the replicas of its first partition)."""
    if not names:
        return {}
    described: list[dict[str, Any]] = await admin.describe_topics(names)
    return {t["topic"]: len(t["partitions"][0]["replicas"]) for t in described if t.get("partitions")}


async def replication_factor(admin: AIOKafkaAdminClient, settings: Settings) -> int:
    """The replication factor to create topics with: ``kafka_replication_factor``, once that
    many brokers are in the cluster (waits up to ``kafka_admin_wait_s``), or min(3, brokers)
    when it is 0.

    Raises:
        RuntimeError: fewer brokers than the replication factor after the wait.
    """
    wanted = settings.kafka_replication_factor
    deadline = time.monotonic() + settings.kafka_admin_wait_s
    while True:
        brokers = await _broker_count(admin)
        if wanted <= 0:
            return max(1, min(3, brokers))
        if brokers >= wanted:
            return wanted
        if time.monotonic() > deadline:
            raise RuntimeError(f"{brokers} Kafka brokers in the cluster, replication factor {wanted} needs {wanted}")
        await asyncio.sleep(0.5)


def wanted_partitions(settings: Settings) -> dict[str, int]:
    """Partitions of every pipeline topic: ``topics.TOPIC_PARTITIONS`` or ``kafka_topic_partitions``."""
    return {t: topics.TOPIC_PARTITIONS.get(t, settings.kafka_topic_partitions) for t in topics.ALL_TOPICS}


async def _partitions_of(admin: AIOKafkaAdminClient, names: list[str]) -> dict[str, int]:
    """Partition count of each existing topic of ``names``."""
    if not names:
        return {}
    described: list[dict[str, Any]] = await admin.describe_topics(names)
    return {t["topic"]: len(t["partitions"]) for t in described if t.get("partitions")}


async def grow_partitions(admin: AIOKafkaAdminClient, wanted: Mapping[str, int],
                          existing: set[str]) -> dict[str, tuple[int, int]]:
    """Add partitions to every topic of ``wanted`` (``{topic: partitions}``, e.g.
    :func:`wanted_partitions`) that exists (``existing``) with fewer; returns
    ``{topic: (before, after)}`` of the topics grown.

    Safe with these topics, though a key's partition changes (murmur2 of the key modulo the
    count): events published after the change go to the new mapping, and a document in flight
    at that moment can have events on its old and its new partition. Each consumer tolerates
    that: a stage's events come one per document (uploaded, parsed, tables, chunked, rebuild)
    or are independent (page work); the gatherer, finding a document it does not know, seeds
    its set of pages from the stored page results; the query service applies ``indexed`` and
    ``deleted`` by reading the document's state in Chroma; the gateway's progress fold never
    moves a terminal status back (a non-terminal stage may show one step behind until the
    document's next event). The audit log keeps its one partition (``topics.TOPIC_PARTITIONS``).

    A count read before another grow has reached this broker's metadata is not an error: the
    broker's refusal ("not an increase") is checked against a fresh count.

    Raises:
        aiokafka.errors.InvalidPartitionsError: the broker refused a grow and the topic still
            has fewer partitions than wanted after 5 s.
    """
    have = await _partitions_of(admin, sorted(t for t in wanted if t in existing))
    grown: dict[str, tuple[int, int]] = {}
    for t, before in sorted(have.items()):
        after = wanted[t]
        if before >= after:
            continue
        try:
            await admin.create_partitions({t: NewPartitions(total_count=after)})
        except InvalidPartitionsError:
            # The metadata read above can lag a grow made a moment earlier (by another admin
            # run, or this one): the broker refuses a count that is not an increase. Nothing to
            # do if the topic has at least ``after`` now; anything else is a real refusal.
            if await _settled_partitions(admin, t, after) >= after:
                continue
            raise
        grown[t] = (before, after)
        log.warning("topic %s grown from %d to %d partitions (new events of a key may go to another "
                    "partition than its earlier ones)", t, before, after)
    return grown


async def _settled_partitions(admin: AIOKafkaAdminClient, topic: str, at_least: int,
                              wait_s: float = 5.0) -> int:
    """``topic``'s partition count once the cluster's metadata shows at least ``at_least``, or
    the count it shows after ``wait_s`` seconds."""
    deadline = time.monotonic() + wait_s
    while True:
        n = (await _partitions_of(admin, [topic])).get(topic, 0)
        if n >= at_least or time.monotonic() > deadline:
            return n
        await asyncio.sleep(0.25)


async def ensure_topics(settings: Settings) -> list[str]:
    """Create missing topics (replication and ``min.insync.replicas`` as ``topic_configs``),
    grow existing ones with too few partitions (:func:`grow_partitions`) and re-apply
    ``topics.TOPIC_CONFIGS`` to existing ones; returns the names created.

    Raises:
        RuntimeError: fewer brokers than the replication factor (see ``replication_factor``).
    """
    admin = AIOKafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap)
    await admin.start()
    try:
        rf = await replication_factor(admin, settings)
        existing = set(await admin.list_topics())
        partitions = wanted_partitions(settings)
        new = [NewTopic(t, num_partitions=partitions[t], replication_factor=rf,
                        topic_configs={**topic_configs(rf), **topics.TOPIC_CONFIGS.get(t, {})})
               for t in topics.ALL_TOPICS if t not in existing]
        if new:
            await admin.create_topics(new)
        await grow_partitions(admin, partitions, existing)
        # AlterConfigs replaces a topic's whole set of overrides: min.insync.replicas goes with
        # them, for the replication the topic was created with
        copies = await _replication_of(admin, [t for t in topics.TOPIC_CONFIGS if t in existing])
        reapply = [ConfigResource(ConfigResourceType.TOPIC, t, configs={**topic_configs(copies[t]), **c})
                   for t, c in topics.TOPIC_CONFIGS.items() if t in copies]
        if reapply:
            await admin.alter_configs(reapply)
        return [t.name for t in new]
    finally:
        await admin.close()


if __name__ == "__main__":
    created = asyncio.run(ensure_topics(get_settings()))
    print("created topics:", ", ".join(created) if created else "none (all exist)")  # noqa: T201 - the command's output

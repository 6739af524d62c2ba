"""Create the pipeline's Kafka topics with their partition counts and replication (idempotent).

Run once when the stack starts: ``python -m shared.admin``. Topics are keyed by document id,
so ``KAFKA_TOPIC_PARTITIONS`` bounds how many workers of one stage can share the load.

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
from typing import Any

from aiokafka.admin import AIOKafkaAdminClient, NewTopic

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


async def ensure_topics(settings: Settings) -> list[str]:
    """Create missing topics; returns the names created. Existing topics are left as they are."""
    admin = AIOKafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap)
    await admin.start()
    try:
        rf = await replication_factor(admin, settings)
        existing = set(await admin.list_topics())
        new = [NewTopic(t, num_partitions=settings.kafka_topic_partitions, replication_factor=rf,
                        topic_configs=topic_configs(rf))
               for t in topics.ALL_TOPICS if t not in existing]
        if new:
            await admin.create_topics(new)
        return [t.name for t in new]
    finally:
        await admin.close()


if __name__ == "__main__":
    created = asyncio.run(ensure_topics(get_settings()))
    print("created topics:", ", ".join(created) if created else "none (all exist)")  # noqa: T201 - the command's output

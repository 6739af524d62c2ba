"""Create the pipeline's Kafka topics with their partition counts (idempotent).

Run once when the stack starts: ``python -m shared.admin``. Topics are keyed by document id,
so ``KAFKA_TOPIC_PARTITIONS`` bounds how many workers of one stage can share the load.
"""
from __future__ import annotations

import asyncio

from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from shared import topics
from shared.settings import Settings, get_settings


async def ensure_topics(settings: Settings) -> list[str]:
    """Create missing topics; returns the names created."""
    admin = AIOKafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap)
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        new = [NewTopic(t, num_partitions=settings.kafka_topic_partitions, replication_factor=1)
               for t in topics.ALL_TOPICS if t not in existing]
        if new:
            await admin.create_topics(new)
        return [t.name for t in new]
    finally:
        await admin.close()


if __name__ == "__main__":
    created = asyncio.run(ensure_topics(get_settings()))
    print("created topics:", ", ".join(created) if created else "none (all exist)")  # noqa: T201 - the command's output

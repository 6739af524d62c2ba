"""Create the pipeline's Kafka topics with their partition counts and configs (idempotent).

Run once when the stack starts: ``python -m shared.admin``. Topics are keyed by document id,
so ``KAFKA_TOPIC_PARTITIONS`` bounds how many workers of one stage can share the load; the
topics of ``topics.TOPIC_PARTITIONS`` have a fixed count. The configs of ``topics.TOPIC_CONFIGS``
(the audit log's unlimited retention) are set on creation and re-applied to an existing topic,
so a topic created by an older version gets them too.
"""
from __future__ import annotations

import asyncio

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

from shared import topics
from shared.settings import Settings, get_settings


async def ensure_topics(settings: Settings) -> list[str]:
    """Create missing topics and apply ``topics.TOPIC_CONFIGS``; returns the names created."""
    admin = AIOKafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap)
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        new = [NewTopic(t, num_partitions=topics.TOPIC_PARTITIONS.get(t, settings.kafka_topic_partitions),
                        replication_factor=1, topic_configs=topics.TOPIC_CONFIGS.get(t, {}))
               for t in topics.ALL_TOPICS if t not in existing]
        if new:
            await admin.create_topics(new)
        reapply = [ConfigResource(ConfigResourceType.TOPIC, t, configs=c)
                   for t, c in topics.TOPIC_CONFIGS.items() if t in existing]
        if reapply:
            await admin.alter_configs(reapply)
        return [t.name for t in new]
    finally:
        await admin.close()


if __name__ == "__main__":
    created = asyncio.run(ensure_topics(get_settings()))
    print("created topics:", ", ".join(created) if created else "none (all exist)")  # noqa: T201 - the command's output

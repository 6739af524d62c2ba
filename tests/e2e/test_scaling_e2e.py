"""Every worker stage scales on its own: the test stack reconfigured to two replicas of the parser,
the table stage, the splitter and the embedder (``scripts/stack.sh`` numprocs), both replicas of
each stage get partitions of their consumer groups and both do work in one ingest; the admin grows
a topic that has too few partitions."""
from __future__ import annotations

import asyncio
import os
import re
import subprocess
import time
import uuid
from pathlib import Path

import httpx
import pytest
from aiokafka.admin import AIOKafkaAdminClient, NewPartitions, NewTopic

from shared.admin import grow_partitions
from tests.conftest import FIXTURES, REPO
from tests.e2e.helpers import upload, wait_terminal
from tests.faults import small_papers

TWO = {"PARSER_WORKERS": "2", "VISION_WORKERS": "2", "SPLITTER_WORKERS": "2", "EMBEDDER_WORKERS": "2"}
GROUPS = ("parser", "tables-fanout", "tables", "tables-gather", "splitter", "embedder", "embedder-ranges",
          "embedder-gather", "embedder-rebuild")
"""The consumer groups of the worker stages (the table stage has three, the embedder four)."""

WORK = {  # per stage, a counter of its replicas' /metrics that only that stage's own work raises
    "parser": r'legco_documents_total\{department="[^"]*",outcome="ok",stage="parsing"\}',
    "tables": r"legco_table_page_latency_seconds_count\{[^}]*\}",  # the page workers
    "splitter": r'legco_documents_total\{department="[^"]*",outcome="ok",stage="splitting"\}',
    "embedder": r'legco_chunks_total\{stage="embedding"\}',
}


def counter(port: int, pattern: str) -> float:
    """Sum of the samples matching ``pattern`` on ``http://127.0.0.1:port/metrics``."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    return sum(float(v) for v in re.findall(rf"^{pattern} ([0-9.e+]+)$", text, re.M))


def assignments(bootstrap: str) -> dict[str, list[int]]:
    """Per consumer group of :data:`GROUPS`, the partition count of each member, as Kafka's own
    ``kafka-consumer-groups`` tool describes them (``ConsumerGroupCommand`` of the stack's jars)."""
    libs = Path(os.environ.get("LEGCO_CACHE", REPO / ".cache")) / "kafka" / "libs"
    out = subprocess.run(["java", "-cp", f"{libs}/*", "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                          "--bootstrap-server", bootstrap.split(",")[0], "--describe", "--all-groups", "--members"],
                         capture_output=True, text=True, timeout=120).stdout
    members: dict[str, list[int]] = {group: [] for group in GROUPS}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 5 and fields[0] in members and fields[4].isdigit():
            members[fields[0]].append(int(fields[4]))
    return members


@pytest.fixture(scope="module")
def two_of_each(stack):
    """The session stack with two replicas of every worker stage; back to one afterwards."""
    stack.reconfigure(TWO)
    yield stack
    stack.reconfigure(dict.fromkeys(TWO, "1"))


def test_two_replicas_of_every_stage_share_the_work(two_of_each, api, tmp_path: Path) -> None:
    stack = two_of_each
    ports = {stage: stack.ports(stage) for stage in WORK}
    assert all(len(p) == 2 for p in ports.values()), ports
    deadline = time.monotonic() + 90
    while True:  # the groups settle once both replicas joined: 2 members, 6 partitions each
        groups = assignments(stack.env["KAFKA_BOOTSTRAP"])
        if all(sorted(parts) == [6, 6] for parts in groups.values()):
            break
        assert time.monotonic() < deadline, groups
        time.sleep(2)
    papers = small_papers(tmp_path, f"scale-{uuid.uuid4().hex[:6]}", count=12)
    ids = [upload(api, path, strategy)["document_id"] for path, strategy in papers]
    ids.append(upload(api, FIXTURES / "B_古洞北粉嶺北新發展區概覽.pdf", "token")["document_id"])  # 5 pages
    records = wait_terminal(api, ids, timeout_s=300)
    assert {r["status"] for r in records.values()} == {"indexed"}, [r["error"] for r in records.values()]
    done = {stage: [counter(port, WORK[stage]) for port in ports[stage]] for stage in WORK}
    print("work per replica:", done)
    # 13 documents keyed by id over 12 partitions: a replica of a document stage misses them all
    # with probability 2^-12; the PDF's 5 pages go to the two table workers in turn (3 + 2)
    assert all(n > 0 for counts in done.values() for n in counts), done


async def shown_with(admin: AIOKafkaAdminClient, topic: str, partitions: int, wait_s: float = 30) -> None:
    """Wait until the cluster's metadata shows ``topic`` with ``partitions`` partitions (a topic
    created a moment ago can be missing from it)."""
    deadline = time.monotonic() + wait_s
    while True:
        described = await admin.describe_topics([topic])
        if described and len(described[0].get("partitions") or []) == partitions:
            return
        assert time.monotonic() < deadline, f"{topic} never showed with {partitions} partitions"
        await asyncio.sleep(0.2)


def test_admin_grows_a_topic_with_too_few_partitions(stack) -> None:
    name = f"legco.test.grow-{uuid.uuid4().hex[:8]}"

    async def run() -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]], int]:
        admin = AIOKafkaAdminClient(bootstrap_servers=stack.env["KAFKA_BOOTSTRAP"])
        await admin.start()
        try:
            await admin.create_topics([NewTopic(name, num_partitions=2, replication_factor=1)])
            await shown_with(admin, name, 2)
            grown = await grow_partitions(admin, {name: 5}, {name})
            again = await grow_partitions(admin, {name: 3}, {name})  # never shrunk, nothing to do
            described = await admin.describe_topics([name])
            await admin.delete_topics([name])
            return grown, again, len(described[0]["partitions"])
        finally:
            await admin.close()

    grown, again, partitions = asyncio.run(run())
    assert grown == {name: (2, 5)} and again == {} and partitions == 5


class _CountReadBeforeAnotherGrow(AIOKafkaAdminClient):
    """An admin client whose first partition count of a topic is read just before another
    admin grows it to ``other``: the race two admin runs (or a lagging broker's metadata) make."""

    def __init__(self, other: int, **kw) -> None:
        super().__init__(**kw)
        self.other, self.armed = other, False

    async def describe_topics(self, topics=None):
        described = await super().describe_topics(topics)
        if self.armed:
            self.armed = False
            await self.create_partitions({t: NewPartitions(total_count=self.other) for t in topics})
        return described


def test_a_grow_refused_as_not_an_increase_is_nothing_to_do_when_another_grew_the_topic(stack) -> None:
    name = f"legco.test.race-{uuid.uuid4().hex[:8]}"

    async def run() -> tuple[dict[str, tuple[int, int]], int]:
        admin = _CountReadBeforeAnotherGrow(5, bootstrap_servers=stack.env["KAFKA_BOOTSTRAP"])
        await admin.start()
        try:
            await admin.create_topics([NewTopic(name, num_partitions=2, replication_factor=1)])
            await shown_with(admin, name, 2)
            admin.armed = True
            grown = await grow_partitions(admin, {name: 3}, {name})  # reads 2, the broker has 5
            assert not admin.armed
            described = await admin.describe_topics([name])
            await admin.delete_topics([name])
            return grown, len(described[0]["partitions"])
        finally:
            await admin.close()

    grown, partitions = asyncio.run(run())
    assert grown == {} and partitions == 5

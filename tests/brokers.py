"""Killing a Kafka broker of a 3-broker stack mid-ingest (``tests/e2e/test_brokers_e2e.py``, the
short run in ``make test``; ``tests/chaos/test_brokers_chaos.py``, the corpus run).

The stack is its own (``KAFKA_BROKERS=3``, ports shifted by the test offset + 500, so it runs
next to the session stack). The broker killed (SIGKILL) is the one coordinating the embedder's
consumer group, and it stays down until the ingest is over (supervisord would restart it within
a second; the run stops it, so the pipeline must carry on with two brokers): the groups it
coordinated move to another broker, the partitions it led get new leaders, writes go on with 2
in-sync copies (``min.insync.replicas`` 2). Then it is started again and must rejoin every
in-sync replica set.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from shared import topics
from shared.vectorstore import VectorStore
from tests.e2e.helpers import upload, wait_terminal
from tests.infra import OFFSET, Stack, docker_engine, start_stack, stop_stack

CLUSTER_OFFSET = OFFSET + 500


def cluster_stack() -> Iterator[Stack]:
    """A stack with a 3-node KRaft cluster (for a module fixture); stopped afterwards unless
    ``LEGCO_KEEP_TEST_STACK=1``."""
    if docker_engine():
        pytest.skip("testcontainers give one Kafka broker; the 3-broker cluster runs natively")
    s = start_stack({"KAFKA_BROKERS": "3"}, offset=CLUSTER_OFFSET)
    yield s
    if os.environ.get("LEGCO_KEEP_TEST_STACK") != "1":
        stop_stack(s)


def _java_hash(s: str) -> int:
    """Java's ``String.hashCode`` (Kafka maps a group to its offsets partition with it)."""
    h = 0
    for c in s:
        h = (31 * h + ord(c)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


async def coordinator(bootstrap: str, group: str) -> int:
    """Node id of ``group``'s coordinator: the leader of its ``__consumer_offsets`` partition."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        (offsets,) = await admin.describe_topics(["__consumer_offsets"])
    finally:
        await admin.close()
    part = abs(_java_hash(group)) % len(offsets["partitions"])
    return int(next(p["leader"] for p in offsets["partitions"] if p["partition"] == part))


async def read_all(bootstrap: str, topic: str) -> list[dict]:
    """Every event on ``topic`` from the beginning (no consumer group)."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        (described,) = await admin.describe_topics([topic])
    finally:
        await admin.close()
    tps = [TopicPartition(topic, p["partition"]) for p in described["partitions"]]
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        ends = await consumer.end_offsets(tps)
        out: list[dict] = []
        while [tp for tp in tps if await consumer.position(tp) < ends[tp]]:
            for records in (await consumer.getmany(*tps, timeout_ms=1000)).values():
                out += [json.loads(r.value) for r in records]
        return out
    finally:
        with contextlib.suppress(asyncio.CancelledError):  # aiokafka's group-less stop may raise it
            await consumer.stop()


async def min_isr(bootstrap: str) -> int:
    """The smallest in-sync replica set over every partition of the pipeline's topics."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        described = await admin.describe_topics(list(topics.ALL_TOPICS))
    finally:
        await admin.close()
    return min(len(p["isr"]) for t in described for p in t["partitions"])


@dataclass
class KillRun:
    """What a broker-kill run found (times in seconds)."""

    node: int
    killed_after_s: float          # first upload → kill
    done_at_kill: int              # documents terminal when the broker was killed
    indexed_after_kill_s: float    # kill → every document terminal
    rejoined_s: float              # restart → the broker back in every in-sync replica set
    records: dict[str, dict]       # document id → final record
    chunk_indexes: dict[str, list[int]]  # document id → the chunk_index of every stored chunk, sorted
    dead_letters: int              # dead letters of these documents
    indexed_events: Counter[str]   # document id → documents.indexed events

    def summary(self, label: str) -> str:
        n = len(self.records)
        per_doc = sorted(Counter(self.indexed_events[i] for i in self.records).items())
        return (f"[{label}] killed node {self.node} (coordinator of the embedder group) {self.killed_after_s:.1f} s "
                f"after the first upload, {self.done_at_kill}/{n} documents done; all {n} terminal "
                f"{self.indexed_after_kill_s:.1f} s after the kill; dead letters {self.dead_letters}; "
                f"documents.indexed events per document (events: documents) {per_doc}; broker back in every "
                f"in-sync replica set {self.rejoined_s:.1f} s after its restart")


def kill_broker_mid_ingest(cluster: Stack, docs: list[tuple[Path, str]], timeout_s: float = 900) -> KillRun:
    """Upload ``docs`` ((path, strategy)), SIGKILL the embedder group's coordinator once the
    first document is terminal, keep it down until every document is terminal, start it again."""
    bootstrap = cluster.env["KAFKA_BOOTSTRAP"]
    assert len(bootstrap.split(",")) == 3
    vectors = VectorStore(cluster.settings())
    with httpx.Client(base_url=cluster.gateway_url, timeout=60.0, headers=cluster.auth()) as api:
        t0 = time.monotonic()
        ids = [upload(api, path, strategy)["document_id"] for path, strategy in docs]
        deadline = time.monotonic() + timeout_s
        while True:  # mid-ingest: the first document done, most not
            listed = {d["document_id"]: d for d in api.get("/api/v1/documents").json()["documents"]}
            terminal = [i for i in ids if listed.get(i, {}).get("status") in ("indexed", "failed")]
            if terminal:
                break
            assert time.monotonic() < deadline, f"nothing terminal after {timeout_s} s"
            time.sleep(0.2)
        assert len(terminal) <= len(ids) // 2, f"{len(terminal)} of {len(ids)} done before the kill; nothing tested"
        node = asyncio.run(coordinator(bootstrap, "embedder"))
        program = f"kafka-{node}"
        os.kill(int(cluster.ctl("ctl", "pid", program).strip()), signal.SIGKILL)
        killed_at = time.monotonic()
        cluster.ctl("ctl", "stop", program)  # stays down (supervisord would restart it)
        try:
            records = wait_terminal(api, ids, timeout_s=timeout_s)
            finished = time.monotonic()
            dead = [e for e in asyncio.run(read_all(bootstrap, topics.DEAD_LETTER)) if e["document_id"] in ids]
            indexed = Counter(e["document_id"] for e in asyncio.run(read_all(bootstrap, topics.INDEXED)))
        finally:
            cluster.ctl("ctl", "start", program)
    restarted = time.monotonic()
    while True:
        with contextlib.suppress(Exception):  # the broker's port opens a few seconds after the start
            if asyncio.run(min_isr(bootstrap)) >= 3:
                break
        assert time.monotonic() < restarted + 180, "the restarted broker did not rejoin every in-sync replica set"
        time.sleep(1)
    chunk_indexes = {i: sorted(m["chunk_index"] for m in vectors.get_document_chunks(i)["metadatas"]) for i in ids}
    return KillRun(node=node, killed_after_s=killed_at - t0, done_at_kill=len(terminal),
                   indexed_after_kill_s=finished - killed_at, rejoined_s=time.monotonic() - restarted,
                   records=records, chunk_indexes=chunk_indexes, dead_letters=len(dead), indexed_events=indexed)


def assert_nothing_lost(run: KillRun) -> None:
    """Every document indexed, every chunk index stored once, no dead letter, every document's
    ``documents.indexed`` published."""
    for doc_id, rec in run.records.items():
        assert rec["status"] == "indexed", (rec["filename"], rec["error"])
        assert run.chunk_indexes[doc_id] == list(range(rec["chunk_count"])), rec["filename"]  # no duplicate, no gap
        assert run.indexed_events[doc_id] >= 1, rec["filename"]
    assert run.dead_letters == 0

"""``shared.kafka.spread_partitioner``: a document's page-work keys go round the partitions in
turn; every other key is placed as by Kafka's default partitioner (murmur2)."""
from __future__ import annotations

import uuid
from collections import Counter

from aiokafka.partitioner import DefaultPartitioner

from shared.kafka import spread_partitioner

PARTITIONS = list(range(12))


def test_document_keys_are_placed_as_by_kafka() -> None:
    default = DefaultPartitioner()
    for key in [uuid.uuid4().hex.encode() for _ in range(200)] + [b"index", b"dept-a", b"a:b", b"x:"]:
        assert spread_partitioner(key, PARTITIONS, PARTITIONS) == default(key, PARTITIONS, PARTITIONS)


def test_pages_of_a_document_go_round_the_partitions_and_the_workers() -> None:
    for _ in range(50):
        doc = uuid.uuid4().hex
        parts = [spread_partitioner(f"{doc}:{page}".encode(), PARTITIONS, PARTITIONS) for page in range(1, 21)]
        assert all((b - a) % 12 == 1 for a, b in zip(parts, parts[1:], strict=False))
        for workers in (2, 3, 4):  # the round-robin assignor gives worker w the partitions p ≡ w (mod W)
            shares = Counter(p % workers for p in parts)
            assert max(shares.values()) - min(shares.values()) <= 1, (workers, shares)


def test_the_document_part_of_a_page_key_decides_where_its_pages_start() -> None:
    doc = uuid.uuid4().hex
    start = DefaultPartitioner()(doc.encode(), PARTITIONS, PARTITIONS)
    assert spread_partitioner(f"{doc}:0".encode(), PARTITIONS, PARTITIONS) == start
    assert spread_partitioner(f"{doc}:5".encode(), PARTITIONS, PARTITIONS) == (start + 5) % 12
    assert spread_partitioner(None, PARTITIONS, [3]) == 3

"""A 3-broker Kafka loses a broker (kill -9) mid-ingest of 10 documents: every document ends
indexed, every chunk index once in Chroma, no dead letter, no operator action (how: see
``tests/brokers.py``). Ten short generated papers keep the run to a few minutes; the corpus run
is ``tests/chaos/test_brokers_chaos.py``."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.brokers import assert_nothing_lost, cluster_stack, kill_broker_mid_ingest
from tests.faults import small_papers
from tests.infra import Stack


@pytest.fixture(scope="module")
def cluster():
    yield from cluster_stack()


def test_a_broker_killed_mid_ingest_loses_and_duplicates_nothing(cluster: Stack, tmp_path: Path):
    run = kill_broker_mid_ingest(cluster, small_papers(tmp_path, "broker_kill"), timeout_s=600)
    print("\n" + run.summary("brokers e2e"))
    assert_nothing_lost(run)

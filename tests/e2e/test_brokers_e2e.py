"""A 3-broker Kafka loses a broker (kill -9) mid-ingest of 10 documents: every document ends
indexed, every chunk index once in Chroma, no dead letter, no operator action (how: see
``tests/brokers.py``). Ten short generated papers keep the run to a few minutes; the corpus run
is ``tests/chaos/test_brokers_chaos.py``."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.brokers import assert_nothing_lost, cluster_stack, kill_broker_mid_ingest
from tests.infra import Stack

PARAGRAPH = ("立法會財務委員會審議第{n}號撥款建議，涉及新發展區的基礎設施工程、補償及安置安排。"
             "政府表示，工程預算為{n}億元，預計於二〇三〇年完成，並會定期向委員會匯報進度。"
             "The Finance Committee considered funding proposal {n} for the infrastructure works of the "
             "new development area; the estimate is HK${n} billion and completion is expected in 2030.\n\n")


@pytest.fixture(scope="module")
def cluster():
    yield from cluster_stack()


def papers(tmp: Path, count: int = 10) -> list[tuple[Path, str]]:
    """``count`` small TXT papers of 3-4 chunks each (token strategy)."""
    out = []
    for n in range(1, count + 1):
        path = tmp / f"broker_kill_{n:02d}.txt"
        path.write_text("".join(PARAGRAPH.format(n=n * 10 + k) for k in range(12)), encoding="utf-8")
        out.append((path, "token"))
    return out


def test_a_broker_killed_mid_ingest_loses_and_duplicates_nothing(cluster: Stack, tmp_path: Path):
    run = kill_broker_mid_ingest(cluster, papers(tmp_path), timeout_s=600)
    print("\n" + run.summary("brokers e2e"))
    assert_nothing_lost(run)

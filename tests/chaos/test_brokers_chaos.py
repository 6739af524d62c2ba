"""The corpus run of the broker kill (``tests/brokers.py``): a 3-broker stack loses the embedder
group's coordinator (kill -9) mid-ingest of 10 corpus documents (the four fixture papers as
PDF and as DOCX, a TXT, a real press release). Not in ``make test`` (about 6 minutes of
ingest on a busy 2-core machine; ``pytest tests`` does not collect ``tests/chaos``, see
``norecursedirs`` in pyproject.toml); ``make chaos`` runs it."""
from __future__ import annotations

import pytest

from tests.brokers import assert_nothing_lost, cluster_stack, kill_broker_mid_ingest
from tests.conftest import FIXTURES, REAL
from tests.infra import Stack

DOCS = [(FIXTURES / f"{name}.{ext}", "question" if ext == "docx" else "token")
        for name in ("A_詳細數字一覽表", "B_古洞北粉嶺北新發展區概覽", "E_基礎設施", "L_補償及安置安排")
        for ext in ("pdf", "docx")] + [(FIXTURES / "E_基礎設施.txt", "question"),
                                       (REAL / "hk_isd_pr_remarks_sfs_media_session_en.pdf", "token")]


@pytest.fixture(scope="module")
def cluster():
    yield from cluster_stack()


def test_a_broker_killed_mid_corpus_ingest_loses_and_duplicates_nothing(cluster: Stack):
    run = kill_broker_mid_ingest(cluster, DOCS, timeout_s=900)
    print("\n" + run.summary("brokers chaos"))
    assert_nothing_lost(run)

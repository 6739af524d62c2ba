"""Killing the embedder mid-ingest: after it restarts every document ends indexed and no
chunk is duplicated (offsets are committed after handling; chunk ids are deterministic). The kill
lands part-way through one document's embedding, so its resumption is what is tested; the kill
at a random moment of a 10-paper ingest is ``tests/e2e/test_faults_e2e.py``."""
from __future__ import annotations

import time

from shared.vectorstore import VectorStore
from tests.conftest import REAL
from tests.e2e.helpers import upload, wait_terminal


def test_embedder_killed_mid_ingest_recovers_without_duplicates(stack, api):
    vectors = VectorStore(stack.settings())
    big = upload(api, REAL / "hk_policy_address_2019_zh.pdf")["document_id"]        # 24 pages
    deadline = time.monotonic() + 300
    while True:  # wait until the embedder is part-way through the big document
        rec = api.get(f"/api/v1/documents/{big}").json()
        if rec["stage"] == "embedding" and 0 < rec["pages_done"] < rec["pages_total"]:
            break
        assert rec["status"] != "indexed", "embedding finished before the kill; nothing tested"
        assert time.monotonic() < deadline, rec
        time.sleep(0.05)
    done_at_kill = rec["pages_done"]
    stack.ctl("ctl", "signal", "KILL", "embedder")      # kill -9: no graceful shutdown, no commit
    time.sleep(1)
    stack.ctl("ctl", "start", "embedder")               # no-op if supervisord already restarted it
    rec = wait_terminal(api, [big], timeout_s=600)[big]
    assert rec["status"] == "indexed", rec["error"]
    got = vectors.get_document_chunks(big)
    indexes = sorted(m["chunk_index"] for m in got["metadatas"])
    assert indexes == list(range(rec["chunk_count"]))   # no duplicates, no gaps
    assert len(got["ids"]) == len(set(got["ids"])) == rec["chunk_count"]
    assert rec["page_count"] == 24
    assert 0 < done_at_kill < rec["chunk_count"]

"""An outage is waited out, not failed: Chroma stopped mid-ingest for longer than the old
retries lasted; every document ends ``indexed``, no handler attempt is used up, the documents
said what they were waiting for, and nothing is duplicated."""
from __future__ import annotations

import time

from shared.vectorstore import VectorStore
from tests.conftest import FIXTURES
from tests.e2e.helpers import upload, wait_terminal
from tests.faults import retries_total

OUTAGE_S = 20  # the old contract gave up after 3 attempts within ~1.5 s
# ... and longer while no document has said it waits for Chroma yet (on a loaded machine the
# embedder can spend the first 20 s computing batches ahead before its next Chroma call)
OUTAGE_MAX_S = 180


def test_chroma_outage_mid_ingest_is_waited_out(stack, api):
    vectors = VectorStore(stack.settings())
    before = retries_total(stack)
    papers = (FIXTURES / "L_補償及安置安排.pdf", FIXTURES / "E_基礎設施.pdf",
              FIXTURES / "B_古洞北粉嶺北新發展區概覽.pdf")
    ids = [upload(api, p)["document_id"] for p in papers]
    deadline = time.monotonic() + 300
    while api.get(f"/api/v1/documents/{ids[0]}").json()["stage"] != "embedding":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    stack.ctl("stop", "chroma")
    waiting_seen: set[str] = set()
    t_min, t_max = time.monotonic() + OUTAGE_S, time.monotonic() + OUTAGE_MAX_S
    while time.monotonic() < t_min or ("Chroma" not in waiting_seen and time.monotonic() < t_max):
        for d in api.get("/api/v1/documents").json()["documents"]:
            if d["document_id"] in ids and d.get("waiting_for"):
                waiting_seen.add(d["waiting_for"])
            assert d["status"] != "failed" or d["document_id"] not in ids, d
        time.sleep(0.5)
    stack.ctl("start", "chroma")
    records = wait_terminal(api, ids, timeout_s=600)
    for doc_id in ids:
        assert records[doc_id]["status"] == "indexed", records[doc_id]["error"]
        got = vectors.get_document_chunks(doc_id)
        assert sorted(m["chunk_index"] for m in got["metadatas"]) == list(range(records[doc_id]["chunk_count"]))
    assert "Chroma" in waiting_seen
    assert retries_total(stack) == before   # the outage used no attempt (any stage's worker)

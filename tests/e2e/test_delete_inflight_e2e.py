"""Deletes that finish the job, on the real stack: the 64-page FAQ guide deleted while the parser
parses it (its child is killed) and again while the embedder embeds it. Each time the stage stops within
seconds (its log says when), the next document starts at once, and afterwards MinIO holds 0
objects and Chroma 0 vectors of the deleted document — with the reconciler's pass on top
finding nothing more to remove."""
from __future__ import annotations

import json
import time
from datetime import datetime
from typing import Any

import pytest

from shared import storage
from shared.storage import ObjectStore
from shared.vectorstore import VectorStore
from tests.conftest import FIXTURES, REAL
from tests.e2e.helpers import upload, wait_terminal

GUIDE = REAL / "hk_ld_ec_ordinance_guide_faq_en.pdf"  # 64 pages
SMALL = FIXTURES / "E_基礎設施.pdf"
STOP_S = 10  # the issue: a deleted document stops within seconds, the next one starts within 10 s


def stores(stack: Any) -> tuple[ObjectStore, VectorStore]:
    s = stack.settings()  # with the stack's generated MinIO credentials
    return ObjectStore(s), VectorStore(s)


def objects_of(store: ObjectStore, doc_id: str) -> int:
    return len(list(store.list_keys(storage.document_prefix(doc_id))))


def vectors_of(vectors: VectorStore, doc_id: str) -> int:
    return vectors.count_document_records(doc_id)


def stopped_at(stack: Any, program: str, doc_id: str, after: datetime, timeout_s: float = 60) -> float:
    """Seconds from ``after`` (local time) to the stage's log line (JSON, ``ts`` in UTC) saying
    it stopped work on ``doc_id``."""
    said = f"{doc_id} was deleted while it was worked on; stopped"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = "".join(p.read_text(encoding="utf-8", errors="replace")  # every replica's log
                       for p in sorted((stack.var / "log").glob(f"{program}-*.log")))
        for line in text.splitlines():
            if said in line:
                ts = datetime.fromisoformat(json.loads(line)["ts"]).astimezone().replace(tzinfo=None)
                return (ts - after).total_seconds()
        time.sleep(0.2)
    raise AssertionError(f"{program} never said it stopped work on {doc_id}")


def wait_until(predicate: Any, timeout_s: float, what: str) -> float:
    """Seconds until ``predicate()`` is true (asserts within ``timeout_s``)."""
    start = time.monotonic()
    while not predicate():
        assert time.monotonic() - start < timeout_s, what
        time.sleep(0.1)
    return time.monotonic() - start


def started(api: Any, doc_id: str) -> bool:
    return api.get(f"/api/v1/documents/{doc_id}").json()["stage"] != "uploaded"


def delete_and_check(stack: Any, api: Any, doc_id: str, program: str) -> dict[str, float]:
    """Delete ``doc_id``, upload the next document; the figures of the stop and the sweep."""
    store, vectors = stores(stack)
    before = objects_of(store, doc_id)
    deleted_at = datetime.now()
    assert api.delete(f"/api/v1/documents/{doc_id}").status_code == 200
    t0 = time.monotonic()
    nxt = upload(api, SMALL)["document_id"]
    next_started = wait_until(lambda: started(api, nxt), STOP_S, "the next document did not start")
    stop_s = stopped_at(stack, program, doc_id, deleted_at)
    wait_until(lambda: objects_of(store, doc_id) == 0 and vectors_of(vectors, doc_id) == 0, 30,
               "objects or vectors of the deleted document left")
    swept_s = time.monotonic() - t0
    time.sleep(5)  # nothing written late either
    assert (objects_of(store, doc_id), vectors_of(vectors, doc_id)) == (0, 0)
    assert store.exists(storage.tombstone_key(doc_id))
    report = api.post("/api/v1/reconcile").json()
    assert doc_id not in report["documents"]  # the stages swept their own writes
    assert (objects_of(store, doc_id), vectors_of(vectors, doc_id)) == (0, 0)
    assert wait_terminal(api, [nxt], timeout_s=300)[nxt]["status"] == "indexed"
    assert api.get(f"/api/v1/documents/{doc_id}").status_code == 404
    figures = {"objects_before": before, "stop_s": round(stop_s, 2), "next_started_s": round(next_started, 2),
               "swept_s": round(swept_s, 2), "total_s": round(time.monotonic() - t0, 2)}
    print(f"{program}: {figures}")
    assert stop_s < STOP_S
    return figures


def test_delete_while_the_parser_parses(stack, api):
    doc_id = upload(api, GUIDE)["document_id"]
    wait_until(lambda: api.get(f"/api/v1/documents/{doc_id}").json()["stage"] == "parsing", 300,
               "the parser did not start")
    time.sleep(1)  # in the isolated parse of 64 pages, or writing its page PDFs
    delete_and_check(stack, api, doc_id, "parser")


@pytest.mark.parametrize("strategy", ["question"])
def test_delete_while_the_embedder_embeds(stack, api, strategy):
    _, vectors = stores(stack)
    doc_id = upload(api, GUIDE, strategy)["document_id"]
    wait_until(lambda: vectors_of(vectors, doc_id) > 0, 600, "the embedder wrote no vector")
    delete_and_check(stack, api, doc_id, "embedder")

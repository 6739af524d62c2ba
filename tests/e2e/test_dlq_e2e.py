"""Dead letters you can act on, on the real stack: with the outage limit set small, the
embeddings endpoint stopped past it dead-letters a document (its cause fixable); ``legco dlq
list`` shows it; once the endpoint is back, ``legco dlq replay`` republishes it to the embedding
stage and the document ends ``indexed`` exactly once (one ``documents.indexed`` event, every
``chunk_index`` once in Chroma)."""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time

import httpx

from shared import topics
from shared.events import DocumentIndexed
from shared.settings import Settings
from shared.topic_reader import read_topic
from shared.vectorstore import VectorStore
from tests.conftest import FIXTURES, REPO
from tests.e2e.helpers import upload, wait_terminal
from tests.infra import OFFSET

OUTAGE_LIMIT_S = 12


def legco(stack, *args: str) -> subprocess.CompletedProcess[str]:
    """``legco ARGS`` against the test stack (admin key)."""
    return subprocess.run([sys.executable, "-m", "cli.main", "--url", stack.gateway_url, *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120, env={**os.environ, **stack.env})


def start_e5(stack) -> None:
    """Start the embeddings server (if stopped) and wait until it answers."""
    with contextlib.suppress(subprocess.CalledProcessError):  # already running
        stack.ctl("start", "e5")
    deadline = time.monotonic() + 180
    while True:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://127.0.0.1:{8200 + OFFSET}/health", timeout=5).status_code == 200:
                return
        assert time.monotonic() < deadline, "e5 did not come back"
        time.sleep(1)


def indexed_events(stack, document_id: str) -> int:
    """How many ``documents.indexed`` events the topic holds for ``document_id``."""
    settings = Settings(kafka_bootstrap=stack.env["KAFKA_BOOTSTRAP"])
    records = asyncio.run(read_topic(settings, topics.INDEXED, 30))
    return sum(1 for r in records if DocumentIndexed.model_validate_json(r.value or b"").document_id == document_id)


def test_dead_lettered_document_is_replayed_to_indexed_once(stack, api):
    stack.reconfigure({"OUTAGE_LIMIT_S": str(OUTAGE_LIMIT_S)})
    try:
        vectors = VectorStore(Settings(chroma_host=stack.env["CHROMA_HOST"],
                                       chroma_port=int(stack.env["CHROMA_PORT"])))
        stack.ctl("stop", "e5")
        doc_id = upload(api, FIXTURES / "E_基礎設施.pdf")["document_id"]
        rec = wait_terminal(api, [doc_id], timeout_s=300)[doc_id]
        assert rec["status"] == "failed" and "embeddings endpoint" in rec["error"], rec
        assert vectors.get_document_chunks(doc_id)["ids"] == []  # a failed document is not searchable

        listed = legco(stack, "dlq", "list", "--json")
        assert listed.returncode == 0, listed.stderr
        [letter] = [d for d in json.loads(listed.stdout)["deadletters"] if d["document_id"] == doc_id]
        assert (letter["stage"], letter["attempts"], letter["status"]) == ("embedding", 0, "failed")
        assert "embeddings endpoint" in letter["reason"] and letter["ts"]
        table = legco(stack, "dlq", "list")
        assert table.returncode == 0 and "E_基礎設施.pdf" in table.stdout and "embedding" in table.stdout

        start_e5(stack)  # the cause fixed
        t0 = time.monotonic()
        replayed = legco(stack, "dlq", "replay", doc_id)
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
        assert "replayed E_基礎設施.pdf: 1 event(s) to embedding" in replayed.stdout
        rec = wait_terminal(api, [doc_id], timeout_s=300)[doc_id]
        took = time.monotonic() - t0
        assert rec["status"] == "indexed", rec
        print(f"replay to indexed: {took:.1f} s, {rec['chunk_count']} chunks")
        again = legco(stack, "dlq", "replay", doc_id)  # not failed any more: nothing republished
        assert again.returncode == 1 and "not failed" in again.stdout

        time.sleep(3)  # late events of either run would show now
        assert api.get(f"/api/v1/documents/{doc_id}").json()["status"] == "indexed"
        got = vectors.get_document_chunks(doc_id)
        indexes = [m["chunk_index"] for m in got["metadatas"]]
        assert sorted(indexes) == list(range(rec["chunk_count"])) and len(set(indexes)) == len(indexes)
        assert indexed_events(stack, doc_id) == 1
        assert api.post("/api/v1/deadletters/replay", json={"document_ids": ["f" * 32]}).status_code == 404
    finally:
        start_e5(stack)
        stack.reconfigure({"OUTAGE_LIMIT_S": "1800"})

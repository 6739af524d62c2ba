"""Rebuild from MinIO, on the real stack: ``legco reindex`` builds a new index generation from the
chunk sets in MinIO while queries go on answering from the current one, and switches when it is
complete; after Chroma's data directory is deleted, ``legco reindex`` brings every document back
with the same chunks, and the same question finds the same papers.

A reindex rebuilds every document of the stack, so this test runs on a stack of its own (ports:
the test offset + 1050, which no port of the session stack's, the 3-broker stack's (+500) or the
chaos stack's (+700) meets) holding only its two papers: on the session stack it re-embedded every
other test's documents twice (7 minutes of ``make test``)."""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
import time
from typing import Any

import httpx
import pytest

from shared.vectorstore import VectorStore
from tests.conftest import FIXTURES, REPO
from tests.e2e.helpers import upload, wait_terminal
from tests.infra import OFFSET, Stack, start_stack, stop_stack

PAPERS = (FIXTURES / "E_基礎設施.pdf", FIXTURES / "B_古洞北粉嶺北新發展區概覽.pdf")
QUESTION = "古洞北新發展區的基礎設施"


REINDEX_OFFSET = OFFSET + 1050


@pytest.fixture(scope="module")
def own_stack():
    """A stack of its own, stopped afterwards."""
    s = start_stack(offset=REINDEX_OFFSET)
    yield s
    stop_stack(s)


@pytest.fixture(scope="module")
def own_api(own_stack: Stack):
    with own_stack.client() as c:
        yield c


def legco(stack: Any, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", "--url", stack.gateway_url, *args], cwd=REPO,
                          capture_output=True, text=True, timeout=900, env={**os.environ, **stack.env})


def chunk_indexes(stack: Any, doc_ids: list[str]) -> dict[str, list[int]]:
    """Per document, the sorted chunk_index values in the current generation (pointer re-read)."""
    vectors = VectorStore(stack.settings())
    return {d: sorted(m["chunk_index"] for m in vectors.get_document_chunks(d)["metadatas"]) for d in doc_ids}


def top_documents(api: httpx.Client) -> list[str]:
    r = api.post("/api/v1/query", json={"question": QUESTION, "top_k": 3})
    assert r.status_code == 200, r.text
    return [s["document_id"] for s in r.json()["sources"]]


def reindex_while_querying(stack: Any, api: httpx.Client) -> tuple[subprocess.CompletedProcess[str], list[int]]:
    """``legco reindex`` with a question every 0.5 s meanwhile; the command and the status codes."""
    codes: list[int] = []
    stop = threading.Event()

    def ask() -> None:
        with stack.client() as c:
            while not stop.is_set():
                codes.append(c.post("/api/v1/query", json={"question": QUESTION, "top_k": 3}).status_code)
                time.sleep(0.5)

    asker = threading.Thread(target=ask)
    asker.start()
    try:
        out = legco(stack, "reindex")
    finally:
        stop.set()
        asker.join()
    return out, codes


def follows_switch(api: httpx.Client, top_before: list[str], timeout_s: float = 60) -> bool:
    """The query service answers with the same top documents as before the reindex within
    ``timeout_s`` (it follows the generation switch from an event, so not at once: once, on a
    loaded CI, the third source 2 s after the switch still came from its old state)."""
    deadline = time.monotonic() + timeout_s
    while top_documents(api) != top_before:
        if time.monotonic() > deadline:
            return False
        time.sleep(1)
    return True


def test_reindex_switches_only_when_complete_and_rebuilds_lost_chroma_data(own_stack, own_api):
    stack, api = own_stack, own_api
    ids = [upload(api, p)["document_id"] for p in PAPERS]
    records = wait_terminal(api, ids, timeout_s=600)
    assert all(r["status"] == "indexed" for r in records.values()), records
    before = chunk_indexes(stack, ids)
    assert all(before[d] == list(range(records[d]["chunk_count"])) for d in ids)
    top_before = top_documents(api)

    t0 = time.monotonic()
    out, codes = reindex_while_querying(stack, api)
    took = time.monotonic() - t0
    assert out.returncode == 0, out.stdout + out.stderr
    assert "done" in out.stdout and "generation 1" in out.stdout
    assert codes and set(codes) == {200}, codes  # queries kept answering from the old generation
    time.sleep(2)
    assert chunk_indexes(stack, ids) == before
    assert api.get("/api/v1/reindex").json()["state"] == "done"
    assert follows_switch(api, top_before)
    print(f"reindex of {len(ids)} documents: {took:.1f} s, {len(codes)} questions answered meanwhile, all 200")

    # Chroma's data lost: stop it, delete its directory, start it empty
    stack.ctl("stop", "chroma")
    shutil.rmtree(stack.var / "chroma")
    stack.ctl("start", "chroma")
    heartbeat = f"http://{stack.env['CHROMA_HOST']}:{stack.env['CHROMA_PORT']}/api/v2/heartbeat"
    deadline = time.monotonic() + 120
    while True:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(heartbeat, timeout=5).status_code == 200:
                break
        assert time.monotonic() < deadline
        time.sleep(1)
    assert all(not v for v in chunk_indexes(stack, ids).values())
    out = legco(stack, "reindex")
    assert out.returncode == 0, out.stdout + out.stderr
    time.sleep(2)
    assert chunk_indexes(stack, ids) == before
    assert follows_switch(api, top_before)

"""Helpers for driving the API in end-to-end tests."""
from __future__ import annotations

import time
from pathlib import Path

import httpx


def upload(api: httpx.Client, path: Path, strategy: str = "token") -> dict:
    """Upload one file; asserts 202 and returns the response JSON."""
    with path.open("rb") as f:
        r = api.post("/api/v1/ingest", params={"strategy": strategy}, files={"file": (path.name, f)})
    assert r.status_code == 202, r.text
    return r.json()


def wait_terminal(api: httpx.Client, doc_ids: list[str], timeout_s: float = 600) -> dict[str, dict]:
    """Poll until every document is ``indexed`` or ``failed``; returns their records by id."""
    deadline = time.monotonic() + timeout_s
    while True:
        docs = {d["document_id"]: d for d in api.get("/api/v1/documents").json()["documents"]}
        done = {i: docs[i] for i in doc_ids if i in docs and docs[i]["status"] in ("indexed", "failed")}
        if len(done) == len(doc_ids):
            return done
        if time.monotonic() > deadline:
            pending = {i: docs.get(i, {}).get("stage") for i in doc_ids if i not in done}
            raise AssertionError(f"documents not finished after {timeout_s}s: {pending}")
        time.sleep(0.5)

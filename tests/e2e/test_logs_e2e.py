"""One document's journey, followed with a grep: after a real PDF went through the running
stack, every line of our services' log files is one JSON object, and the lines that name the
document come from every stage (upload, parsing, tables, splitting, embedding) with its
department. The gateway serves the pipeline's AsyncAPI document with every topic."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from shared import topics
from tests.conftest import REAL
from tests.e2e.helpers import upload, wait_terminal

SERVICES = ("gateway", "query", "parser", "tables-", "splitter", "embedder", "e5")
"""Log files of our processes (``var/log/<name>.log``); Kafka, MinIO, Chroma and supervisord
write their own formats."""
KEYS = {"ts", "level", "logger", "message", "service", "document_id", "department", "stage"}


def service_logs(var: Path) -> list[Path]:
    files = [p for p in sorted((var / "log").glob("*.log")) if p.stem.startswith(SERVICES)]
    assert {p.stem.split("-")[0] for p in files} >= {"gateway", "query", "parser", "tables", "splitter", "embedder"}
    return files


def test_one_document_is_followed_through_every_stage_by_its_id(stack, api: httpx.Client) -> None:
    doc = upload(api, REAL / "hk_csb_coai_exam_venues_reply_zh.pdf")  # 3 pages: page fan-out and gather
    rec = wait_terminal(api, [doc["document_id"]])[doc["document_id"]]
    assert rec["status"] == "indexed", rec["error"]
    doc_id, department = doc["document_id"], doc["department"]

    journey: list[dict[str, Any]] = []
    lines = 0
    for path in service_logs(stack.var):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            lines += 1
            try:
                entry = json.loads(line)
            except ValueError:
                raise AssertionError(f"{path.name}:{n} is not JSON: {line[:200]}") from None
            assert isinstance(entry, dict) and set(entry) >= KEYS, f"{path.name}:{n}: {line[:200]}"
            if doc_id in line:  # what `grep <document_id> var/log/*.log` finds
                journey.append({**entry, "file": path.name})
    assert lines > 100
    named = [e for e in journey if e["document_id"] == doc_id]
    assert all(e["department"] == department for e in named), [e for e in named if e["department"] != department]
    stages = {e["stage"] for e in named}
    assert stages >= {"uploaded", "parsing", "tables", "splitting", "embedding"}, stages
    by_stage = {s: {e["file"].split("-")[0].removesuffix(".log") for e in named if e["stage"] == s} for s in stages}
    assert by_stage["parsing"] >= {"parser"} and by_stage["tables"] >= {"tables"}, by_stage
    assert by_stage["splitting"] >= {"splitter"} and by_stage["embedding"] >= {"embedder"}, by_stage
    done = {e["stage"] for e in named if e["message"].startswith(f"{e['stage']} done in ")}
    assert done >= {"parsing", "tables", "splitting", "embedding"}, done
    # FastStream's own per-message lines name the document too (the Kafka middleware)
    assert {e["message"] for e in named} >= {"Received", "Processed"}
    # a line that mentions the document but names none is an HTTP access line at most
    assert all(e["logger"] == "uvicorn.access" for e in journey if e["document_id"] != doc_id)


def test_the_gateway_serves_every_topic_at_asyncapi(stack) -> None:
    resp = httpx.get(f"{stack.gateway_url}/asyncapi", timeout=30)  # no key, like /openapi.json
    assert resp.status_code == 200
    doc = resp.json()
    assert {c["address"] for c in doc["channels"].values()} == set(topics.ALL_TOPICS)

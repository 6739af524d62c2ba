"""Outages are waited out without using attempts; bugs get the bounded attempts; an outage
longer than the limit is dead-lettered naming the dependency; the status never moves back."""
from __future__ import annotations

import asyncio

import httpx
import openai
import pytest
import urllib3
from aiokafka.errors import KafkaConnectionError
from faststream.kafka import TestKafkaBroker

from services.gateway.registry import apply_progress
from shared.api import DocumentRecord
from shared.errors import DependencyError, DocumentError
from shared.events import DocumentUploaded, ProgressEvent
from shared.outage import dependency_of
from shared.settings import Settings
from shared.stage import Stage

S = Settings(chroma_port=8000, embeddings_base_url="http://127.0.0.1:8200/v1")


def _httpx_error(url: str) -> httpx.ConnectError:
    return httpx.ConnectError("refused", request=httpx.Request("GET", url))


@pytest.mark.parametrize(("error", "dependency"), [
    (urllib3.exceptions.MaxRetryError(None, "/legco", "refused"), "MinIO"),
    (ValueError("Could not connect to a Chroma server. Are you sure it is running?"), "Chroma"),
    (_httpx_error("http://127.0.0.1:8000/api/v2/heartbeat"), "Chroma"),
    (openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:8200/v1/embeddings")),
     "the embeddings endpoint"),
    (KafkaConnectionError("no broker"), "Kafka"),
    (DependencyError("Chroma", "timeout"), "Chroma"),
    (RuntimeError("wrapped"), None),
    (KeyError("documents/x/chunks.json"), None),
    (DocumentError("corrupt"), None),
])
def test_dependency_of(error: BaseException, dependency: str | None) -> None:
    assert dependency_of(error, S) == dependency


def test_dependency_of_follows_causes() -> None:
    try:
        try:
            raise KafkaConnectionError("down")
        except KafkaConnectionError as inner:
            raise RuntimeError("publish failed") from inner
    except RuntimeError as e:
        assert dependency_of(e, S) == "Kafka"


class Store:
    def exists(self, key: str) -> bool:
        return not key.startswith("tombstones/")

    def document_live(self, document_id: str) -> bool:
        return True


def _stage(**settings: float) -> Stage:
    s = Settings(handler_retry_base_s=0.001, outage_retry_base_s=0.01, outage_retry_max_s=0.02, **settings)
    stage = Stage("test-outage", progress_stage="parsing", settings=s)
    stage.provide(store=Store())
    return stage


EVENT = DocumentUploaded(document_id="0" * 32, filename="a.pdf", strategy="token", object_key="k",
                         size_bytes=1, sha256="x", upload_date="2026-12-01")


async def test_outage_uses_no_attempt_and_reports_waiting() -> None:
    stage = _stage()
    calls = 0
    gate_closed_seen = False

    async def work() -> str:
        nonlocal calls, gate_closed_seen
        calls += 1
        if calls <= 5:  # more failures than handler_max_attempts: only an outage may survive them
            gate_closed_seen = gate_closed_seen or not stage.outages.clear.is_set()
            raise DependencyError("Chroma", "connection refused")
        return "done"

    async with TestKafkaBroker(stage.broker):
        assert await stage.run(EVENT, "t", work) == "done"
        progress = [c.args[0] for c in stage.pubs.progress.mock.call_args_list]
        stage.pubs.dead_letter.mock.assert_not_called()
    assert calls == 6 and gate_closed_seen and stage.outages.clear.is_set()
    assert [p["waiting_for"] for p in progress] == ["Chroma"]  # said once, not at every retry


async def test_a_bug_gets_bounded_attempts() -> None:
    stage = _stage()

    async def work() -> None:
        raise RuntimeError("a bug")

    async with TestKafkaBroker(stage.broker):
        assert await stage.run(EVENT, "t", work) is None
        dead = stage.pubs.dead_letter.mock.call_args.args[0]
    assert dead["attempts"] == stage.settings.handler_max_attempts


async def test_an_outage_past_the_limit_is_dead_lettered_naming_the_dependency() -> None:
    stage = _stage(outage_limit_s=0.05)

    async def work() -> None:
        await asyncio.sleep(0.01)
        raise DependencyError("MinIO")

    async with TestKafkaBroker(stage.broker):
        assert await stage.run(EVENT, "t", work) is None
        last = stage.pubs.progress.mock.call_args.args[0]
        stage.pubs.dead_letter.mock.assert_called_once()
    assert last["status"] == "failed" and "MinIO could not be reached" in last["error"]


async def test_after_an_outage_past_the_limit_the_stage_takes_work_again() -> None:
    stage = _stage(outage_limit_s=0.05)
    down = True

    async def work() -> str:
        if down:
            await asyncio.sleep(0.01)
            raise DependencyError("the embeddings endpoint")
        return "done"

    async with TestKafkaBroker(stage.broker):
        assert await stage.run(EVENT, "t", work) is None
        assert stage.outages.clear.is_set()  # the gate is open: later events (a replay) are dispatched
        assert await stage.run(EVENT, "t", work) is None  # still down: past the limit at once
        assert stage.pubs.dead_letter.mock.call_count == 2
        down = False
        assert await stage.run(EVENT, "t", work) == "done"  # back: the replayed event goes through
    assert stage.outages.since == {} and stage.outages.clear.is_set()


def _record(status: str) -> DocumentRecord:
    return DocumentRecord(document_id="0" * 32, filename="a.pdf", strategy="token", status=status,
                          upload_date="2026-12-01")


@pytest.mark.parametrize("final", ["indexed", "failed"])
@pytest.mark.parametrize("late", ["processing", "indexed", "failed"])
def test_a_late_event_never_moves_a_status_back(final: str, late: str) -> None:
    rec = _record(final)
    event = ProgressEvent(document_id=rec.document_id, stage="parsing", status=late)  # type: ignore[arg-type]
    assert apply_progress(rec, event) is rec


def test_waiting_keeps_the_counts_and_the_next_step_clears_it() -> None:
    rec = _record("processing").model_copy(update={"pages_done": 8, "pages_total": 18, "unit": "chunks"})
    waiting = apply_progress(rec, ProgressEvent(document_id=rec.document_id, stage="embedding",
                                                status="processing", waiting_for="Chroma"))
    assert waiting.waiting_for == "Chroma" and (waiting.pages_done, waiting.pages_total) == (8, 18)
    on = apply_progress(waiting, ProgressEvent(document_id=rec.document_id, stage="embedding",
                                               status="processing", pages_done=9, pages_total=18, unit="chunks"))
    assert on.waiting_for is None and on.pages_done == 9

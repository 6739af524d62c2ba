"""The splitter's progress shows the LLM verification pass (issue 17): the service's handler under
FastStream's in-memory ``TestKafkaBroker``, an in-memory object store and the fake
OpenAI-compatible server as the LLM. While the pass runs, the ``splitting`` progress events say
``step="verifying"`` with the pairs done of the pairs to send; the final event clears it."""
from __future__ import annotations

import importlib
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from faststream.kafka import TestKafkaBroker

from shared import storage
from shared.events import DocumentTablesDone, ProgressEvent
from shared.settings import Settings
from tests.fake_vision import FakeVisionServer
from tests.memory_store import MemoryStore
from tests.unit.splitter.test_splitter_verification import EXPECTED, doc


@pytest.fixture()
def fake() -> Iterator[FakeVisionServer]:
    server = FakeVisionServer(text_answer=json.dumps({"correct_boundary": True})).start()
    yield server
    server.stop()


@pytest.fixture()
def splitter(fake: FakeVisionServer) -> Iterator[tuple[Any, MemoryStore, Settings]]:
    """``services.splitter.main`` handed the store and settings with the fake LLM; the stage's
    previous clients put back afterwards."""
    module = importlib.import_module("services.splitter.main")
    stage = module.stage
    before = {k: stage.client(k) for k in ("settings", "store") if _has(stage, k)}
    settings = Settings(_env_file=None, llm_base_url=fake.base_url, llm_model="chat",  # type: ignore[call-arg]
                        qa_verification_answer_tokens=120)
    store = MemoryStore()
    stage.provide(settings=settings, store=store)
    yield module, store, settings
    stage.provide(**before)


def _has(stage: Any, name: str) -> bool:
    try:
        stage.client(name)
    except KeyError:
        return False
    return True


def _event(store: MemoryStore, text: str | None = None) -> DocumentTablesDone:
    """A ``DocumentTablesDone`` for the verification tests' paper (or one page of ``text``),
    its pages put in ``store``."""
    doc_id = uuid.uuid4().hex
    d = doc().model_copy(update={"document_id": doc_id})
    if text is not None:
        d.pages[0].text = text
    key = storage.pages_key(doc_id)
    store.objects[key] = d
    return DocumentTablesDone(document_id=doc_id, filename="d.txt", strategy="question", file_type="txt",
                              page_count=1, pages_key=key)


async def test_the_splitting_progress_counts_the_pairs_being_verified(splitter, fake) -> None:
    module, store, _ = splitter
    stage = module.stage
    async with TestKafkaBroker(stage.broker) as br:
        await br.publish(_event(store), module.INPUT_TOPIC)
        sent = [ProgressEvent.model_validate(c.args[0]) for c in stage.pubs.progress.mock.call_args_list]
        stage.pubs.output.mock.assert_called_once()
    n = len(EXPECTED)
    assert fake.calls == n
    assert {e.stage for e in sent} == {"splitting"}
    assert [(e.step, e.step_done, e.step_total) for e in sent] == [
        (None, 0, 0), *(("verifying", k, n) for k in range(n + 1)), (None, 0, 0)]
    assert sent[-1].chunk_count and sent[-1].strategy_used == "question"


async def test_without_pairs_to_verify_no_step_is_reported(splitter, fake) -> None:
    module, store, _ = splitter
    stage = module.stage
    plain = "備用問答\n" + "".join(f"問 A{k}：問題{k}？\n答 A{k}：答案{k}。\n" for k in range(1, 4))
    async with TestKafkaBroker(stage.broker) as br:
        await br.publish(_event(store, plain), module.INPUT_TOPIC)
        sent = [ProgressEvent.model_validate(c.args[0]) for c in stage.pubs.progress.mock.call_args_list]
        stage.pubs.output.mock.assert_called_once()
    assert fake.calls == 0 and [e.step for e in sent] == [None, None]

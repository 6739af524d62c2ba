"""The verification pass's replies are cached by pair in MinIO (the test stack's, real): the
same document split again by a new checker — another ingest, another replica — makes no call."""
from __future__ import annotations

import json
import uuid

import pytest

from services.splitter.llm_check import CACHE_PREFIX, OpenAIBoundaryChecker
from services.splitter.split import split_document
from shared.storage import ObjectStore
from tests.conftest import settings_env
from tests.fake_vision import FakeVisionServer
from tests.unit.splitter.test_splitter_verification import EXPECTED, doc


@pytest.fixture(scope="module")
def fake():
    f = FakeVisionServer(text_answer=json.dumps({"correct_boundary": True})).start()
    yield f
    f.stop()


@pytest.fixture(scope="module")
def settings(stack, fake):
    env = {**{k: stack.env[k] for k in ("MINIO_ENDPOINT", "MINIO_ACCESS_KEY", "MINIO_SECRET_KEY")},
           "LLM_BASE_URL": fake.base_url, "LLM_MODEL": "chat",
           "QA_VERIFICATION_MODEL": f"verify-{uuid.uuid4().hex}",  # a fresh cache key space per run
           "QA_VERIFICATION_ANSWER_TOKENS": "120"}
    with settings_env(env) as s:
        yield s


def test_a_second_ingest_makes_no_call(settings, fake):
    store = ObjectStore(settings)
    store.ensure_bucket()
    first = OpenAIBoundaryChecker(settings, store)
    split_document(doc(), "question", settings, llm=first)
    assert first.calls == len(EXPECTED)
    assert len(list(store.list_keys(CACHE_PREFIX))) >= len(EXPECTED)
    again = OpenAIBoundaryChecker(settings, store)  # a new checker: nothing in its memory
    split_document(doc(), "question", settings, llm=again)
    assert again.calls == 0 and fake.calls == len(EXPECTED)

"""Streaming answers on the real test stack (issue 17): ``POST /api/v1/query/stream`` through the
gateway, with the query service pointed at the local fake OpenAI-compatible server
(``tests/fake_vision.py``, which streams its answer one word per delta and can hold the stream
after the first word). Checks that the sources arrive first, that the first token is read before
the answer is complete, that ``done`` carries the final response, that an answer from the cache
replays as ``sources`` + ``done``, and that the figure guard applies to both routes. Then the web
app in Chromium (``frontend/e2e/stream.e2e.mjs``) shows the first word with "Writing the
answer…" before the rest is released, and the whole answer after.
"""
from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import FIXTURES, REPO
from tests.e2e.test_ui_e2e import browser_ready  # noqa: F401 - the fixture, used by name
from tests.fake_vision import FakeVisionServer
from tests.infra import Stack

DEPARTMENT = "stream-e2e"
QUESTION = "蓄洪池建喺屋企附近，會唔會有異味同埋衞生問題？"  # E_基礎設施's truth query for A2
UI_QUESTION = "新發展區鋪築大量地面後，政府點樣確保上水粉嶺唔會更易水浸？"  # for A1: not in the answer cache
SCREENSHOTS = REPO / "var" / "screenshots"
KEPT = "The storage tank is covered and deodorised, and the drainage works follow the plan [1]."
INVENTED = "The tank will cost HK$987,654,321 and holds 42,000 cubic metres [1]."


def events(resp: httpx.Response) -> Iterator[tuple[str, dict]]:
    """``(event, data as JSON)`` of a ``text/event-stream`` response, as they arrive."""
    name, data = "message", []
    for line in resp.iter_lines():
        if not line:
            if data:
                yield name, json.loads("\n".join(data))
            name, data = "message", []
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))


@pytest.fixture(scope="module")
def llm(stack: Stack, api: httpx.Client) -> Iterator[FakeVisionServer]:
    """The stack's query service asking the fake chat LLM; E_基礎設施.txt (question strategy)
    indexed in ``DEPARTMENT``. Restored and deleted afterwards."""
    fake = FakeVisionServer(text_answer=KEPT).start()
    stack.reconfigure({"LLM_BASE_URL": fake.base_url, "LLM_MODEL": f"fake-chat-{uuid.uuid4().hex[:8]}"})
    path = FIXTURES / "E_基礎設施.txt"
    r = api.post("/api/v1/ingest", params={"strategy": "question", "department": DEPARTMENT},
                 files={"file": (path.name, path.read_bytes())})
    assert r.status_code == 202, r.text
    doc_id = r.json()["document_id"]
    deadline = time.monotonic() + 600
    while (rec := api.get(f"/api/v1/documents/{doc_id}").json())["status"] not in ("indexed", "failed"):
        assert time.monotonic() < deadline, f"not indexed in 600 s: {rec}"
        time.sleep(0.5)
    assert rec["status"] == "indexed", rec["error"]
    # the restarted query service answers (and its keyword index holds the document) before the tests
    deadline = time.monotonic() + 180
    while True:
        q = api.post("/api/v1/query", params={"department": DEPARTMENT}, headers={"Cache-Control": "no-cache"},
                     json={"question": QUESTION, "top_k": 5})
        if q.status_code == 200 and q.json()["keyword_search"] and q.json()["answer_mode"] == "llm":
            break
        assert time.monotonic() < deadline, f"the query service did not answer with the LLM: {q.status_code} {q.text}"
        time.sleep(1.0)
    yield fake
    fake.stream_gate.set()
    api.delete(f"/api/v1/documents/{doc_id}")
    stack.reconfigure({"LLM_BASE_URL": "", "LLM_MODEL": ""})
    fake.stop()


def test_the_first_token_arrives_before_the_answer_is_complete(api: httpx.Client, llm: FakeVisionServer) -> None:
    llm.text_answer = KEPT
    llm.stream_gate.clear()  # the fake sends one word, then waits
    seen: list[tuple[str, dict]] = []
    with api.stream("POST", "/api/v1/query/stream", params={"department": DEPARTMENT},
                    headers={"Cache-Control": "no-cache"}, json={"question": QUESTION, "top_k": 5}) as resp:
        assert resp.status_code == 200
        assert resp.headers["content-type"].startswith("text/event-stream")
        for name, data in events(resp):
            seen.append((name, data))
            if name == "token" and not llm.stream_gate.is_set():
                # read while the model still holds the rest of its answer
                assert [n for n, _ in seen] == ["sources", "token"]
                assert data["text"] == KEPT.split(" ")[0]
                llm.stream_gate.set()
    names = [n for n, _ in seen]
    assert names[0] == "sources" and names[-1] == "done" and names.count("done") == 1
    sources, done = seen[0][1], seen[-1][1]
    assert sources["answer"] == "" and sources["answer_mode"] == "llm" and sources["covered"] is True
    assert sources["sources"] and sources["sources"][0]["question_id"] == "A2"
    assert sources["direct"]["question_id"] == "A2"
    tokens = "".join(d["text"] for n, d in seen if n == "token")
    assert names.count("token") == len(KEPT.split(" ")) and tokens == KEPT
    assert done["answer"] == KEPT and done["answer_mode"] == "llm" and done["guard"] is None
    assert done["sources"] == sources["sources"]

    # asked again: the answer cache replays it as sources + done, no tokens, no LLM call
    calls = llm.calls
    with api.stream("POST", "/api/v1/query/stream", params={"department": DEPARTMENT},
                    json={"question": QUESTION, "top_k": 5}) as resp:
        replay = list(events(resp))
    assert [n for n, _ in replay] == ["sources", "done"] and replay[1][1]["answer"] == KEPT
    assert llm.calls == calls


def test_the_figure_guard_applies_to_a_streamed_answer(api: httpx.Client, llm: FakeVisionServer) -> None:
    llm.text_answer = INVENTED
    with api.stream("POST", "/api/v1/query/stream", params={"department": DEPARTMENT},
                    headers={"Cache-Control": "no-cache"}, json={"question": QUESTION, "top_k": 5}) as resp:
        seen = list(events(resp))
    tokens = "".join(d["text"] for n, d in seen if n == "token")
    assert tokens == INVENTED  # streamed as written ...
    done = seen[-1][1]
    assert seen[-1][0] == "done" and done["answer_mode"] == "extractive"  # ... then replaced
    assert done["guard"] and "987,654,321" in done["guard"]
    assert "987,654,321" not in done["answer"] and done["direct"]["text"] in done["answer"]
    # the JSON route says the same
    r = api.post("/api/v1/query", params={"department": DEPARTMENT}, headers={"Cache-Control": "no-cache"},
                 json={"question": QUESTION, "top_k": 5})
    assert r.status_code == 200 and r.json()["guard"] == done["guard"]


def test_a_stream_for_another_department_finds_nothing(stack: Stack, llm: FakeVisionServer) -> None:
    """A key of another department streams an answer without this department's paper."""
    with httpx.Client(base_url=stack.gateway_url, timeout=60.0, headers=stack.auth()) as admin:
        r = admin.post("/api/v1/keys", json={"department": "stream-e2e-other", "role": "member", "label": "stream"})
        assert r.status_code in (200, 201), r.text
        key = r.json()["key"]
        try:
            with httpx.Client(base_url=stack.gateway_url, timeout=60.0,
                              headers={"Authorization": f"Bearer {key}"}) as other, \
                    other.stream("POST", "/api/v1/query/stream", json={"question": QUESTION, "top_k": 5}) as resp:
                seen = list(events(resp))
            for _, data in seen:
                assert all(s["department"] != DEPARTMENT for s in data.get("sources", []))
            unauth = httpx.post(f"{stack.gateway_url}/api/v1/query/stream", json={"question": QUESTION})
            assert unauth.status_code == 401
        finally:
            admin.delete(f"/api/v1/keys/{key.split('_')[1]}")


def test_the_web_app_shows_the_answer_as_it_streams(stack: Stack, api: httpx.Client, llm: FakeVisionServer,
                                                    browser_ready: None) -> None:  # noqa: F811
    llm.text_answer = KEPT
    llm.stream_gate.clear()
    r = api.post("/api/v1/keys", json={"department": DEPARTMENT, "role": "member", "label": "stream ui"})
    assert r.status_code in (200, 201), r.text
    key = r.json()["key"]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "LEGCO_E2E_MEMBER_KEY": key, "STREAM_E2E_QUESTION": UI_QUESTION,
           "STREAM_E2E_FIRST_WORD": KEPT.split(" ")[0], "STREAM_E2E_ANSWER": KEPT}
    lines: list[str] = []
    try:
        with subprocess.Popen(["node", str(REPO / "frontend" / "e2e" / "stream.e2e.mjs"), stack.gateway_url,
                               str(SCREENSHOTS)], cwd=REPO / "frontend", env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) as proc:
            assert proc.stdout is not None and proc.stderr is not None
            for line in proc.stdout:
                lines.append(line.strip())
                if line.strip() == "PARTIAL":
                    assert not llm.stream_gate.is_set()
                    llm.stream_gate.set()  # the browser saw the first word: release the rest
            err = proc.stderr.read()
        assert proc.returncode == 0, f"{lines} {err}"
    finally:
        llm.stream_gate.set()
        api.delete(f"/api/v1/keys/{key.split('_')[1]}")
    assert lines[-2:] == ["PARTIAL", "DONE"]
    assert (SCREENSHOTS / "ltt-streaming-en-1280.png").is_file()

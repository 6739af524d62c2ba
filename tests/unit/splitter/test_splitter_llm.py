"""LLM boundary check against a tiny local OpenAI-compatible server (stdlib http.server)."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from services.splitter.llm_check import OpenAIBoundaryChecker, accept_reply
from services.splitter.split import split_document
from shared.models import PageText, ParsedDocument

# Q-only style: the deterministic split leaves an intro line of Q2 at the end of Q1.
TEXT = (
    "備用問題\n"
    "Q1. 第一題是甚麼？\n第一題的答案。\n另見下題背景，請參閱附件\n"
    "Q2. 第二題是甚麼？\n第二題的答案。\n"
    "Q3. 第三題是甚麼？\n第三題的答案。\n"  # three pairs: fewer is not a Q&A paper (MIN_PAIRS)
)
INTRO = "另見下題背景，請參閱附件\n"


def _doc():
    return ParsedDocument(document_id="d", filename="d.pdf", file_type="pdf", page_count=1,
                          pages=[PageText(page_number=1, text=TEXT)])


class _Fake:
    mode = "move"
    calls = 0


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep test output quiet
        pass

    def do_POST(self):  # the name BaseHTTPRequestHandler dispatches to
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        assert self.path.endswith("/chat/completions")
        segs = json.loads(body["messages"][-1]["content"])["segments"]
        _Fake.calls += 1
        a, b = segs
        if _Fake.mode == "move" and a.endswith(INTRO):
            segs = [a[: -len(INTRO)], INTRO + b]
        elif _Fake.mode == "alter":
            segs = [a.replace("答案", "回覆"), b]
        elif _Fake.mode == "drop":
            segs = [a[: -len(INTRO)], b]
        reply = {
            "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant",
                                     "content": json.dumps({"segments": segs}, ensure_ascii=False)}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def server():
    srv = HTTPServer(("127.0.0.1", 0), _Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()
    srv.server_close()


def _checker(server, settings):
    s = settings.model_copy(update={"llm_base_url": server, "llm_model": "fake", "llm_api_key": "k"})
    return OpenAIBoundaryChecker(s)


def _q(cs, qid):
    return next(c for c in cs.chunks if c.metadata.get("question_id") == qid)


def test_without_llm_deterministic(settings):
    cs = split_document(_doc(), "question", settings)
    assert INTRO.strip() in _q(cs, "Q1").text


def test_llm_moves_boundary(server, settings):
    _Fake.mode = "move"
    cs = split_document(_doc(), "question", settings, llm=_checker(server, settings))
    q1, q2 = _q(cs, "Q1"), _q(cs, "Q2")
    assert INTRO.strip() not in q1.text and q2.text.startswith(INTRO.strip())
    assert q1.metadata["llm_boundary_moved"] and any("moved" in n for n in cs.notes)


@pytest.mark.parametrize("mode", ["alter", "drop"])
def test_llm_reply_that_changes_text_is_rejected(server, settings, mode):
    _Fake.mode = mode
    before = _Fake.calls
    cs = split_document(_doc(), "question", settings, llm=_checker(server, settings))
    assert _Fake.calls > before
    assert INTRO.strip() in _q(cs, "Q1").text and "答案" in _q(cs, "Q1").text
    assert any("rejected" in n for n in cs.notes)


def test_unreachable_llm_keeps_result(settings):
    s = settings.model_copy(update={"llm_base_url": "http://127.0.0.1:9/v1", "llm_model": "m", "llm_timeout_s": 2})
    cs = split_document(_doc(), "question", settings, llm=OpenAIBoundaryChecker(s))
    assert INTRO.strip() in _q(cs, "Q1").text


def test_accept_reply_rules():
    assert accept_reply(["ab", "cd"], ["a", "bcd"])
    assert not accept_reply(["ab", "cd"], ["ab", "c"])
    assert not accept_reply(["ab", "cd"], ["", "abcd"])
    assert not accept_reply(["ab", "cd"], ["abcd"])
    assert not accept_reply(["ab", "cd"], None)

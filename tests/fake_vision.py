"""A local fake OpenAI-compatible vision endpoint for tests and the scaling benchmark.

A stdlib ``ThreadingHTTPServer`` answering ``POST /v1/chat/completions`` with a fixed
markdown answer (``server.answer``, changeable at run time), after ``delay_s`` seconds.
It records every request that carried an ``image_url`` PNG (``image_calls``, and when each
was answered: ``image_log``), so tests can assert how often the vision LLM was called and
benchmarks can time it. Requests are served in parallel (one thread each); while ``gate`` is
clear they wait for it before their delay (a benchmark lets work pile up, then opens it).

A request with ``"stream": true`` is answered as OpenAI streams: Server-Sent Events of
``chat.completion.chunk`` deltas, one per word of the answer, then ``data: [DONE]``. While
``stream_gate`` is clear the stream stops after its first delta until it is set (a test reads
the first token of an answer that is not complete yet).
"""
from __future__ import annotations

import base64
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def carries_png(body: dict[str, Any]) -> bool:
    """Whether a chat request ``body`` carries a PNG as an ``image_url`` data URL."""
    for m in body.get("messages", []):
        content = m.get("content")
        for part in content if isinstance(content, list) else []:
            url = (part.get("image_url") or {}).get("url", "") if isinstance(part, dict) else ""
            if url.startswith("data:image/png;base64,") and \
                    base64.b64decode(url.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n":
                return True
    return False


class FakeVisionServer:
    """Start with :meth:`start` (binds 127.0.0.1 on a free port); ``base_url`` ends in ``/v1``.

    Args:
        answer: markdown returned as the assistant message to a request with an image.
        text_answer: returned to a request without one (a chat LLM's answer to a question).
        delay_s: seconds to wait before answering each request (simulated model latency).
    """

    def __init__(self, answer: str = "", delay_s: float = 0.0, text_answer: str = "") -> None:
        self.answer = answer
        self.text_answer = text_answer  # the reply to a request without an image (a chat question)
        self.text_requests: list[str] = []  # the last message of each request without an image
        self.text_bodies: list[dict[str, object]] = []  # the whole JSON body of each of those requests
        self.delay_s = delay_s
        self.image_calls = 0
        self.calls = 0
        self.image_log: list[tuple[float, float]] = []  # (started, answered) per image call, time.monotonic()
        self.gate = threading.Event()
        self.gate.set()
        self.stream_gate = threading.Event()
        self.stream_gate.set()
        self.lock = threading.Lock()
        self.httpd: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        assert self.httpd is not None
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def start(self) -> FakeVisionServer:
        """Serve in a daemon thread; returns ``self``."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                if not self.path.endswith("/chat/completions"):
                    self.send_error(404)
                    return
                has_png = carries_png(body)
                with fake.lock:
                    fake.calls += 1
                    fake.image_calls += has_png
                    answer = fake.answer if has_png else fake.text_answer
                    if not has_png and body.get("messages"):
                        fake.text_requests.append(str(body["messages"][-1].get("content", "")))
                        fake.text_bodies.append(body)
                fake.gate.wait()
                started = time.monotonic()
                time.sleep(fake.delay_s)
                if has_png:
                    with fake.lock:
                        fake.image_log.append((started, time.monotonic()))
                if body.get("stream"):
                    self.stream(body.get("model", "fake"), answer)
                    return
                out = json.dumps({
                    "id": "fake", "object": "chat.completion", "created": int(time.time()),
                    "model": body.get("model", "fake"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": answer}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def stream(self, model: str, answer: str) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()

                def send(delta: dict[str, str], finish: str | None = None) -> None:
                    chunk = {"id": "fake", "object": "chat.completion.chunk", "created": int(time.time()),
                             "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()

                send({"role": "assistant", "content": ""})
                for n, word in enumerate(re.findall(r"\s*\S+", answer)):
                    send({"content": word})
                    if n == 0:
                        fake.stream_gate.wait()
                send({}, "stop")
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop serving."""
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()

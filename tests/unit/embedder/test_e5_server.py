"""The e5 server computes no work for a client that has gone: a request whose client left while
it waited is never computed, a batch computed after its client timed out answers the client's
retry (computed once, not once per try), a full queue answers 503 at once. A slow fake model
stands in for e5, so the timings are exact."""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import numpy as np
import pytest

from services.embedder.e5_server import make_server


class SlowModel:
    """``encode`` takes ``seconds`` per request; vectors encode the text lengths."""

    dim = 4

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        self.calls.append(list(texts))
        time.sleep(self.seconds)
        return np.array([[len(t), float(is_query), 0, 1] for t in texts], dtype=np.float32)

    def token_count(self, text: str, is_query: bool) -> int:
        return len(text.split()) + 4


@pytest.fixture
def server() -> Iterator[tuple[str, SlowModel, dict]]:
    model = SlowModel(1.0)
    srv = make_server("127.0.0.1", 0, model, max_waiting=2)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}"
    yield url, model, srv.RequestHandlerClass.stats.values  # type: ignore[attr-defined]
    srv.shutdown()
    srv.server_close()


def post(url: str, texts: list[str], timeout: float) -> httpx.Response:
    return httpx.post(f"{url}/v1/embeddings", json={"input": texts, "input_type": "passage"}, timeout=timeout)


def post_in_thread(url: str, texts: list[str], timeout: float, out: list) -> threading.Thread:
    def run() -> None:
        try:
            out.append(post(url, texts, timeout))
        except httpx.TimeoutException as e:
            out.append(e)
    t = threading.Thread(target=run)
    t.start()
    return t


def health(url: str) -> dict:
    return httpx.get(f"{url}/health").json()["requests"]


def until(condition, timeout_s: float = 15.0) -> None:
    """Poll ``condition()`` every 20 ms until it holds (a loaded machine can take long to get a
    thread going: the tests wait for states, never for fixed times)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "state not reached"
        time.sleep(0.02)


def test_an_abandoned_batch_is_computed_once_and_answers_the_retry(server):
    url, model, _ = server
    batch = ["a long passage"] * 3
    with pytest.raises(httpx.TimeoutException):
        post(url, batch, timeout=0.3)          # the client gives up while the batch is computed
    r = post(url, batch, timeout=10)           # its retry waits for the same computation
    assert r.status_code == 200
    assert [d["embedding"][0] for d in r.json()["data"]] == [float(len(t)) for t in batch]
    assert r.json()["usage"]["total_tokens"] == 3 * 7
    stats = health(url)
    assert model.calls == [batch]               # computed once
    assert stats["computed"] == 1 and stats["kept_for_retry"] == 1 and stats["answered_from_kept"] == 1


def test_a_request_whose_client_left_while_queued_is_never_computed(server):
    url, model, _ = server
    model.seconds = 2.0                         # the abandoned request waits well past its client
    first: list = []
    t = post_in_thread(url, ["first"], 20, first)
    until(lambda: model.calls == [["first"]])   # "first" is being computed
    with pytest.raises(httpx.TimeoutException):
        post(url, ["queued and abandoned"], timeout=0.4)
    t.join()
    until(lambda: health(url)["skipped_client_gone"] == 1)  # noticed at its next look (every 0.25 s)
    stats = health(url)
    assert first[0].status_code == 200
    assert model.calls == [["first"]]
    assert stats["skipped_client_gone"] == 1 and stats["computed"] == 1 and stats["waiting"] == 0


def test_a_full_queue_answers_busy_at_once(server):
    url, model, _ = server
    model.seconds = 3.0                         # a waiting request would take 3 s or more
    out: list = []
    threads = [post_in_thread(url, [f"t{i}"], 20, out) for i in range(1)]
    until(lambda: len(model.calls) == 1)        # one computing
    threads += [post_in_thread(url, [f"w{i}"], 20, out) for i in range(2)]
    until(lambda: health(url)["waiting"] == 2)  # two waiting: the queue (max_waiting=2) is full
    t0 = time.perf_counter()
    r = post(url, ["one too many"], timeout=20)
    assert r.status_code == 503 and r.headers["Retry-After"] == "1"
    # at once: not after a computation (on a loaded machine the answer itself can take ~0.5 s,
    # so the bound is the model's time, not a fixed fraction of a second)
    assert time.perf_counter() - t0 < model.seconds and out == []
    for t in threads:
        t.join()
    assert sorted(x.status_code for x in out) == [200, 200, 200]
    assert health(url)["rejected_busy"] == 1


def test_metrics_in_prometheus_text(server):
    url, _, _ = server
    post(url, ["x"], timeout=10)
    text = httpx.get(f"{url}/metrics").text
    assert "legco_e5_computed_total 1" in text and "legco_e5_waiting 0" in text


def test_busy_seconds_count_the_time_the_model_is_held(server):
    """Utilisation = busy seconds / wall seconds: two requests of 0.5 s one after the other keep
    the model busy at least 1 s, never longer than the wall time, and the idle gap between them
    is not counted."""
    url, model, _ = server
    model.seconds = 0.5
    t0 = time.perf_counter()
    post(url, ["one"], timeout=10)
    time.sleep(0.5)                              # idle: not busy
    post(url, ["two"], timeout=10)
    wall = time.perf_counter() - t0
    stats = health(url)
    assert 1.0 <= stats["busy_seconds"] <= wall - 0.5
    assert stats["busy_seconds"] >= stats["compute_seconds"] >= 1.0
    text = httpx.get(f"{url}/metrics").text
    assert f"legco_e5_busy_seconds_total {stats['busy_seconds']}" in text

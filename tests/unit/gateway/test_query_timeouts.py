"""``POST /api/v1/query`` against a query service that is down, unreachable or slow, on real
sockets: the caller gets a readable 503 or 504 within the configured times, never a 120 s wait."""
from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from shared.settings import Settings
from tests.unit.gateway.test_departments import A_MEMBER, Stack


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def st() -> Iterator[Stack]:
    st = Stack()
    st.state.http = httpx.AsyncClient()
    yield st


def configure(st: Stack, url: str, **fields: float) -> None:
    settings: Settings = st.state.settings
    st.state.settings = settings.model_copy(update={"query_service_url": url, **fields})


def ask(st: Stack) -> tuple[httpx.Response, float]:
    start = time.monotonic()
    resp = st.client(A_MEMBER).post("/api/v1/query", json={"question": "收地進度如何？"})
    return resp, time.monotonic() - start


def test_defaults_answer_a_down_query_service_within_ten_seconds() -> None:
    s = Settings()
    backoff = s.client_retry_base_s * 2 ** (s.query_forward_attempts - 1) + s.client_retry_base_s  # with jitter
    assert s.query_forward_attempts * s.query_connect_timeout_s + backoff <= 10
    assert s.query_forward_timeout_s < 60  # the web app gives up at 60 s: the gateway's reason comes first


def test_a_refused_connection_is_503_at_once(st: Stack) -> None:
    configure(st, f"http://127.0.0.1:{free_port()}")
    resp, took = ask(st)
    assert resp.status_code == 503 and "not reachable" in resp.json()["detail"]
    assert took < 5


def test_a_connection_that_is_never_accepted_is_503_after_the_connect_timeouts(st: Stack) -> None:
    # A listening socket whose accept queue is full: the kernel drops new SYNs, so connecting
    # hangs, as it does for a host that is down or a firewall that drops.
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(0)
        port = srv.getsockname()[1]
        fillers = []
        for _ in range(3):
            c = socket.socket()
            c.setblocking(False)
            c.connect_ex(("127.0.0.1", port))
            fillers.append(c)
        time.sleep(0.2)
        configure(st, f"http://127.0.0.1:{port}", query_connect_timeout_s=0.5, query_forward_timeout_s=30.0)
        try:
            resp, took = ask(st)
        finally:
            for c in fillers:
                c.close()
    assert resp.status_code == 503 and "not reachable" in resp.json()["detail"]
    assert 1.0 <= took < 4.0  # two connect timeouts of 0.5 s and the backoff between them, not 30 s


class Silent:
    """A server that accepts connections, reads the request and never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.accepted = 0
        self.held: list[socket.socket] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.accepted += 1
            self.held.append(conn)

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        for c in self.held:
            c.close()
        self.sock.close()


def test_a_query_service_that_does_not_answer_is_504_after_the_answer_timeout_without_a_retry(st: Stack) -> None:
    silent = Silent()
    try:
        configure(st, silent.url, query_forward_timeout_s=1.0)
        resp, took = ask(st)
    finally:
        silent.close()
    assert resp.status_code == 504
    assert resp.json()["detail"] == ("The query service did not answer within 1 s; it may be busy. "
                                     "Try again in a moment.")
    assert 1.0 <= took < 2.5
    assert silent.accepted == 1  # asked once: a second try would double the wait

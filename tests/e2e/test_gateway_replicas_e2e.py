"""Two gateway replicas on one stack: the stack's gateway and a second process on another port
with its own ``GATEWAY_INSTANCE``, the same Kafka, MinIO and Chroma.

A document uploaded through the first is listed ``queued`` by the very next request to the
second, whose SSE stream follows it to ``indexed`` (whichever replica Kafka gave its progress
partition); deleted through the second, it is gone from the first's list at once and the
first's SSE stream says so. A key made on one works on the other; revoked on the other, it is
refused by the first at once. Six concurrent uploads of one filename, three through each replica
(whose progress the two replicas fold between them), end with one document, the last uploaded.
"""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from shared.storage import ObjectStore
from tests.conftest import REPO
from tests.infra import OFFSET

SECOND_PORT = 8090 + OFFSET
TEXT = ("立法會財務委員會二零二六年會議：跨境渡輪服務的資助安排。政府建議延長資助三年，並檢討航線的乘客量。\n\n"
        "The Finance Committee will consider extending the cross-boundary ferry subsidy by three years "
        "and reviewing passenger numbers on each route.\n")


@pytest.fixture(scope="module")
def second(stack) -> Iterator[str]:
    """The second gateway replica's base URL (started here, stopped after the module)."""
    env = {**os.environ, **stack.env, "GATEWAY_PORT": str(SECOND_PORT), "GATEWAY_INSTANCE": "replica-2",
           "QUERY_SERVICE_URL": f"http://127.0.0.1:{8104 + OFFSET}", "PYTHONPATH": str(REPO)}
    url = f"http://127.0.0.1:{SECOND_PORT}"
    with (stack.var / "log" / "gateway-2.log").open("ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "services.gateway"], cwd=REPO, env=env, stdout=log,
                                stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, f"the second gateway exited ({proc.returncode}); see gateway-2.log"
            try:
                if httpx.get(f"{url}/healthz", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the second gateway did not become healthy in 90 s"
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


class Stream:
    """An SSE client of one replica's ``/api/v1/events``: (event, data, seconds since start)."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.events: queue.Queue[tuple[str, dict[str, Any], float]] = queue.Queue()
        self._client = httpx.Client(base_url=url, timeout=httpx.Timeout(5.0, read=None), headers=headers)
        self._ready = threading.Event()
        threading.Thread(target=self._listen, daemon=True).start()
        assert self._ready.wait(10), f"no SSE stream from {url}"

    def _listen(self) -> None:
        start, name = time.monotonic(), ""
        try:
            with self._client.stream("GET", "/api/v1/events") as r:
                self._ready.set()
                for line in r.iter_lines():
                    if line.startswith("event:"):
                        name = line.split(":", 1)[1].strip()
                    elif line.startswith("data:"):
                        self.events.put((name, json.loads(line.split(":", 1)[1]), time.monotonic() - start))
        except (httpx.HTTPError, RuntimeError):  # closed by close()
            return

    def until(self, document_id: str, want: str, timeout_s: float) -> list[tuple[str, dict[str, Any]]]:
        """This document's events until one of ``want`` (an SSE event name, or a status)."""
        seen, deadline = [], time.monotonic() + timeout_s
        while True:
            try:
                name, data, _ = self.events.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {want!r} for {document_id} in {timeout_s} s; saw {seen[-5:]}") from None
            if data.get("document_id") != document_id:
                continue
            seen.append((name, data))
            if name == want or (name == "document" and data["status"] == want):
                return seen

    def close(self) -> None:
        self._client.close()


def listed(client: httpx.Client) -> dict[str, dict[str, Any]]:
    r = client.get("/api/v1/documents")
    assert r.status_code == 200, r.text
    return {d["document_id"]: d for d in r.json()["documents"]}


def test_two_replicas_share_documents_streams_and_keys(stack, api, second):
    one, two = api, httpx.Client(base_url=second, timeout=60.0, headers=stack.auth())
    stream_one, stream_two = Stream(stack.gateway_url, stack.auth()), Stream(second, stack.auth())
    try:
        time.sleep(0.5)
        t0 = time.monotonic()
        r = one.post("/api/v1/ingest", files={"file": ("replicas_e2e.txt", TEXT.encode())})
        assert r.status_code == 202, r.text
        doc = r.json()["document_id"]
        on_two = listed(two).get(doc)
        listed_after = time.monotonic() - t0
        assert on_two is not None, "the second replica does not list a document uploaded through the first"
        assert on_two["filename"] == "replicas_e2e.txt"

        events = stream_two.until(doc, "indexed", timeout_s=240)
        indexed_after = time.monotonic() - t0
        assert events[0][0] == "document" and events[0][1]["status"] == "queued"  # the upload itself
        stages = [d["stage"] for n, d in events if n == "document"]
        assert "parsing" in stages and stages[-1] == "indexed", stages
        both = [c.get(f"/api/v1/documents/{doc}").json() for c in (one, two)]
        assert both[0] == both[1] and both[0]["status"] == "indexed" and both[0]["chunk_count"] >= 1

        r = two.delete(f"/api/v1/documents/{doc}")
        assert r.status_code == 200 and r.json()["deleted"] is True, r.text
        assert doc not in listed(one), "the first replica still lists a document deleted through the second"
        assert one.get(f"/api/v1/documents/{doc}").status_code == 404
        assert stream_one.until(doc, "deleted", timeout_s=10)[-1][0] == "deleted"
        print(f"\ntwo replicas: listed on the other after {listed_after * 1000:.0f} ms ({on_two['status']}); "
              f"indexed seen over the other's SSE after {indexed_after:.1f} s ({len(events)} events); "
              f"deleted through it, gone from the first at once")

        r = one.post("/api/v1/keys", json={"department": "replicas-e2e", "role": "member", "label": "replicas"})
        assert r.status_code == 201, r.text
        key, prefix = r.json()["key"], r.json()["key_prefix"]
        who = two.get("/api/v1/whoami", headers=stack.auth(key))
        assert who.status_code == 200 and who.json()["department"] == "replicas-e2e", who.text
        assert prefix in {k["key_prefix"] for k in two.get("/api/v1/keys").json()["keys"]}
        assert two.delete(f"/api/v1/keys/{prefix}").status_code == 200
        assert one.get("/api/v1/whoami", headers=stack.auth(key)).status_code == 401  # revoked on the other
    finally:
        stream_one.close()
        stream_two.close()
        two.close()


def test_same_name_uploads_through_both_replicas_leave_the_last_one(stack, api, second):
    name = "replicas_same_name.txt"
    two = httpx.Client(base_url=second, timeout=60.0, headers=stack.auth())

    def put(n: int) -> str:
        client = api if n % 2 == 0 else two
        r = client.post("/api/v1/ingest", files={"file": (name, f"{TEXT}\n第{n}版。Copy {n}.".encode())})
        assert r.status_code == 202, r.text
        return str(r.json()["document_id"])

    try:
        with ThreadPoolExecutor(6) as pool:
            ids = list(pool.map(put, range(6)))
        seqs = {d: api.get(f"/api/v1/documents/{d}").json()["upload_seq"] for d in ids}
        last = max(ids, key=lambda d: seqs[d])
        deadline, t0 = time.monotonic() + 300, time.monotonic()
        while True:
            views = [{d: r["status"] for d, r in listed(c).items() if r["filename"] == name} for c in (api, two)]
            if views[0] == views[1] == {last: "indexed"}:
                break
            assert time.monotonic() < deadline, f"not settled to one copy in 300 s: {views}"
            time.sleep(0.5)
        store = ObjectStore(stack.settings())
        manifests = [k for k in store.list_keys("documents/") if k.endswith("/manifest.json")
                     and store.get_json(k).get("filename") == name]
        print(f"\n6 same-name uploads through two replicas: one left ({last}, the last uploaded) after "
              f"{time.monotonic() - t0:.1f} s; manifests {len(manifests)}")
        assert manifests == [f"documents/{last}/manifest.json"]
        assert api.delete(f"/api/v1/documents/{last}").status_code == 200
    finally:
        two.close()

"""A restarted query service answers at once with dense search and builds its keyword side in
the background (``services/query/warmup.py``): the first answer does not wait for the lexicon
and the BM25 index, and once they are ready keyword matches come back."""
from __future__ import annotations

import time

import httpx

from tests.conftest import FIXTURES
from tests.e2e.helpers import upload, wait_terminal
from tests.infra import OFFSET


def health(c: httpx.Client) -> dict | None:
    try:
        r = c.get("/healthz", timeout=2)
        return r.json() if r.status_code == 200 else None
    except httpx.HTTPError:
        return None


def test_restarted_query_service_answers_before_its_keyword_index_is_built(stack, api):
    doc = upload(api, FIXTURES / "B_古洞北粉嶺北新發展區概覽.pdf", "question")["document_id"]
    assert wait_terminal(api, [doc])[doc]["status"] == "indexed"
    q = {"question": "古洞北新發展區的規劃人口是多少？", "top_k": 3}
    with httpx.Client(base_url=f"http://127.0.0.1:{8104 + OFFSET}") as qs:
        stack.ctl("ctl", "stop", "query")
        t0 = time.monotonic()
        stack.ctl("ctl", "start", "query")  # returns once the process runs (supervisord startsecs)
        first_answer = ready = None
        while time.monotonic() - t0 < 120 and (first_answer is None or ready is None):
            h = health(qs)
            if h is not None and first_answer is None:
                r = api.post("/api/v1/query", json=q)
                if r.status_code == 200:
                    first_answer = time.monotonic() - t0
                    answered_before_ready = not h["keyword_index"]["ready"]
            if h is not None and h["keyword_index"]["ready"] and ready is None:
                ready = time.monotonic() - t0
            time.sleep(0.1)
    print(f"\n[query restart] first answer {first_answer:.1f} s, keyword side ready {ready:.1f} s")
    assert first_answer is not None and ready is not None
    assert answered_before_ready or first_answer <= ready + 0.5
    r = api.post("/api/v1/query", json=q).json()
    assert any(s["document_id"] == doc for s in r["sources"])

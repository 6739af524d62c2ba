"""Places in line and estimated times (``services/gateway/waits.py``): the rules with real
numbers, then through the gateway app (list, one document, SSE) with department scoping."""
from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from services.gateway.progress import fold_progress
from services.gateway.waits import RateMeter, Waits, positions, waiting_for_stage
from shared.api import DocumentRecord
from shared.events import ProgressEvent
from tests.unit.gateway.test_departments import A_MEMBER, B_MEMBER, Stack

T0 = 1_800_000_000.0  # epoch seconds of the tests' first event


def iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat()


_seq = iter(range(1, 10_000))


def doc(dept: str = "a", *, stage: str = "splitting", done: int = 3, total: int = 3, unit: str = "pages",
        status: str = "processing", page_count: int | None = 3, uploaded: float = T0) -> DocumentRecord:
    n = next(_seq)
    return DocumentRecord(document_id=f"{n:032x}", filename=f"{n}.pdf", department=dept,
                          strategy="token", status=status, stage=stage, pages_done=done,  # type: ignore[arg-type]
                          pages_total=total, unit=unit, page_count=page_count, upload_seq=n,
                          upload_date=iso(uploaded))


def queued(dept: str = "a", uploaded: float = T0) -> DocumentRecord:
    return doc(dept, stage="uploaded", done=0, total=0, status="queued", page_count=None, uploaded=uploaded)


def embedding(dept: str, done: int, total: int) -> DocumentRecord:
    return doc(dept, stage="embedding", done=done, total=total, unit="chunks")


# --- where a document waits -----------------------------------------------------------------------

def test_the_stage_a_document_waits_for() -> None:
    assert waiting_for_stage(queued()) == "parsing"
    assert waiting_for_stage(doc(stage="parsing", done=2, total=3, page_count=None)) is None  # being parsed
    assert waiting_for_stage(doc(stage="parsing", done=3, total=3, page_count=3)) == "tables"
    assert waiting_for_stage(doc(stage="tables", done=1, total=3)) is None
    assert waiting_for_stage(doc(stage="tables", done=3, total=3)) == "splitting"
    assert waiting_for_stage(doc(stage="splitting", done=0, total=0)) is None  # the splitter started
    assert waiting_for_stage(doc(stage="splitting", done=3, total=3)) == "embedding"
    assert waiting_for_stage(embedding("a", 4, 10)) is None
    waiting = doc(stage="splitting")
    waiting.waiting_for = "Chroma"
    assert waiting_for_stage(waiting) is None  # a stage holds it, waiting for a dependency
    assert waiting_for_stage(doc(stage="indexed", status="indexed")) is None


def test_one_department_is_first_in_first_out_and_running_documents_are_not_in_line() -> None:
    running = embedding("a", 4, 10)
    line = [doc("a") for _ in range(3)]
    got = positions([running, *reversed(line)])
    assert got == {line[0].document_id: 1, line[1].document_id: 2, line[2].document_id: 3}


def test_departments_take_turns_so_a_newcomer_is_not_behind_a_bulk_upload() -> None:
    bulk = [doc("a") for _ in range(5)]
    newcomer = doc("b")  # uploaded after the whole bulk
    got = positions([*bulk, newcomer])
    assert got[newcomer.document_id] == 1
    # A's k-th document starts after k of A's and min(1, k) of B's
    assert [got[d.document_id] for d in bulk] == [1, 3, 4, 5, 6]


def test_each_stage_has_its_own_line() -> None:
    a, b = queued(), queued()
    parsed = doc(stage="parsing", page_count=3)
    split = doc(stage="splitting")
    assert positions([a, b, parsed, split]) == {a.document_id: 1, b.document_id: 2, parsed.document_id: 1,
                                                split.document_id: 1}


# --- the measured rate ---------------------------------------------------------------------------

def test_rate_is_chunks_over_busy_seconds_and_idle_time_does_not_count() -> None:
    m = RateMeter(half_life_s=1e9)  # no decay: plain totals
    m.add(T0, 0, busy=False)  # a split finished: the embedder starts
    for i in range(1, 4):
        m.add(T0 + 4 * i, 8, busy=True)  # a batch of 8 chunks every 4 s
    assert m.rate == pytest.approx(2.0)
    m.add(T0 + 600, 0, busy=False)  # ten idle minutes, then a new document arrives
    m.add(T0 + 601, 4, busy=True)  # 4 chunks in 1 s
    assert m.rate == pytest.approx(28 / 13)


def test_rate_follows_recent_work() -> None:
    m = RateMeter(half_life_s=60)
    m.add(T0, 0, busy=False)
    t = T0
    for _ in range(30):  # 5 min at 1 chunk/s
        t += 10
        m.add(t, 10, busy=True)
    for _ in range(30):  # then 5 min at 4 chunks/s
        t += 10
        m.add(t, 40, busy=True)
    assert m.rate is not None and 3.8 < m.rate <= 4.0


def test_no_rate_before_some_work_was_measured() -> None:
    m = RateMeter(half_life_s=1e9, min_busy_s=5)
    assert m.rate is None
    m.add(T0, 0, busy=False)
    m.add(T0 + 2, 8, busy=True)
    assert m.rate is None  # 2 s are not enough
    m.add(T0 + 6, 8, busy=True)
    assert m.rate == pytest.approx(16 / 6, rel=1e-3)


# --- the estimate --------------------------------------------------------------------------------

def measured(rate: float) -> Waits:
    w = Waits()
    w.meter = RateMeter(half_life_s=1e9, chunks=rate * 100, busy_s=100, mark=T0)
    return w


def test_eta_counts_the_chunks_ahead_in_the_department_at_the_measured_rate() -> None:
    w = measured(2.0)
    running = embedding("a", 4, 14)  # 10 chunks left
    ahead, me = doc("a"), doc("a")
    w.split_chunks |= {ahead.document_id: 20, me.document_id: 30}
    got = w.estimate([me, running, ahead], now=T0)
    assert got[running.document_id].eta_s == 5.0  # 10 / 2
    assert got[ahead.document_id].eta_s == 15.0  # (10 + 20) / 2
    assert got[me.document_id].eta_s == 30.0  # (10 + 20 + 30) / 2
    assert (got[me.document_id].position, got[me.document_id].stage) == (2, "embedding")
    assert got[running.document_id].position is None


def test_eta_shares_the_embedder_between_departments() -> None:
    w = measured(2.0)
    a1, a2 = doc("a"), doc("a")
    b = doc("b")
    w.split_chunks |= {a1.document_id: 30, a2.document_id: 30, b.document_id: 10}
    got = w.estimate([a1, a2, b], now=T0)
    assert got[b.document_id].eta_s == 10.0  # its 10 chunks while A is given 10: 20 / 2
    assert got[a1.document_id].eta_s == 20.0  # (30 + B's 10) / 2
    assert got[a2.document_id].eta_s == 35.0  # (60 + 10) / 2


def test_eta_before_the_split_uses_upstream_time_and_chunks_per_page() -> None:
    w = measured(2.0)
    w.upstream_s.add(40.0)  # upload to a finished split took 40 s
    w.chunks_per_page.add(2.0)
    parsed = doc("a", stage="parsing", page_count=5, uploaded=T0 - 10)  # 10 chunks expected
    got = w.estimate([parsed], now=T0)
    assert got[parsed.document_id].eta_s == 35.0  # 30 s upstream left + 10 chunks / 2
    nothing_known = queued()
    w2 = measured(2.0)
    assert w2.estimate([nothing_known], now=T0)[nothing_known.document_id].eta_s is None
    w2.chunks_per_doc.add(12)
    assert w2.estimate([nothing_known], now=T0)[nothing_known.document_id].eta_s == 6.0


def test_no_estimate_without_a_measured_rate() -> None:
    w = Waits()
    d = doc("a")
    w.split_chunks[d.document_id] = 10
    got = w.estimate([d], now=T0)[d.document_id]
    assert (got.position, got.eta_s) == (1, None)


def test_changed_sends_a_wait_again_only_when_it_moved_enough() -> None:
    w = measured(2.0)
    d = doc("a")
    w.split_chunks[d.document_id] = 100  # 50 s
    assert [r.eta_s for r in w.changed([d], now=T0)] == [50.0]
    assert w.changed([d], now=T0) == []
    w.split_chunks[d.document_id] = 110  # 55 s: within 10 s
    assert w.changed([d], now=T0) == []
    w.split_chunks[d.document_id] = 200  # 100 s
    assert [(r.queue_position, r.eta_s) for r in w.changed([d], now=T0)] == [(1, 100.0)]


# --- through the gateway -------------------------------------------------------------------------

def progress(rec_id: str, dept: str, t: float, **fields: object) -> ProgressEvent:
    return ProgressEvent(document_id=rec_id, department=dept, ts=iso(t), **fields)  # type: ignore[arg-type]


async def test_the_gateway_measures_the_rate_and_lists_places_and_estimates_per_department() -> None:
    st = Stack()
    gw = st.gw
    ids = {}
    for name, key in (("a1", A_MEMBER), ("a2", A_MEMBER), ("a3", A_MEMBER), ("b1", B_MEMBER)):
        ids[name] = st.client(key).post("/api/v1/ingest", files={"file": (f"{name}.txt", b"text", "text/plain")}
                                        ).json()["document_id"]
    a1, a2, a3, b1 = ids["a1"], ids["a2"], ids["a3"], ids["b1"]
    listed = {d["document_id"]: d for d in st.client(A_MEMBER).get("/api/v1/documents").json()["documents"]}
    assert (listed[a1]["queue_position"], listed[a2]["queue_position"], listed[a3]["queue_position"]) == (1, 3, 4)
    assert listed[a1]["eta_s"] is None  # nothing measured yet
    # each is split into 20 chunks; a1 is embedded at 2 chunks/s (a batch of 8 every 4 s, then 4 in 2 s)
    for n, (doc_id, dept) in enumerate(((a1, "dept-a"), (a2, "dept-a"), (a3, "dept-a"), (b1, "dept-b"))):
        await fold_progress(st.state, progress(doc_id, dept, T0 + n / 10, stage="splitting", status="processing",
                                               pages_done=1, pages_total=1, chunk_count=20))
    for t, done in ((4, 8), (8, 16), (10, 20)):
        await fold_progress(st.state, progress(a1, "dept-a", T0 + 0.3 + t, stage="embedding", status="processing",
                                               unit="chunks", pages_done=done, pages_total=20))
    assert st.state.waits.meter.rate == pytest.approx(20 / 10.3, rel=1e-2)  # busy since the first split
    rate = st.state.waits.meter.rate
    a_view = {d["document_id"]: d for d in st.client(A_MEMBER).get("/api/v1/documents").json()["documents"]}
    assert b1 not in a_view  # another department's document is neither listed nor named
    assert a_view[a1]["queue_position"] is None and a_view[a1]["eta_s"] == 0.0  # being embedded, 0 left
    # a2: its 20 chunks while B is given 20 (B's b1 has 20)
    assert a_view[a2]["queue_position"] == 1 and a_view[a2]["eta_s"] == pytest.approx(40 / rate, abs=0.1)
    # a3: a2's and its own 40 while B is given its 20
    assert a_view[a3]["queue_position"] == 3 and a_view[a3]["eta_s"] == pytest.approx(60 / rate, abs=0.1)
    b_view = st.client(B_MEMBER).get(f"/api/v1/documents/{b1}").json()
    assert b_view["queue_position"] == 1 and b_view["eta_s"] == pytest.approx(40 / rate, abs=0.1)
    assert gw.store.get_json(f"documents/{a2}/manifest.json")["queue_position"] is None  # never stored


async def test_sse_events_carry_the_wait_and_others_are_sent_when_the_line_moves() -> None:
    st = Stack()
    a_queue = st.state.hub.subscribe({"dept-a"})
    first = st.client(A_MEMBER).post("/api/v1/ingest", files={"file": ("x.txt", b"t", "text/plain")}).json()
    second = st.client(A_MEMBER).post("/api/v1/ingest", files={"file": ("y.txt", b"t", "text/plain")}).json()

    def sent() -> dict[str, dict[str, object]]:
        out = {}
        while not a_queue.empty():
            msg = a_queue.get_nowait()
            if msg["event"] == "document":
                data = json.loads(msg["data"])
                out[data["document_id"]] = data
        return out

    got = sent()
    assert got[second["document_id"]]["queue_position"] == 2
    await fold_progress(st.state, progress(first["document_id"], "dept-a", T0, stage="parsing",
                                           status="processing"))
    got = sent()  # the first is being parsed: the second moves up without an event of its own
    assert got[first["document_id"]]["queue_position"] is None
    assert got[second["document_id"]]["queue_position"] == 1

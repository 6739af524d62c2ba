"""Dead letters an operator can act on, on the gateway app (in-memory stores, the dead-letter
topic stood in for by a list): admin only, the listing shows stage, reason, attempts and time,
a replay republishes the event to the stage that gave up with its key and sets the document back
to ``queued``, and the status then moves forward to ``indexed`` once."""
from __future__ import annotations

from typing import Any

import pytest

from services.gateway import deadletters
from services.gateway.deadletters import Letter
from services.gateway.registry import apply_progress
from shared import topics
from shared.events import ChunkRangeWork, DeadLetter, DocumentChunked, PageWork, ProgressEvent
from tests.unit.gateway.test_departments import A_MEMBER, A_READER, MISSING, Stack
from tests.unit.gateway.test_gateway_contract import ADMIN_KEY


class Broker:
    """Records what the replay publishes."""

    def __init__(self, fail: bool = False) -> None:
        self.sent: list[tuple[dict[str, Any], str, bytes | None]] = []
        self.fail = fail

    async def publish(self, message: Any, topic: str, key: bytes | None = None) -> None:
        if self.fail:
            raise ConnectionError("Kafka down")
        self.sent.append((message, topic, key))


def chunked_letter(doc_id: str, department: str, offset: int = 0, ts: str = "2026-12-01T10:00:00+00:00") -> Letter:
    event = DocumentChunked(document_id=doc_id, department=department, filename="a.pdf", strategy="token",
                            strategy_used="token", file_type="pdf", page_count=1, chunk_count=3,
                            chunks_key=f"documents/{doc_id}/chunks.json")
    return Letter(DeadLetter(document_id=doc_id, department=department, source_topic=topics.CHUNKED,
                             consumer_group="embedder", error_type="APIConnectionError", attempts=0,
                             reason="the embeddings endpoint could not be reached for 20 s",
                             payload=event.model_dump(mode="json"), ts=ts), 0, offset)


def page_letter(doc_id: str, page: int, offset: int) -> Letter:
    work = PageWork(document_id=doc_id, department="dept-a", filename="a.pdf", page_number=page, page_count=3,
                    page_pdf_key=f"documents/{doc_id}/pages/{page}.pdf", pages_key=f"documents/{doc_id}/parsed.json")
    return Letter(DeadLetter(document_id=doc_id, department="dept-a", source_topic=topics.TABLE_PAGES,
                             consumer_group="tables", error_type="RuntimeError", attempts=3, reason="boom",
                             payload=work.model_dump(mode="json"), ts=f"2026-12-01T10:00:0{page}+00:00"), 1, offset)


def range_letter(doc_id: str, number: int, offset: int) -> Letter:
    work = ChunkRangeWork(document_id=doc_id, department="dept-a", filename="a.pdf", strategy="token",
                          strategy_used="token", file_type="pdf", page_count=300, chunk_count=200,
                          chunks_key=f"documents/{doc_id}/embedding/ranges/{number}.json",
                          document_chunks_key=f"documents/{doc_id}/chunks.json", range_number=number, range_count=4,
                          first_chunk=(number - 1) * 64, last_chunk=min(number * 64, 200) - 1)
    return Letter(DeadLetter(document_id=doc_id, department="dept-a", source_topic=topics.CHUNK_RANGES,
                             consumer_group="embedder-ranges", error_type="RuntimeError", attempts=3, reason="boom",
                             payload=work.model_dump(mode="json"), ts=f"2026-12-01T10:00:0{number}+00:00"), 2, offset)


@pytest.fixture
def st(monkeypatch: pytest.MonkeyPatch) -> Stack:
    s = Stack()
    s.state.broker = Broker()
    s.letters = []  # type: ignore[attr-defined]

    async def read(settings: Any, timeout_s: float = 0) -> list[Letter]:
        return list(s.letters)  # type: ignore[attr-defined]

    monkeypatch.setattr(deadletters, "read_letters", read)
    return s


def fail(st: Stack, doc_id: str) -> None:
    rec = st.gw.registry.records[doc_id]
    st.gw.registry.records[doc_id] = rec.model_copy(update={"status": "failed", "stage": "failed", "chunk_count": 0,
                                                            "error": "the embeddings endpoint could not be reached"})


@pytest.mark.parametrize("key", [A_MEMBER, A_READER])
def test_dead_letters_are_for_admins_only(st: Stack, key: str) -> None:
    c = st.client(key)
    assert c.get("/api/v1/deadletters").status_code == 403
    assert c.post("/api/v1/deadletters/replay", json={"all": True}).status_code == 403
    assert st.state.broker.sent == []


def test_listing_shows_document_stage_reason_attempts_and_time(st: Stack) -> None:
    fail(st, st.a)
    st.letters += [chunked_letter(st.a, "dept-a", 0, "2026-12-01T09:00:00+00:00"),
                   chunked_letter(st.a, "dept-a", 1), chunked_letter(st.b, "dept-b", 2, "2026-12-01T08:00:00+00:00")]
    body = st.client(ADMIN_KEY).get("/api/v1/deadletters").json()["deadletters"]
    assert [(d["document_id"], d["offset"]) for d in body] == [(st.a, 1), (st.b, 2)]  # newest, one per document
    first = body[0]
    assert (first["stage"], first["attempts"], first["status"]) == ("embedding", 0, "failed")
    assert first["filename"] == "a.pdf"
    assert "embeddings endpoint" in first["reason"] and first["ts"].startswith("2026-12-01T10:00")
    every = st.client(ADMIN_KEY).get("/api/v1/deadletters", params={"all": "true"}).json()["deadletters"]
    assert len(every) == 3
    only_b = st.client(ADMIN_KEY).get("/api/v1/deadletters", params={"department": "dept-b"}).json()["deadletters"]
    assert [d["document_id"] for d in only_b] == [st.b]


def test_replay_republishes_to_the_failed_stage_and_requeues(st: Stack) -> None:
    fail(st, st.a)
    st.letters += [chunked_letter(st.a, "dept-a", 0)]
    resp = st.client(ADMIN_KEY).post("/api/v1/deadletters/replay", json={"document_ids": [st.a]})
    assert resp.status_code == 200, resp.text
    assert resp.json()["documents"] == [{"document_id": st.a, "filename": "a.pdf", "stage": "embedding",
                                         "replayed": 1, "skipped": None}]
    [(payload, topic, key)] = st.state.broker.sent
    assert (topic, key) == (topics.CHUNKED, st.a.encode())
    assert DocumentChunked.model_validate(payload).chunks_key == f"documents/{st.a}/chunks.json"
    rec = st.gw.registry.get(st.a)
    assert rec is not None and (rec.status, rec.stage, rec.error) == ("queued", "uploaded", None)
    # the manifest says so too (a restarted gateway reloads it)
    assert st.gw.store.get_json(f"documents/{st.a}/manifest.json")["status"] == "queued"
    # a second replay finds it queued, not failed: nothing is published twice
    again = st.client(ADMIN_KEY).post("/api/v1/deadletters/replay", json={"document_ids": [st.a]}).json()
    assert again["documents"][0]["replayed"] == 0 and "queued" in again["documents"][0]["skipped"]
    assert len(st.state.broker.sent) == 1


async def test_a_replayed_document_moves_forward_to_indexed_once(st: Stack) -> None:
    fail(st, st.a)
    st.letters += [chunked_letter(st.a, "dept-a", 0)]
    st.client(ADMIN_KEY).post("/api/v1/deadletters/replay", json={"document_ids": [st.a]})
    reg = st.gw.registry
    await reg.apply(ProgressEvent(document_id=st.a, department="dept-a", stage="embedding", status="processing"))
    await reg.apply(ProgressEvent(document_id=st.a, department="dept-a", stage="indexed", status="indexed",
                                  chunk_count=3, unit="chunks", pages_done=3, pages_total=3))
    rec = reg.get(st.a)
    assert rec is not None and (rec.status, rec.chunk_count) == ("indexed", 3)
    late = ProgressEvent(document_id=st.a, department="dept-a", stage="failed", status="failed", error="old")
    assert apply_progress(rec, late) == rec  # a late event of the first run never moves it back


def test_replay_all_and_by_stage(st: Stack) -> None:
    fail(st, st.a)
    fail(st, st.b)
    st.letters += [page_letter(st.a, 2, 0), page_letter(st.a, 3, 1), page_letter(st.a, 2, 2),
                   chunked_letter(st.b, "dept-b", 3)]
    body = st.client(ADMIN_KEY).post("/api/v1/deadletters/replay", json={"all": True, "stage": "tables"}).json()
    by_doc = {d["document_id"]: d for d in body["documents"]}
    assert by_doc[st.a]["replayed"] == 2 and by_doc[st.a]["stage"] == "tables"  # every dead page, once each
    assert by_doc[st.b]["replayed"] == 0 and "no dead letter of stage tables" in by_doc[st.b]["skipped"]
    sent = [(t, k) for _, t, k in st.state.broker.sent]
    assert sorted(sent) == [(topics.TABLE_PAGES, f"{st.a}:2".encode()), (topics.TABLE_PAGES, f"{st.a}:3".encode())]
    assert st.gw.registry.records[st.b].status == "failed"


def test_replay_of_a_ranged_document_republishes_every_dead_range_with_its_key(st: Stack) -> None:
    fail(st, st.a)
    st.letters += [range_letter(st.a, 1, 0), range_letter(st.a, 3, 1), range_letter(st.a, 1, 2)]
    listed = st.client(ADMIN_KEY).get("/api/v1/deadletters").json()["deadletters"]
    assert [(d["stage"], d["page_number"]) for d in listed] == [("embedding", None)]
    body = st.client(ADMIN_KEY).post("/api/v1/deadletters/replay", json={"document_ids": [st.a]}).json()
    assert body["documents"][0]["replayed"] == 2 and body["documents"][0]["stage"] == "embedding"
    sent = [(t, k, ChunkRangeWork.model_validate(p).range_number) for p, t, k in st.state.broker.sent]
    assert sorted(sent) == [(topics.CHUNK_RANGES, f"{st.a}:1".encode(), 1),
                            (topics.CHUNK_RANGES, f"{st.a}:3".encode(), 3)]


def test_replay_of_an_unknown_document_is_404_and_a_bare_request_400(st: Stack) -> None:
    c = st.client(ADMIN_KEY)
    assert c.post("/api/v1/deadletters/replay", json={"document_ids": [MISSING]}).status_code == 404
    assert c.post("/api/v1/deadletters/replay", json={}).status_code == 400
    assert st.state.broker.sent == []


def test_replay_kafka_refuses_leaves_the_document_failed(st: Stack) -> None:
    fail(st, st.a)
    st.letters += [chunked_letter(st.a, "dept-a", 0)]
    st.state.broker = Broker(fail=True)
    body = st.client(ADMIN_KEY).post("/api/v1/deadletters/replay", json={"document_ids": [st.a]}).json()
    assert body["documents"][0]["replayed"] == 0 and "Kafka" in body["documents"][0]["skipped"]
    assert st.gw.registry.records[st.a].status == "failed"


def test_listing_503_when_kafka_cannot_be_read(st: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    async def down(settings: Any, timeout_s: float = 0) -> list[Letter]:
        raise ConnectionError("no broker")

    monkeypatch.setattr(deadletters, "read_letters", down)
    assert st.client(ADMIN_KEY).get("/api/v1/deadletters").status_code == 503

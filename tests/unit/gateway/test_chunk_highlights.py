"""The chunk routes carry each chunk's highlights from chunks.json: the document's chunk list and
``GET /api/v1/chunks/{id}``, scoped like every document route."""
from __future__ import annotations

from fastapi.testclient import TestClient

from services.gateway.auth.keys import KeyRecord, key_sha256
from shared import storage
from shared.api import ChunkInfo, DocumentRecord
from shared.models import Chunk, ChunkSet, Highlight
from tests.unit.gateway.test_gateway_contract import Gateway, MemoryVectors

DOC = "b" * 32
HIGHLIGHT = Highlight(page=3, rects=[(90.0, 386.6, 474.6, 404.9), (90.0, 428.7, 502.6, 447.0)],
                      texts=["問 A2︰地下蓄洪池設於民居附近", "答 A2︰蓄洪池在平日會保持乾涸"])


def _meta(index: int, **extra: object) -> dict[str, object]:
    return {"document_id": DOC, "filename": "E.pdf", "file_type": "pdf", "chunk_index": index,
            "page_number": 3, "strategy_type": "question", "department": "default", **extra}


def _gateway(with_chunks_json: bool = True) -> Gateway:
    g = Gateway(MemoryVectors({f"{DOC}_0": ("section text", _meta(0)),
                               f"{DOC}_1": ("問 A2︰…", _meta(1, chunk_kind="qa", question_id="A2"))}))
    g.registry.records[DOC] = DocumentRecord(document_id=DOC, filename="E.pdf", strategy="question",
                                             upload_date="2026-05-16T00:00:00+00:00")
    if with_chunks_json:
        g.store.put_json(storage.chunks_key(DOC), ChunkSet(
            document_id=DOC, filename="E.pdf", strategy="question", strategy_used="question", file_type="pdf",
            chunks=[Chunk(chunk_index=0, text="section text"),
                    Chunk(chunk_index=1, text="問 A2︰…", highlights=[HIGHLIGHT])]))
    return g


def test_the_chunk_list_carries_highlights_where_the_chunk_has_them() -> None:
    chunks = _gateway().client.get(f"/api/v1/documents/{DOC}/chunks").json()["chunks"]
    assert "highlights" not in chunks[0]                       # none stored: the field is left out
    assert chunks[1]["highlights"] == [HIGHLIGHT.model_dump(mode="json")]
    assert chunks[1]["highlights"][0]["rects"][0] == [90.0, 386.6, 474.6, 404.9]
    assert ChunkInfo.model_validate(chunks[1]).highlights == [HIGHLIGHT]


def test_a_document_without_chunks_json_lists_its_chunks_without_highlights() -> None:
    chunks = _gateway(with_chunks_json=False).client.get(f"/api/v1/documents/{DOC}/chunks").json()["chunks"]
    assert len(chunks) == 2 and all("highlights" not in c for c in chunks)


def test_one_chunk_by_id_with_its_highlights() -> None:
    g = _gateway()
    got = g.client.get(f"/api/v1/chunks/{DOC}_1")
    assert got.status_code == 200
    body = got.json()
    assert (body["chunk_id"], body["question_id"], body["page_number"]) == (f"{DOC}_1", "A2", 3)
    assert body["highlights"][0]["texts"] == HIGHLIGHT.texts
    assert "highlights" not in g.client.get(f"/api/v1/chunks/{DOC}_0").json()


def test_an_unknown_or_foreign_chunk_is_404() -> None:
    g = _gateway()
    for bad in (f"{DOC}_9", f"{'c' * 32}_1", "nonsense", f"{DOC}_x"):
        assert g.client.get(f"/api/v1/chunks/{bad}").status_code == 404, bad
    other = "lgk_0b0b0b0b_" + "B" * 32
    g.app.state.gateway.keys.records["0b0b0b0b"] = KeyRecord(
        key_prefix="0b0b0b0b", sha256=key_sha256(other), department="planning", role="member",
        created_at="2026-12-01T00:00:00+00:00")
    foreign = TestClient(g.app, headers={"Authorization": f"Bearer {other}"})
    assert foreign.get(f"/api/v1/chunks/{DOC}_1").status_code == 404
    assert foreign.get(f"/api/v1/chunks/{DOC}_1").json() == g.client.get(f"/api/v1/chunks/{DOC}_9").json()
    assert TestClient(g.app).get(f"/api/v1/chunks/{DOC}_1").status_code == 401

"""A big document is embedded in chunk ranges (``services/embedder/ranges.py``): fan-out, range
workers and gatherer end in one ``documents.indexed`` with every chunk once and statistics that
are the exact sums of the stored vectors; a redelivered range adds nothing; a range that fails
part-way resumes at its first chunk not stored. FastStream's ``TestKafkaBroker`` stands in for
Kafka (an event a handler publishes reaches the subscribed handler at once); MinIO, Chroma and
the e5 server are the test stack's."""
from __future__ import annotations

import importlib
import uuid

import pytest
from faststream.kafka import TestKafkaBroker

from services.embedder.batcher import FairBatcher
from services.embedder.generations import Generations
from shared import storage, topics
from shared.events import ChunkRangeEmbedded, ChunkRangeWork, DocumentChunked, DocumentIndexed
from shared.gather import GatherState
from shared.models import Chunk, ChunkSet
from shared.storage import ObjectStore
from shared.vectorstore import VectorStore
from tests.conftest import settings_env
from tests.handlers.endpoints import Endpoint

TOPICS = ["撥款", "補償", "安置", "交通", "房屋", "教育", "醫療", "環境", "保安", "文化", "財政", "規劃"]
RANGE = 5  # chunks per range: 12 chunks -> ranges of 5, 5 and 2


@pytest.fixture(scope="module")
def settings(stack):
    keys = ("MINIO_ENDPOINT", "MINIO_ACCESS_KEY", "MINIO_SECRET_KEY", "CHROMA_HOST", "CHROMA_PORT",
            "EMBEDDINGS_BASE_URL")
    with settings_env({**{k: stack.env[k] for k in keys}, "HANDLER_RETRY_BASE_S": "0.01",
                       "EMBEDDINGS_BATCH_TOKENS": "500", "EMBEDDER_RANGE_CHUNKS": str(RANGE)}) as s:
        yield s


@pytest.fixture(scope="module")
def embedder(settings):
    mod = importlib.import_module("services.embedder.main")
    store = ObjectStore(settings)
    store.ensure_bucket()
    mod.stage.provide(settings=settings, store=store, vectors=VectorStore(settings), range_gather=GatherState())
    return mod


def use(embedder, endpoint: Endpoint) -> None:
    s = embedder.stage.settings
    batcher = FairBatcher(endpoint, s.embeddings_batch_size, max_tokens=s.embeddings_batch_tokens)
    embedder.stage.provide(batcher=batcher, generations=Generations(s, embedder.stage.client("vectors"), batcher))


def document(store: ObjectStore) -> DocumentChunked:
    """A registered document of 12 Q&A chunks of ~160 e5 tokens, its chunk set stored."""
    doc_id = uuid.uuid4().hex
    store.put_json(storage.manifest_key(doc_id), {"document_id": doc_id})
    chunks = []
    for i, t in enumerate(TOPICS):
        q = f"議員問及{t}政策第{i}項措施的進度及開支為何？"
        a = (f"政府答覆：{t}政策第{i}項措施已於本年度展開，預算開支為{i + 3}億元，"
             f"預計於二〇二{i % 10}年完成，並會定期向立法會匯報進度及成效。") * 3
        chunks.append(Chunk(chunk_index=i, text=f"{q}\n{a}", embed_text=f"{q}\n{a}", page_number=i + 1,
                            metadata={"chunk_kind": "qa", "question_text": q, "topic_section": t}))
    store.put_json(storage.chunks_key(doc_id), ChunkSet(
        document_id=doc_id, filename="big.txt", strategy="question", strategy_used="question", file_type="txt",
        chunks=chunks))
    return DocumentChunked(document_id=doc_id, department="legco", visibility="shared", filename="big.txt",
                           strategy="question", strategy_used="question", file_type="txt", page_count=12,
                           chunks_key=storage.chunks_key(doc_id), chunk_count=12)


def stored_sum(vectors: VectorStore, doc_id: str) -> list[float]:
    """The sum of the document's stored chunk vectors, added in chunk order."""
    records = vectors.document_records(doc_id)
    total: list[float] | None = None
    for _, (_, _meta, emb) in sorted(records.items(), key=lambda r: int(r[1][1]["chunk_index"])):
        total = list(emb) if total is None else [a + b for a, b in zip(total, emb, strict=True)]
    assert total is not None
    return total


async def test_ranges_end_in_one_indexed_with_every_chunk_once_and_exact_statistics(embedder, settings):
    store, vectors = embedder.stage.client("store"), embedder.stage.client("vectors")
    endpoint = Endpoint(settings)
    use(embedder, endpoint)
    event = document(store)
    async with TestKafkaBroker(embedder.stage.broker) as br:
        await br.publish(event, topics.CHUNKED)
        works = [ChunkRangeWork.model_validate(c.args[0]) for c in embedder.range_pub.mock.call_args_list]
        dones = [ChunkRangeEmbedded.model_validate(c.args[0]) for c in embedder.range_done_pub.mock.call_args_list]
        assert embedder.stage.pubs.output.mock.call_count == 1                      # one documents.indexed
        indexed = DocumentIndexed.model_validate(embedder.stage.pubs.output.mock.call_args.args[0])
        progress = [c.args[0] for c in embedder.stage.pubs.progress.mock.call_args_list]
        texts_first = len(endpoint.texts)

        # a range delivered again (after the document was indexed) adds nothing and indexes nothing
        await br.publish(works[1], topics.CHUNK_RANGES)
        await br.publish(dones[1], topics.CHUNK_RANGE_DONE)
        assert embedder.stage.pubs.output.mock.call_count == 1
    assert [(w.range_number, w.range_count, w.first_chunk, w.last_chunk) for w in works] == [
        (1, 3, 0, 4), (2, 3, 5, 9), (3, 3, 10, 11)]
    assert {w.lang for w in works} == {"zh"} and len({w.title for w in works}) == 1
    assert sorted(d.range_number for d in dones) == [1, 2, 3] and sum(d.chunk_count for d in dones) == 12
    assert (indexed.document_id, indexed.chunk_count, indexed.department) == (event.document_id, 12, "legco")
    assert progress[-1]["status"] == "indexed" and progress[-1]["chunk_count"] == 12
    # every chunk and question line embedded once: by the ranges; the gatherer's finish embedded none
    assert texts_first == 24 and len(endpoint.texts) == 24
    got = vectors.get_document_chunks(event.document_id)
    assert sorted(m["chunk_index"] for m in got["metadatas"]) == list(range(12))   # each chunk once
    assert {m["lang"] for m in got["metadatas"]} == {"zh"}
    assert len(vectors.document_records(event.document_id, "questions")) == 12
    stats = vectors.document_stats(event.document_id)
    assert list(stats) == ["zh"] and stats["zh"][1] == 12
    assert stats["zh"][0] == stored_sum(vectors, event.document_id)             # exact: same sums, same order
    assert store.exists(storage.embedding_indexed_key(event.document_id))
    vectors.delete_document(event.document_id)
    store.delete_document(event.document_id)


async def test_a_range_that_fails_part_way_resumes_at_its_first_chunk_not_stored(embedder, settings):
    store, vectors = embedder.stage.client("store"), embedder.stage.client("vectors")
    # range 1 (5 chunks of ~160 tokens, each with its question line in its batch, batches of
    # <= 500 tokens): request 3 fails; the retry skips the chunks stored and embeds the rest
    endpoint = Endpoint(settings, fail_at=3)
    use(embedder, endpoint)
    event = document(store)
    async with TestKafkaBroker(embedder.stage.broker) as br:
        await br.publish(event, topics.CHUNKED)
        assert embedder.stage.pubs.output.mock.call_count == 1
        embedder.stage.pubs.dead_letter.mock.assert_not_called()
    # requests take texts across batch boundaries (FairBatcher), so the failed request also fails
    # the batch whose head went in the request before it: those texts (at most one batch, <= 4
    # texts here) are embedded again; nothing of a batch that was stored is
    twice = [t for t in set(endpoint.texts) if endpoint.texts.count(t) > 1]
    assert endpoint.requests > 3 and 24 <= len(endpoint.texts) <= 24 + 4 and len(twice) <= 4
    assert vectors.count_document(event.document_id) == 12
    assert vectors.document_stats(event.document_id)["zh"][1] == 12
    vectors.delete_document(event.document_id)
    store.delete_document(event.document_id)


async def test_a_small_document_is_embedded_whole(embedder, settings):
    store, vectors = embedder.stage.client("store"), embedder.stage.client("vectors")
    use(embedder, Endpoint(settings))
    embedder.stage.provide(settings=settings.model_copy(update={"embedder_range_chunks": 12}))
    event = document(store)
    try:
        async with TestKafkaBroker(embedder.stage.broker) as br:
            await br.publish(event, topics.CHUNKED)
            embedder.range_pub.mock.assert_not_called()
            assert embedder.stage.pubs.output.mock.call_count == 1
    finally:
        embedder.stage.provide(settings=settings)
    assert vectors.count_document(event.document_id) == 12
    # a whole run sums the endpoint's vectors as they came (float64 JSON), Chroma keeps float32:
    # equal to the stored sums within float32 rounding (a ranged document's are the stored sums)
    assert vectors.document_stats(event.document_id)["zh"][0] == pytest.approx(
        stored_sum(vectors, event.document_id), rel=1e-6, abs=1e-6)
    assert not store.exists(storage.embedding_job_key(event.document_id))
    vectors.delete_document(event.document_id)
    store.delete_document(event.document_id)

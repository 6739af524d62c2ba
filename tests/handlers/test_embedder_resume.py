"""A document whose embedding attempt fails part-way (here: a request times out) resumes from its
last completed batch, and the e5 server computes no batch twice — the abandoned one answers the
retry, and the batches asked for ahead of it (``lookahead.embed_ahead``) are finished and kept.
Counted at both ends: the embedder's requests and the test stack's e5 server counters
(``GET /health``). FastStream's ``TestKafkaBroker`` stands in for Kafka; MinIO, Chroma and the
e5 server are the test stack's."""
from __future__ import annotations

import importlib
import uuid
from collections.abc import Sequence

import httpx
import pytest
from faststream.kafka import TestKafkaBroker

from services.embedder.batcher import FairBatcher
from services.embedder.generations import Generations
from shared import storage, topics
from shared.embeddings import EmbeddingClient
from shared.events import DocumentChunked
from shared.models import Chunk, ChunkSet
from shared.storage import ObjectStore
from shared.vectorstore import VectorStore
from tests.conftest import settings_env

TOPICS = ["撥款", "補償", "安置", "交通", "房屋", "教育", "醫療", "環境", "保安", "文化", "財政", "規劃"]


@pytest.fixture(scope="module")
def settings(stack):
    keys = ("MINIO_ENDPOINT", "MINIO_ACCESS_KEY", "MINIO_SECRET_KEY", "CHROMA_HOST", "CHROMA_PORT",
            "EMBEDDINGS_BASE_URL")
    # the abandoned request's timeout is an outage of the endpoint (shared.outage): waited out
    # (briefly here), no attempt used
    with settings_env({**{k: stack.env[k] for k in keys}, "HANDLER_RETRY_BASE_S": "0.01",
                       "OUTAGE_RETRY_BASE_S": "0.05",
                       "EMBEDDINGS_BATCH_TOKENS": "500", "CLIENT_RETRY_BASE_S": "0.05"}) as s:
        yield s


def e5_counters(settings) -> dict:
    base = settings.embeddings_base_url.removesuffix("/v1")
    return httpx.get(f"{base}/health", timeout=10).json()["requests"]


def chunk_set(doc_id: str) -> ChunkSet:
    """12 Q&A chunks of ~160 e5 tokens, each with a question line: batches of 2 chunks and
    their 2 question lines under a 500-token budget."""
    chunks = []
    for i, t in enumerate(TOPICS):
        q = f"議員問及{t}政策第{i}項措施的進度及開支為何？"
        a = (f"政府答覆：{t}政策第{i}項措施已於本年度展開，預算開支為{i + 3}億元，"
             f"預計於二〇二{i % 10}年完成，並會定期向立法會匯報進度及成效。") * 3
        chunks.append(Chunk(chunk_index=i, text=f"{q}\n{a}", embed_text=f"{q}\n{a}", page_number=i + 1,
                            metadata={"chunk_kind": "qa", "question_text": q, "topic_section": t}))
    return ChunkSet(document_id=doc_id, filename="resume.txt", strategy="question", strategy_used="question",
                    file_type="txt", chunks=chunks)


class Endpoint:
    """The embedder's endpoint calls: the real client, except that request number ``hasty_at``
    (1-based) goes through a client whose timeout is far too short, so it is abandoned at the
    e5 server while being computed."""

    def __init__(self, settings, hasty_at: int | None) -> None:
        self.client = EmbeddingClient(settings)
        # 0.05 s: a batch of ~480 e5 tokens takes 0.2-1 s on this CPU (0.3 s was once beaten on a
        # fast, quiet run, and nothing was abandoned); the read timeout starts after the request is
        # sent, so the e5 server still receives it
        self.hasty = EmbeddingClient(settings.model_copy(update={"embeddings_timeout_min_s": 0.05,
                                                                 "client_retry_attempts": 1}))
        self.hasty.speed.measured = 1e9           # "the endpoint is very fast": a 0.05 s timeout
        self.hasty_at = hasty_at
        self.calls: list[int] = []                 # texts per request, in order
        self.requests: list[list[str]] = []        # the texts of each request, in order

    async def __call__(self, texts: list[str], tokens: Sequence[int] | None = None) -> list[list[float]]:
        self.calls.append(len(texts))
        self.requests.append(list(texts))
        client = self.hasty if len(self.calls) == self.hasty_at else self.client
        return await client.embed_passages(texts, tokens)


async def test_embedding_resumes_from_the_last_completed_batch_and_no_batch_is_computed_twice(settings):
    embedder = importlib.import_module("services.embedder.main")
    stage = embedder.stage
    store = ObjectStore(settings)
    store.ensure_bucket()
    vectors = VectorStore(settings)
    doc_id = uuid.uuid4().hex
    store.put_bytes(storage.original_key(doc_id), b"x")
    store.put_json(storage.manifest_key(doc_id), {"document_id": doc_id})
    cs = chunk_set(doc_id)
    store.put_json(storage.chunks_key(doc_id), cs)
    event = DocumentChunked(document_id=doc_id, filename=cs.filename, strategy="question", strategy_used="question",
                            file_type="txt", page_count=12, chunks_key=storage.chunks_key(doc_id), chunk_count=12)
    endpoint = Endpoint(settings, hasty_at=4)      # batch 4's request; batches 5 and 6 are asked for ahead
    saved = {name: stage.broker.context.get(name)
             for name in ("settings", "store", "vectors", "batcher", "generations")}
    # one request at a time, so each request is one batch and the abandoned one is computed at
    # the server (with 2 in flight it may wait there behind the other and be dropped uncomputed
    # when its client leaves: computed once too, but by the retry)
    batcher = FairBatcher(endpoint, settings.embeddings_batch_size, in_flight=1,
                          max_tokens=settings.embeddings_batch_tokens)
    stage.provide(settings=settings, store=store, vectors=vectors, batcher=batcher,
                  generations=Generations(settings, vectors, batcher))
    before = e5_counters(settings)
    try:
        async with TestKafkaBroker(stage.broker) as br:
            await br.publish(event, topics.CHUNKED)
            final = stage.pubs.progress.mock.call_args.args[0]
            stage.pubs.dead_letter.mock.assert_not_called()
            after = e5_counters(settings)
            first_pass = list(endpoint.calls)
            endpoint.calls.clear()
            await br.publish(event, topics.CHUNKED)   # a redelivery of the indexed document
            again = e5_counters(settings)
    finally:
        stage.provide(**{k: v for k, v in saved.items() if v is not None})
    delta = {k: after[k] - before[k] for k in ("computed", "skipped_client_gone", "kept_for_retry",
                                                 "answered_from_kept", "rejected_busy")}
    print(f"\n[resume] requests sent (texts each): {first_pass}; e5 counters of the run: {delta}; "
          f"the redelivery: {len(endpoint.calls)} requests, {again['computed'] - after['computed']} computed")
    assert final["status"] == "indexed" and final["chunk_count"] == 12
    assert vectors.count_document(doc_id) == 12
    assert len(vectors.document_records(doc_id, "questions")) == 12
    # 6 batches of 2 chunks + 2 question lines, one request each; attempt 1 sent all 6 (the 4th
    # abandoned, the 5th and 6th asked for ahead and written), attempt 2 sends the 4th again
    abandoned = endpoint.requests[3]
    assert first_pass == [4] * 7 and endpoint.requests[-1] == abandoned
    assert sum(first_pass) == 24 + len(abandoned)          # nothing but the abandoned batch resent
    computed = after["computed"] - before["computed"]
    assert computed == 6                                   # every batch computed once
    assert after["kept_for_retry"] - before["kept_for_retry"] == 1
    assert after["answered_from_kept"] - before["answered_from_kept"] == 1
    assert endpoint.calls == [] and again["computed"] == after["computed"]  # nothing left to embed
    stats = vectors.document_stats(doc_id)
    assert sum(n for _, n in stats.values()) == 12
    vectors.delete_document(doc_id)

"""The embedder keeps the e5 server fed: two requests are outstanding at once (``EMBEDDINGS_IN_FLIGHT``)
and a document's next batches are computed while one is written (``EMBEDDER_BATCHES_AHEAD``;
Chroma writes slowed here by 0.4 s each). And with ``EMBED_PAGE_OVERLAP=false`` it embeds each
page once: with both neighbour weights 0 a token-strategy page chunk's vector is that of its
own page text (composed with its neighbours': ``test_embedder_neighbours.py``), while the stored
text keeps the overlap with its neighbours for display and the LLM. A real PDF of the corpus through the
in-process pipeline; MinIO, Chroma and the e5 server are the test stack's, FastStream's
``TestKafkaBroker`` stands in for Kafka."""
from __future__ import annotations

import importlib
import math
import time
import uuid
from collections.abc import Sequence
from typing import Any

import pytest
from faststream.kafka import TestKafkaBroker

from cli.pipeline import split_file
from services.embedder.batcher import FairBatcher
from services.embedder.generations import Generations
from services.embedder.search_text import text_sha
from shared import storage, topics
from shared.embeddings import EmbeddingClient
from shared.events import DocumentChunked
from shared.storage import ObjectStore
from shared.textnorm import normalize_for_search
from shared.vectorstore import VectorStore
from tests.conftest import REAL, settings_env

PDF = REAL / "hk_legco_sub_710-06_zh.pdf"   # 6 pages of Chinese text
WRITE_S = 0.4                                # each Chroma write takes this much longer


@pytest.fixture(scope="module")
def settings(stack):
    keys = ("MINIO_ENDPOINT", "MINIO_ACCESS_KEY", "MINIO_SECRET_KEY", "CHROMA_HOST", "CHROMA_PORT",
            "EMBEDDINGS_BASE_URL")
    # small batches: a page a batch, so the document has several
    with settings_env({**{k: stack.env[k] for k in keys}, "HANDLER_RETRY_BASE_S": "0.01",
                       "EMBEDDINGS_BATCH_TOKENS": "300", "EMBEDDINGS_IN_FLIGHT": "2", "EMBED_PAGE_OVERLAP": "false",
                       "EMBED_NEIGHBOUR_WEIGHT": "0", "EMBED_TABLE_NEIGHBOUR_WEIGHT": "0",
                       "EMBEDDER_BATCHES_AHEAD": "3"}) as s:
        yield s


class SlowWrites:
    """A pinned store of the test stack's Chroma whose chunk writes take ``WRITE_S`` longer;
    records when the writes ran."""

    def __init__(self, inner: VectorStore, writes: list[tuple[float, float]]) -> None:
        self._inner = inner
        self.writes = writes

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def upsert(self, *a: Any, **kw: Any) -> None:
        t0 = time.monotonic()
        time.sleep(WRITE_S)
        self._inner.upsert(*a, **kw)
        self.writes.append((t0, time.monotonic()))


class SlowGenerations(Generations):
    """The embedder's generations, every store it hands out slowed (``SlowWrites``)."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.writes: list[tuple[float, float]] = []

    def store(self, generation: Any) -> Any:
        return SlowWrites(super().store(generation), self.writes)


class Recording:
    """The real embeddings client; records when each request was sent and answered."""

    def __init__(self, settings) -> None:
        self.client = EmbeddingClient(settings)
        self.requests: list[tuple[float, float]] = []
        self.outstanding = 0
        self.most = 0

    async def __call__(self, texts: list[str], tokens: Sequence[int] | None = None) -> list[list[float]]:
        t0 = time.monotonic()
        self.outstanding += 1
        self.most = max(self.most, self.outstanding)
        try:
            return await self.client.embed_passages(texts, tokens)
        finally:
            self.outstanding -= 1
            self.requests.append((t0, time.monotonic()))


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


async def test_requests_overlap_the_writes_and_each_page_is_embedded_once(settings):
    embedder = importlib.import_module("services.embedder.main")
    stage = embedder.stage
    store = ObjectStore(settings)
    store.ensure_bucket()
    vectors = VectorStore(settings)
    doc_id = uuid.uuid4().hex
    store.put_bytes(storage.original_key(doc_id), b"x")
    store.put_json(storage.manifest_key(doc_id), {"document_id": doc_id})
    cs, _ = split_file(PDF, "token", settings, doc_id)
    store.put_json(storage.chunks_key(doc_id), cs)
    event = DocumentChunked(document_id=doc_id, filename=PDF.name, strategy="token", strategy_used="token",
                            file_type="pdf", page_count=6, chunks_key=storage.chunks_key(doc_id),
                            chunk_count=len(cs.chunks))
    endpoint = Recording(settings)
    batcher = FairBatcher.from_settings(endpoint, settings)
    saved = {name: stage.broker.context.get(name)
             for name in ("settings", "store", "vectors", "batcher", "generations")}
    generations = SlowGenerations(settings, vectors, batcher)
    stage.provide(settings=settings, store=store, vectors=vectors, batcher=batcher, generations=generations)
    try:
        async with TestKafkaBroker(stage.broker) as br:
            await br.publish(event, topics.CHUNKED)
            final = stage.pubs.progress.mock.call_args.args[0]
    finally:
        stage.provide(**{k: v for k, v in saved.items() if v is not None})
        await batcher.close()
    chunks = [c for c in cs.chunks if c.text.strip()]
    assert final["status"] == "indexed" and final["chunk_count"] == len(chunks) >= 5
    # a page a batch: as many requests and writes as pages, two requests at the endpoint at once,
    # and requests computed while the slow writes ran (with one batch at a time, none would be)
    assert len(endpoint.requests) == len(generations.writes) == len(chunks)
    assert endpoint.most == 2
    overlapping = [w for w in generations.writes if any(s < w[1] and e > w[0] for s, e in endpoint.requests)]
    print(f"\n[lookahead] {len(generations.writes)} writes of {WRITE_S} s, {len(overlapping)} with a request "
          f"at the endpoint meanwhile; at most {endpoint.most} requests outstanding")
    assert len(overlapping) >= 1

    stored = vectors.document_records(doc_id, "chunks")
    middle = [c for c in chunks if c.metadata["overlap_before_chars"] and c.metadata["overlap_after_chars"]]
    assert middle
    own = [normalize_for_search(c.own_text()) for c in middle[:2]]
    whole = [normalize_for_search(c.text) for c in middle[:2]]
    client = EmbeddingClient(settings)
    own_vecs, whole_vecs = await client.embed_passages(own), await client.embed_passages(whole)
    for c, own_text, own_vec, whole_vec in zip(middle[:2], own, own_vecs, whole_vecs, strict=True):
        text, meta, vec = stored[c.chunk_id(doc_id)]
        assert text == c.text and len(own_text) < len(normalize_for_search(c.text))  # the overlap is kept
        assert meta["vector_sha"] == text_sha(own_text)
        assert cosine(vec, own_vec) > 0.9999                                   # the page's own text
        assert cosine(vec, whole_vec) < cosine(vec, own_vec)                   # not the text with overlap
    vectors.delete_document(doc_id)

"""Page vectors composed with their neighbours' (``EMBED_PAGE_OVERLAP=false``,
``services/embedder/neighbours.py``): each page's own text is embedded once, the stored vector is
the composition of the page's and its neighbours' own vectors, the statistics are their exact
sums; a redelivery embeds nothing; an attempt that fails part-way resumes without embedding a page
twice; a chunk range writes own-text records that the whole run then composes without embedding.
``embed_and_store`` is called directly on a real paper's page chunks (the in-process splitter);
MinIO, Chroma and the e5 server are the test stack's."""
from __future__ import annotations

import uuid
from pathlib import Path

import numpy as np
import pytest

from cli.pipeline import split_file
from services.embedder.handle import RangePart, embed_and_store
from services.embedder.neighbours import COMPOSED_KIND, OWN_KIND, compose, composed_sha, neighbours
from services.embedder.search_text import chunk_search_text, document_title, text_sha
from shared import storage
from shared.events import DocumentChunked
from shared.lang import detect_language
from shared.models import ChunkSet
from shared.storage import ObjectStore
from shared.vectorstore import VectorStore
from tests.conftest import settings_env
from tests.handlers.endpoints import Endpoint

PAPER = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "real" / "hk_legco_sub_710-06_zh.pdf"
WEIGHT = 0.5
TABLE_WEIGHT = 2.5
TABLE_PAGE = 2
"""The paper has no table; its third page is marked as holding one (``has_table``, as the splitter
marks a page with a table), so its vector is composed at ``TABLE_WEIGHT``."""


@pytest.fixture(scope="module")
def settings(stack):
    keys = ("MINIO_ENDPOINT", "MINIO_ACCESS_KEY", "MINIO_SECRET_KEY", "CHROMA_HOST", "CHROMA_PORT",
            "EMBEDDINGS_BASE_URL")
    with settings_env({**{k: stack.env[k] for k in keys}, "EMBED_PAGE_OVERLAP": "false",
                       "EMBED_NEIGHBOUR_WEIGHT": str(WEIGHT), "EMBED_TABLE_NEIGHBOUR_WEIGHT": str(TABLE_WEIGHT),
                       "EMBEDDINGS_BATCH_TOKENS": "1200"}) as s:
        yield s


@pytest.fixture(scope="module")
def pages(settings) -> ChunkSet:
    """The 6-page paper split by token: one chunk per page with ~200 tokens of each neighbour,
    page ``TABLE_PAGE + 1`` marked as holding a table."""
    cs, _ = split_file(PAPER, "token", settings)
    assert len(cs.chunks) >= 4 and all("overlap_before_chars" in c.metadata for c in cs.chunks)
    assert not any(c.metadata.get("has_table") for c in cs.chunks)
    cs.chunks[TABLE_PAGE].metadata["has_table"] = True
    return cs


def register(settings, pages: ChunkSet) -> tuple[DocumentChunked, ObjectStore]:
    store = ObjectStore(settings)
    store.ensure_bucket()
    doc_id = uuid.uuid4().hex
    store.put_json(storage.manifest_key(doc_id), {"document_id": doc_id})
    key = storage.chunks_key(doc_id)
    store.put_json(key, pages.model_copy(update={"document_id": doc_id}))
    event = DocumentChunked(document_id=doc_id, filename=PAPER.name, department="legco", visibility="shared",
                            strategy="token", strategy_used=pages.strategy_used, file_type=pages.file_type,
                            page_count=len(pages.chunks), chunks_key=key, chunk_count=len(pages.chunks))
    return event, store


async def _no_report(**_: object) -> None:
    return None


async def run(event, store, vectors, endpoint, settings, part=None) -> int:
    return await embed_and_store(event, store, vectors, endpoint, settings, _no_report, part=part)


def own_texts(pages: ChunkSet) -> list[str]:
    return [chunk_search_text(c, False) for c in pages.chunks if c.text.strip()]


def weight_of(i: int) -> float:
    return TABLE_WEIGHT if i == TABLE_PAGE else WEIGHT


def expected(pages: ChunkSet, own_vectors: list[list[float]]) -> list[list[float]]:
    around = neighbours(list(range(len(own_vectors))))
    return [compose(own_vectors[i], [own_vectors[j] for j in around[i]], weight_of(i))
            for i in range(len(own_vectors))]


async def test_each_page_is_embedded_once_and_stored_composed_with_its_neighbours(settings, pages):
    event, store = register(settings, pages)
    vectors = VectorStore(settings)
    endpoint = Endpoint(settings)
    texts = own_texts(pages)
    assert await run(event, store, vectors, endpoint, settings) == len(texts)
    assert sorted(endpoint.texts) == sorted(texts)                      # each page's own text, once
    records = vectors.document_records(event.document_id)
    ids = [c.chunk_id(event.document_id) for c in pages.chunks if c.text.strip()]
    want = expected(pages, [endpoint.vectors[t] for t in texts])
    for i, (cid, vec) in enumerate(zip(ids, want, strict=True)):
        text, meta, got = records[cid]
        assert np.allclose(got, vec, atol=1e-6) and meta["vector_kind"] == COMPOSED_KIND
        nbrs = [text_sha(texts[j]) for j in neighbours(list(range(len(ids))))[i]]
        assert meta["vector_sha"] == composed_sha(text_sha(texts[i]), nbrs, weight_of(i))
        assert text == pages.chunks[i].text                          # the overlap stays for display
    # composed, not the page alone: the first page's vector moved towards the second's
    own0 = np.asarray(endpoint.vectors[texts[0]])
    assert float(np.dot(records[ids[0]][2], own0) / np.linalg.norm(own0)) < 0.999
    # the table page leans on its neighbours more than a prose page does
    def own_share(i: int) -> float:
        own = np.asarray(endpoint.vectors[texts[i]])
        return float(np.dot(records[ids[i]][2], own) / np.linalg.norm(own))
    assert own_share(TABLE_PAGE) < own_share(TABLE_PAGE + 1) and own_share(TABLE_PAGE) < own_share(TABLE_PAGE - 1)
    stats = vectors.document_stats(event.document_id)
    lang = detect_language(" ".join(c.text for c in pages.chunks))
    assert stats[lang][1] == len(ids)
    assert np.allclose(stats[lang][0], np.sum([records[c][2] for c in ids], axis=0), atol=1e-4)
    again = Endpoint(settings)                                           # a redelivery
    assert await run(event, store, vectors, again, settings) == len(texts)
    assert again.texts == [] and vectors.count_document(event.document_id) == len(ids)
    vectors.delete_document(event.document_id)


async def test_an_attempt_that_fails_part_way_resumes_without_embedding_a_page_twice(settings, pages):
    event, store = register(settings, pages)
    vectors = VectorStore(settings)
    texts = own_texts(pages)
    first = Endpoint(settings, fail_at=2)
    with pytest.raises(RuntimeError):
        await run(event, store, vectors, first, settings)
    stored = vectors.document_records(event.document_id)
    assert stored and all(m.get("vector_kind") == OWN_KIND for _, m, _ in stored.values())  # own only yet
    retry = Endpoint(settings)
    await run(event, store, vectors, retry, settings)
    assert sorted(first.texts + retry.texts) == sorted(texts)               # no page embedded twice
    own = {**first.vectors, **retry.vectors}
    records = vectors.document_records(event.document_id)
    want = expected(pages, [own[t] for t in texts])
    ids = [c.chunk_id(event.document_id) for c in pages.chunks if c.text.strip()]
    assert all(np.allclose(records[cid][2], vec, atol=1e-6) for cid, vec in zip(ids, want, strict=True))
    vectors.delete_document(event.document_id)


async def test_a_range_writes_own_vectors_and_the_whole_run_composes_them_without_embedding(settings, pages):
    event, store = register(settings, pages)
    vectors = VectorStore(settings)
    texts = own_texts(pages)
    title = document_title(pages)
    lang = detect_language(" ".join(c.text for c in pages.chunks))
    ranged = Endpoint(settings)
    await run(event, store, vectors, ranged, settings, part=RangePart(lang, title))
    assert all(m.get("vector_kind") == OWN_KIND for _, m, _ in vectors.document_records(event.document_id).values())
    assert vectors.document_stats(event.document_id) == {}                 # a range writes no statistics
    whole = Endpoint(settings)
    await run(event, store, vectors, whole, settings)                             # the gatherer's run
    assert whole.texts == []
    records = vectors.document_records(event.document_id)
    want = expected(pages, [ranged.vectors[t] for t in texts])
    ids = [c.chunk_id(event.document_id) for c in pages.chunks if c.text.strip()]
    assert all(np.allclose(records[cid][2], vec, atol=1e-6) for cid, vec in zip(ids, want, strict=True))
    again = Endpoint(settings)                                              # the range redelivered
    await run(event, store, vectors, again, settings, part=RangePart(lang, title))
    assert again.texts == [] and records[ids[0]][1]["vector_kind"] == COMPOSED_KIND
    assert vectors.document_records(event.document_id)[ids[0]][2] == records[ids[0]][2]
    vectors.delete_document(event.document_id)

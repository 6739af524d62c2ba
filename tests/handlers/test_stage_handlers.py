"""Service handlers under FastStream's in-memory ``TestKafkaBroker``: Kafka is replaced, MinIO,
Chroma and the embeddings server are the real ones of the test stack."""
from __future__ import annotations

import importlib
import uuid

import pytest
from faststream.kafka import TestKafkaBroker

from services.embedder.batcher import FairBatcher
from services.embedder.generations import Generations
from shared import storage, topics
from shared.embeddings import EmbeddingClient
from shared.events import DocumentChunked, DocumentIndexed, DocumentParsed, DocumentTablesDone, DocumentUploaded
from shared.models import ChunkSet
from shared.settings import Settings
from shared.storage import ObjectStore
from shared.vectorstore import VectorStore
from tests.conftest import BAD, FIXTURES, settings_env


@pytest.fixture(scope="module")
def settings(stack):
    """Settings pointing at the test stack; service modules imported under them."""
    keys = ("MINIO_ENDPOINT", "MINIO_ACCESS_KEY", "MINIO_SECRET_KEY", "CHROMA_HOST", "CHROMA_PORT",
            "EMBEDDINGS_BASE_URL")
    with settings_env({**{k: stack.env[k] for k in keys}, "HANDLER_RETRY_BASE_S": "0.01"}) as s:
        yield s


@pytest.fixture(scope="module")
def svc(settings):
    """The three worker modules, their stages handed real clients (as their lifespans would)."""
    parser = importlib.import_module("services.parser.main")
    splitter = importlib.import_module("services.splitter.main")
    embedder = importlib.import_module("services.embedder.main")
    store = ObjectStore(settings)
    store.ensure_bucket()
    parser.stage.provide(settings=settings, store=store)
    splitter.stage.provide(settings=settings, store=store)
    client = EmbeddingClient(settings)
    vectors, batcher = VectorStore(settings), FairBatcher(client.embed_passages, settings.embeddings_batch_size)
    embedder.stage.provide(settings=settings, store=store, vectors=vectors, embedder=client, batcher=batcher,
                           generations=Generations(settings, vectors, batcher))
    return parser, splitter, embedder


def use_batcher(embedder, batcher: FairBatcher) -> None:
    """Hand the embedder ``batcher`` (its default model's request stream) instead."""
    s = embedder.stage.settings
    embedder.stage.provide(batcher=batcher, generations=Generations(s, embedder.stage.client("vectors"), batcher))


@pytest.fixture(scope="module")
def store(svc) -> ObjectStore:
    """The object store the stages were handed."""
    return svc[0].stage.client("store")


def register(store: ObjectStore, data: bytes) -> str:
    """Put an original and a manifest in MinIO as the gateway would; returns the document id."""
    doc_id = uuid.uuid4().hex
    store.put_bytes(storage.original_key(doc_id), data)
    store.put_json(storage.manifest_key(doc_id), {"document_id": doc_id})
    return doc_id


def uploaded(doc_id: str, name: str, strategy: str = "question", department: str = "default",
             visibility: str = "department") -> DocumentUploaded:
    return DocumentUploaded(document_id=doc_id, filename=name, strategy=strategy, department=department,
                            visibility=visibility,
                            object_key=storage.original_key(doc_id), size_bytes=1, sha256="x",
                            upload_date="2026-11-29T00:00:00+00:00")


async def test_parser_stores_pages_and_emits_parsed(svc, store):
    parser, _, _ = svc
    doc_id = register(store, (FIXTURES / "B_古洞北粉嶺北新發展區概覽.pdf").read_bytes())
    async with TestKafkaBroker(parser.stage.broker) as br:
        await br.publish(uploaded(doc_id, "B.pdf"), topics.UPLOADED)
        await br.publish(uploaded(doc_id, "B.pdf"), topics.UPLOADED)   # redelivery
        assert parser.stage.pubs.output.mock.call_count == 2
        out = DocumentParsed.model_validate(parser.stage.pubs.output.mock.call_args.args[0])
    assert out.page_count == 5 and out.file_type == "pdf" and out.strategy == "question"
    keys = sorted(store.list_keys(storage.page_pdf_prefix(doc_id)))
    assert len(keys) == 5                                                  # overwritten, not doubled
    assert store.exists(out.pages_key)


async def test_parser_fails_bad_input_without_retry_or_output(svc, store):
    parser, _, _ = svc
    doc_id = register(store, (BAD / "C08c_user_password_required.pdf").read_bytes())
    async with TestKafkaBroker(parser.stage.broker) as br:
        await br.publish(uploaded(doc_id, "locked.pdf"), topics.UPLOADED)
        parser.stage.pubs.output.mock.assert_not_called()
        parser.stage.pubs.dead_letter.mock.assert_not_called()
        last = parser.stage.pubs.progress.mock.call_args.args[0]
    assert last["status"] == "failed" and "password" in last["error"].lower()


async def test_parser_skips_deleted_document(svc):
    parser, _, _ = svc
    doc_id = uuid.uuid4().hex          # no manifest: deleted before the event was handled
    async with TestKafkaBroker(parser.stage.broker) as br:
        await br.publish(uploaded(doc_id, "gone.pdf"), topics.UPLOADED)
        parser.stage.pubs.output.mock.assert_not_called()
        parser.stage.pubs.progress.mock.assert_not_called()


async def test_splitter_and_embedder_are_idempotent(svc, settings, store):
    """… and the upload's department and visibility reach every event and every vector."""
    parser, splitter, embedder = svc
    doc_id = register(store, (FIXTURES / "E_基礎設施.txt").read_bytes())
    async with TestKafkaBroker(parser.stage.broker) as br:
        await br.publish(uploaded(doc_id, "E.txt", department="legco", visibility="shared"), topics.UPLOADED)
        parsed = parser.stage.pubs.output.mock.call_args.args[0]
    async with TestKafkaBroker(splitter.stage.broker) as br:   # a TXT: the table stage passes its pages on
        await br.publish(DocumentTablesDone.model_validate(parsed), topics.TABLES)
        chunked = DocumentChunked.model_validate(splitter.stage.pubs.output.mock.call_args.args[0])
    chunk_set = ChunkSet.model_validate(store.get_json(chunked.chunks_key))
    assert chunked.strategy_used == "question" and chunked.chunk_count == len(chunk_set.chunks)
    assert (chunked.department, chunked.visibility) == ("legco", "shared")
    assert {c.metadata.get("question_id") for c in chunk_set.chunks} >= {"A1", "D7", "O4"}
    async with TestKafkaBroker(embedder.stage.broker) as br:
        await br.publish(chunked, topics.CHUNKED)
        await br.publish(chunked, topics.CHUNKED)                          # redelivery
        final = embedder.stage.pubs.progress.mock.call_args.args[0]
        assert embedder.stage.pubs.output.mock.call_count == 2
        done = DocumentIndexed.model_validate(embedder.stage.pubs.output.mock.call_args.args[0])
    assert final["status"] == "indexed" and final["chunk_count"] == chunked.chunk_count
    assert done.document_id == doc_id and done.chunk_count == chunked.chunk_count
    assert embedder.stage.client('vectors').count_document(doc_id) == chunked.chunk_count  # no duplicates
    assert (done.department, done.visibility) == ("legco", "shared")
    vectors = embedder.stage.client("vectors")
    where = {"document_id": doc_id}
    for coll in (vectors.collection, vectors.questions, vectors.stats):
        metas = coll.get(where=where, include=["metadatas"])["metadatas"]
        assert metas and {(m["department"], m["visibility"]) for m in metas} == {("legco", "shared")}
    vectors.delete_document(doc_id)


def chunked_event(doc_id: str) -> DocumentChunked:
    return DocumentChunked(document_id=doc_id, filename="t.txt", strategy="token", strategy_used="token",
                           file_type="txt", page_count=1, chunks_key=storage.chunks_key(doc_id), chunk_count=1)


def one_chunk_document(store: ObjectStore) -> str:
    doc_id = register(store, b"x")
    cs = ChunkSet(document_id=doc_id, filename="t.txt", strategy="token", strategy_used="token",
                  file_type="txt", chunks=[{"chunk_index": 0, "text": "立法會 test"}])
    store.put_json(storage.chunks_key(doc_id), cs)
    return doc_id


async def test_embedder_dead_letters_a_bug_after_bounded_retries(svc, settings, store):
    _, _, embedder = svc
    doc_id = one_chunk_document(store)
    good = embedder.stage.client("batcher")

    async def broken(texts: list[str]) -> list[list[float]]:
        raise RuntimeError("a bug in the embedding path")

    use_batcher(embedder, FairBatcher(broken, 8))
    try:
        async with TestKafkaBroker(embedder.stage.broker) as br:
            await br.publish(chunked_event(doc_id), topics.CHUNKED)
            dead = embedder.stage.pubs.dead_letter.mock.call_args.args[0]
            embedder.stage.pubs.output.mock.assert_not_called()  # nothing indexed: no documents.indexed
            last = embedder.stage.pubs.progress.mock.call_args.args[0]
    finally:
        use_batcher(embedder, good)
    assert dead["attempts"] == settings.handler_max_attempts and dead["source_topic"] == topics.CHUNKED
    assert dead["payload"]["document_id"] == doc_id
    assert last["status"] == "failed" and "dead-letter" in last["error"]
    assert embedder.stage.client('vectors').count_document(doc_id) == 0


async def test_embedder_waits_out_an_unreachable_endpoint_then_dead_letters_past_the_limit(svc, settings, store):
    _, _, embedder = svc
    doc_id = one_chunk_document(store)
    good, good_settings = embedder.stage.client("batcher"), embedder.stage.settings
    down = EmbeddingClient(Settings(embeddings_base_url="http://127.0.0.1:9/v1", client_retry_attempts=1))
    use_batcher(embedder, FairBatcher(down.embed_passages, 8))
    embedder.stage.provide(settings=settings.model_copy(update={"outage_limit_s": 1.0, "outage_retry_base_s": 0.1}))
    try:
        async with TestKafkaBroker(embedder.stage.broker) as br:
            await br.publish(chunked_event(doc_id), topics.CHUNKED)
            progress = [c.args[0] for c in embedder.stage.pubs.progress.mock.call_args_list]
            embedder.stage.pubs.dead_letter.mock.assert_called_once()
    finally:
        use_batcher(embedder, good)
        embedder.stage.provide(settings=good_settings)
    assert [p["waiting_for"] for p in progress if p.get("waiting_for")] == ["the embeddings endpoint"]
    last = progress[-1]
    assert last["status"] == "failed" and "the embeddings endpoint could not be reached" in last["error"]

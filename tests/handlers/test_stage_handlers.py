"""Service handlers under FastStream's in-memory ``TestKafkaBroker``: Kafka is replaced, MinIO,
Chroma and the embeddings server are the real ones of the test stack."""
from __future__ import annotations

import importlib
import uuid

import pytest
from faststream.kafka import TestKafkaBroker

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
    embedder.stage.provide(settings=settings, store=store, vectors=VectorStore(settings),
                           embedder=EmbeddingClient(settings))
    return parser, splitter, embedder


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


def uploaded(doc_id: str, name: str, strategy: str = "question") -> DocumentUploaded:
    return DocumentUploaded(document_id=doc_id, filename=name, strategy=strategy,
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
    parser, splitter, embedder = svc
    doc_id = register(store, (FIXTURES / "E_基礎設施.txt").read_bytes())
    async with TestKafkaBroker(parser.stage.broker) as br:
        await br.publish(uploaded(doc_id, "E.txt"), topics.UPLOADED)
        parsed = parser.stage.pubs.output.mock.call_args.args[0]
    async with TestKafkaBroker(splitter.stage.broker) as br:   # a TXT: the table stage passes its pages on
        await br.publish(DocumentTablesDone.model_validate(parsed), topics.TABLES)
        chunked = DocumentChunked.model_validate(splitter.stage.pubs.output.mock.call_args.args[0])
    chunk_set = ChunkSet.model_validate(store.get_json(chunked.chunks_key))
    assert chunked.strategy_used == "question" and chunked.chunk_count == len(chunk_set.chunks)
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
    embedder.stage.client('vectors').delete_document(doc_id)


async def test_embedder_dead_letters_after_bounded_retries(svc, settings, store):
    parser, splitter, embedder = svc
    doc_id = register(store, b"x")
    cs = ChunkSet(document_id=doc_id, filename="t.txt", strategy="token", strategy_used="token",
                  file_type="txt", chunks=[{"chunk_index": 0, "text": "立法會 test"}])
    store.put_json(storage.chunks_key(doc_id), cs)
    good = embedder.stage.client("embedder")
    down = EmbeddingClient(Settings(embeddings_base_url="http://127.0.0.1:9/v1"))  # nothing listens
    down.client = down.client.with_options(max_retries=0, timeout=2)
    embedder.stage.provide(embedder=down)
    try:
        async with TestKafkaBroker(embedder.stage.broker) as br:
            await br.publish(DocumentChunked(document_id=doc_id, filename="t.txt", strategy="token",
                                             strategy_used="token", file_type="txt", page_count=1,
                                             chunks_key=storage.chunks_key(doc_id), chunk_count=1),
                             topics.CHUNKED)
            dead = embedder.stage.pubs.dead_letter.mock.call_args.args[0]
            embedder.stage.pubs.output.mock.assert_not_called()  # nothing indexed: no documents.indexed
            last = embedder.stage.pubs.progress.mock.call_args.args[0]
    finally:
        embedder.stage.provide(embedder=good)
    assert dead["attempts"] == settings.handler_max_attempts and dead["source_topic"] == topics.CHUNKED
    assert dead["payload"]["document_id"] == doc_id
    assert last["status"] == "failed" and "dead-letter" in last["error"]
    assert embedder.stage.client('vectors').count_document(doc_id) == 0

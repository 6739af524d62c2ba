"""Table-stage handlers (fan-out, page worker, gatherer) and the splitter behind them, under
FastStream's in-memory ``TestKafkaBroker``: Kafka is replaced, MinIO is the real one of the
test stack, the vision LLM is a local fake OpenAI-compatible server. The clients are handed to
the stages with ``Stage.provide``. Inside one ``TestKafkaBroker`` the table stage's own topics
are delivered in-process, so publishing a ``DocumentParsed`` runs fan-out → page workers →
gatherer; single handlers are driven by publishing to their topic directly."""
from __future__ import annotations

import importlib
import uuid
from contextlib import contextmanager

import pytest
from faststream.kafka import TestKafkaBroker

from services.tables.gather import ForgetOnRebalance, GatherState
from services.tables.handle import ParsedPages, plan_document, process_page
from services.tables.page_result import PageResult
from services.tables.plumber_pool import PlumberPool
from services.tables.vision import VisionClient
from shared import storage, topics
from shared.events import (
    DocumentChunked,
    DocumentParsed,
    DocumentTablesDone,
    DocumentUploaded,
    PageTablesDone,
    PageWork,
)
from shared.metrics import REGISTRY
from shared.models import ChunkSet, PageText, ParsedDocument
from shared.storage import ObjectStore
from tests.conftest import FIXTURES, settings_env
from tests.fake_vision import FakeVisionServer

B_PDF = FIXTURES / "B_古洞北粉嶺北新發展區概覽.pdf"
# numbers in B's page text on every page (date line 2024-06-17): a valid answer
VALID = "| 項目 | 日期 |\n| --- | --- |\n| 文件日期 | 2024-06-17 |\n"
INVENTED = "| 項目 | 金額 |\n| --- | --- |\n| 虛構 | 987654321 |\n"


class CountingStore(ObjectStore):
    """The real MinIO store, counting list calls and page-result reads."""

    lists = 0
    result_gets = 0

    def list_keys(self, prefix: str, recursive: bool = True):
        type(self).lists += 1
        return super().list_keys(prefix, recursive)

    def get_bytes(self, key: str) -> bytes:
        if "/tables/pages/" in key:
            type(self).result_gets += 1
        return super().get_bytes(key)


@pytest.fixture(scope="module")
def fake():
    f = FakeVisionServer(VALID).start()
    yield f
    f.stop()


@pytest.fixture(scope="module")
def settings(stack, fake):
    """Settings on the test stack's MinIO, vision path on (fake server)."""
    env = {**{k: stack.env[k] for k in ("MINIO_ENDPOINT", "MINIO_ACCESS_KEY", "MINIO_SECRET_KEY")},
           "HANDLER_RETRY_BASE_S": "0.01",
           "VISION_ENABLED": "true", "VISION_BASE_URL": fake.base_url, "VISION_MODEL": f"fake-{uuid.uuid4().hex}"}
    with settings_env(env) as s:
        yield s


@pytest.fixture(scope="module")
def store(settings) -> CountingStore:
    s = CountingStore(settings)
    s.ensure_bucket()
    return s


@pytest.fixture(scope="module")
def svc(settings, store):
    """parser, tables and splitter modules, their stages handed real clients."""
    parser, tables, splitter = (importlib.import_module(f"services.{m}.main") for m in ("parser", "tables", "splitter"))
    plumber = PlumberPool(settings.vision_plumber_timeout_s, settings.vision_plumber_memory_limit_bytes)
    parser.stage.provide(settings=settings, store=store)
    splitter.stage.provide(settings=settings, store=store)
    tables.stage.provide(settings=settings, store=store, plumber=plumber, vision=VisionClient(settings),
                         parsed_pages=ParsedPages(), gather=GatherState())
    yield parser, tables, splitter
    plumber.close()


@pytest.fixture
def vision_off(svc):
    """The table stage without a vision client for one test."""
    tables = svc[1]
    vision = tables.stage.client("vision")
    tables.stage.provide(vision=None)
    yield
    tables.stage.provide(vision=vision)


@contextmanager
def fresh_model(tables):
    """A new vision model name for the block: no cached answer applies."""
    vision = tables.stage.client("vision")
    model, vision.model = vision.model, f"fake-{uuid.uuid4().hex}"
    try:
        yield
    finally:
        vision.model = model


def _metric(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def _parse(parser, store, path, strategy="question") -> DocumentParsed:
    doc_id = uuid.uuid4().hex
    store.put_bytes(storage.original_key(doc_id), path.read_bytes())
    store.put_json(storage.manifest_key(doc_id), {"document_id": doc_id})
    up = DocumentUploaded(document_id=doc_id, filename=path.name, strategy=strategy,
                          object_key=storage.original_key(doc_id), size_bytes=1, sha256="x",
                          upload_date="2026-11-29T00:00:00+00:00")
    async with TestKafkaBroker(parser.stage.broker) as br:
        await br.publish(up, topics.UPLOADED)
        return DocumentParsed.model_validate(parser.stage.pubs.output.mock.call_args.args[0])


async def _table_stage(tables, parsed) -> tuple[list[PageTablesDone], list[DocumentTablesDone], list[dict]]:
    """Publish ``parsed`` to the table stage; (page-done events, document events, progress)."""
    async with TestKafkaBroker(tables.stage.broker) as br:
        await br.publish(parsed, topics.PARSED)
        pages = [PageTablesDone.model_validate(c.args[0]) for c in tables.page_done_pub.mock.call_args_list]
        docs = [DocumentTablesDone.model_validate(c.args[0]) for c in tables.stage.pubs.output.mock.call_args_list]
        progress = [c.args[0] for c in tables.stage.pubs.progress.mock.call_args_list]
    return pages, docs, progress


async def test_fan_out_one_page_work_per_page_and_docx_done_at_once(svc, store, vision_off):
    parser, tables, _ = svc
    parsed = await _parse(parser, store, B_PDF)
    async with TestKafkaBroker(tables.stage.broker) as br:
        await br.publish(parsed, topics.PARSED)
        calls = tables.page_pub.mock.call_args_list
        works = [PageWork.model_validate(c.args[0]) for c in calls]
    assert [w.page_number for w in works] == [1, 2, 3, 4, 5]
    assert all(w.page_count == 5 and w.pages_key == parsed.pages_key and w.filename == B_PDF.name for w in works)
    assert DocumentParsed.model_validate(store.get_json(storage.tables_job_key(parsed.document_id))) == parsed
    # DOCX: no page work, the document's tables event at once with the parser's pages
    docx = await _parse(parser, store, FIXTURES / "E_基礎設施.docx")
    async with TestKafkaBroker(tables.stage.broker) as br:
        await br.publish(docx, topics.PARSED)
        tables.page_pub.mock.assert_not_called()
        done = DocumentTablesDone.model_validate(tables.stage.pubs.output.mock.call_args.args[0])
    assert done.document_id == docx.document_id and done.pages_key == docx.pages_key
    assert (done.file_type, done.strategy, done.page_count) == ("docx", "question", docx.page_count)


async def test_whole_stage_in_process_renders_table_pages_only(svc, store, fake):
    parser, tables, _ = svc
    fake.answer = VALID
    parsed = await _parse(parser, store, B_PDF)
    rendered0, calls0 = _metric("legco_pages_rendered_total"), fake.image_calls
    with fresh_model(tables):
        pages, docs, progress = await _table_stage(tables, parsed)
    assert [p.page_number for p in pages] == [1, 2, 3, 4, 5]
    assert [p.table_source for p in pages] == ["vision"] * 4 + ["none"]   # page 5 has no table rules
    assert _metric("legco_pages_rendered_total") - rendered0 == 4 and fake.image_calls - calls0 == 4
    [doc] = docs
    assert doc.pages_key == storage.tables_parsed_key(parsed.document_id)
    annotated = ParsedDocument.model_validate(store.get_json(doc.pages_key))
    assert annotated.tables_extracted and annotated.pages[0].tables[0].source == "vision"
    assert [(p["stage"], p["pages_done"], p["pages_total"]) for p in progress] == [
        ("tables", n, 5) for n in range(1, 6)]
    assert store.exists(storage.tables_done_key(parsed.document_id))


async def test_nothing_rendered_with_vision_off(svc, store, fake, vision_off):
    parser, tables, _ = svc
    parsed = await _parse(parser, store, B_PDF)
    rendered0, calls0 = _metric("legco_pages_rendered_total"), fake.image_calls
    pages, docs, _ = await _table_stage(tables, parsed)
    assert [p.table_source for p in pages] == ["pdfplumber"] * 4 + ["none"]
    assert _metric("legco_pages_rendered_total") == rendered0 and fake.image_calls == calls0
    assert len(docs) == 1


async def test_vision_answer_used_cached_and_rejected(svc, store, fake):
    parser, tables, _ = svc
    fake.answer = VALID
    parsed = await _parse(parser, store, B_PDF)
    calls0 = fake.image_calls
    with fresh_model(tables):
        pages, _, _ = await _table_stage(tables, parsed)
        assert fake.image_calls - calls0 == 4
        res = PageResult.model_validate(store.get_json(pages[0].result_key))
        assert res.vision_status == "accepted" and res.vision_tables[0].rows == [["文件日期", "2024-06-17"]]
        assert res.tables  # pdfplumber's tables are kept (their spans place the vision table)
        # the same file again (new document id): every answer from the cache, zero calls
        hits0 = _metric("legco_vision_cache_hits_total")
        again, _, _ = await _table_stage(tables, await _parse(parser, store, B_PDF))
        assert fake.image_calls - calls0 == 4
        assert _metric("legco_vision_cache_hits_total") - hits0 == 4
        assert [d.table_source for d in again] == ["vision"] * 4 + ["none"]
    # an invented number: rejected, pdfplumber stands, failure counted
    fake.answer = INVENTED
    fails0 = _metric("legco_vision_validation_failures_total", reason="invented_number")
    work = (await plan_document(parsed, store))[0]
    with fresh_model(tables):
        async with TestKafkaBroker(tables.stage.broker) as br:
            await br.publish(work, topics.TABLE_PAGES)
            rejected = PageTablesDone.model_validate(tables.page_done_pub.mock.call_args.args[0])
    assert rejected.table_source == "pdfplumber"
    res = PageResult.model_validate(store.get_json(rejected.result_key))
    assert res.vision_status == "rejected" and "987654321" in res.notes[0]
    assert _metric("legco_vision_validation_failures_total", reason="invented_number") - fails0 == 1


async def test_page_worker_skips_deleted_document(svc, store):
    parser, tables, _ = svc
    parsed = await _parse(parser, store, B_PDF)
    works = await plan_document(parsed, store)
    store.delete_document(parsed.document_id)
    async with TestKafkaBroker(tables.stage.broker) as br:
        await br.publish(works[0], topics.TABLE_PAGES)
        tables.page_done_pub.mock.assert_not_called()
        tables.stage.pubs.progress.mock.assert_not_called()


async def test_gatherer_waits_for_all_pages_emits_once_and_the_splitter_chunks(svc, settings, store):
    parser, tables, splitter = svc
    parsed = await _parse(parser, store, B_PDF)
    plumber = tables.stage.client("plumber")
    done = [await process_page(w, store, plumber, None, ParsedPages(), settings.raster_dpi)
            for w in await plan_document(parsed, store)]
    assert [d.table_source for d in done] == ["pdfplumber"] * 4 + ["none"]
    last = store.get_bytes(done[-1].result_key)
    store.client.remove_object(store.bucket, done[-1].result_key)          # page 5 "in flight"
    async with TestKafkaBroker(tables.stage.broker) as br:
        for d in done[:-1]:
            await br.publish(d, topics.TABLE_PAGE_DONE)
        tables.stage.pubs.output.mock.assert_not_called()                   # page 5 not done yet
        store.put_bytes(done[-1].result_key, last)
        await br.publish(done[-1], topics.TABLE_PAGE_DONE)
        assert tables.stage.pubs.output.mock.call_count == 1
        event = DocumentTablesDone.model_validate(tables.stage.pubs.output.mock.call_args.args[0])
        tables.stage.provide(gather=GatherState())                          # a restarted gatherer
        for d in done:                                                      # redelivered page events
            await br.publish(d, topics.TABLE_PAGE_DONE)
        assert tables.stage.pubs.output.mock.call_count == 1
    assert (event.strategy, event.file_type, event.page_count) == ("question", "pdf", 5)
    assert event.warnings == parsed.warnings and event.scanned_pages == parsed.scanned_pages
    async with TestKafkaBroker(splitter.stage.broker) as br:
        await br.publish(event, topics.TABLES)
        chunked = DocumentChunked.model_validate(splitter.stage.pubs.output.mock.call_args.args[0])
    cs = ChunkSet.model_validate(store.get_json(chunked.chunks_key))
    b1 = next(c for c in cs.chunks if c.metadata.get("question_id") == "B1")
    assert "| 發展參數 | 原有規劃（2013 年） | 規劃檢討後（2023 年） | 變化 |" in b1.text
    assert b1.metadata["answer_contains_table"] is True


def _synthetic_document(store: ObjectStore, n_pages: int) -> list[PageTablesDone]:
    """A stored ``n_pages``-page PDF document (manifest, pages, table job) and its page-done
    events; the test stores each page's result (no tables) before publishing its event."""
    doc_id = uuid.uuid4().hex
    store.put_json(storage.manifest_key(doc_id), {"document_id": doc_id})
    pages = ParsedDocument(document_id=doc_id, filename="long.pdf", file_type="pdf", page_count=n_pages,
                           pages=[PageText(page_number=n, text=f"第 {n} 頁") for n in range(1, n_pages + 1)])
    store.put_json(storage.pages_key(doc_id), pages)
    store.put_json(storage.tables_job_key(doc_id), DocumentParsed(
        document_id=doc_id, filename="long.pdf", strategy="token", file_type="pdf", page_count=n_pages,
        pages_key=storage.pages_key(doc_id), page_pdf_prefix=storage.page_pdf_prefix(doc_id)))
    return [PageTablesDone(document_id=doc_id, filename="long.pdf", page_number=n, page_count=n_pages,
                           result_key=storage.page_result_key(doc_id, n), table_source="none")
            for n in range(1, n_pages + 1)]


async def test_gatherer_lists_page_results_once_per_document(svc, store):
    """100 pages: one list call to seed the set, one more after a restart; 100 result reads."""
    _, tables, _ = svc
    events = _synthetic_document(store, 100)
    tables.stage.provide(gather=GatherState())
    lists0, gets0 = CountingStore.lists, CountingStore.result_gets
    async with TestKafkaBroker(tables.stage.broker) as br:
        for e in events:                        # as the page workers do: result stored, then event
            if e.page_number == 51:
                tables.stage.provide(gather=GatherState())                  # restart mid-document
            store.put_json(e.result_key, PageResult(page_number=e.page_number))
            await br.publish(e, topics.TABLE_PAGE_DONE)
        assert tables.stage.pubs.output.mock.call_count == 1
        progress = [c.args[0]["pages_done"] for c in tables.stage.pubs.progress.mock.call_args_list]
    lists = CountingStore.lists - lists0
    print(f"\n[tables gather] 100-page document: {lists} MinIO list calls, "
          f"{CountingStore.result_gets - gets0} page-result reads")
    assert lists <= 2
    assert CountingStore.result_gets - gets0 == 100
    assert progress == list(range(1, 101))  # from the in-memory set, across the restart


async def test_rebalance_forgets_the_page_sets():
    state = GatherState()
    state.seed("d", {1, 2})
    listener = ForgetOnRebalance(lambda: state)
    await listener.on_partitions_revoked(set())
    assert state.pages("d") is None

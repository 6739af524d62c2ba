"""Table-stage handlers (rasterizer, vision-table, splitter aggregate) under FastStream's
in-memory ``TestKafkaBroker``: Kafka is replaced, MinIO is the real one of the test stack, the
vision LLM is a local fake OpenAI-compatible server. Messages are handed from one stage's
publisher mock to the next stage by the test."""
from __future__ import annotations

import importlib
import io
import uuid

import pytest
from faststream.kafka import TestKafkaBroker
from PIL import Image

from services.vision_table.page_result import PageResult
from services.vision_table.plumber_pool import PlumberPool
from services.vision_table.vision import VisionClient
from shared import storage, topics
from shared.events import DocumentChunked, DocumentParsed, DocumentUploaded, PageTablesDone, PageWork
from shared.metrics import REGISTRY
from shared.models import ChunkSet
from shared.storage import ObjectStore
from tests.conftest import FIXTURES, settings_env
from tests.fake_vision import FakeVisionServer

B_PDF = FIXTURES / "B_古洞北粉嶺北新發展區概覽.pdf"
# numbers in B's page text on every page (date line 2024-06-17): a valid answer
VALID = "| 項目 | 日期 |\n| --- | --- |\n| 文件日期 | 2024-06-17 |\n"
INVENTED = "| 項目 | 金額 |\n| --- | --- |\n| 虛構 | 987654321 |\n"


@pytest.fixture(scope="module")
def fake():
    f = FakeVisionServer(VALID).start()
    yield f
    f.stop()


@pytest.fixture(scope="module")
def settings(stack, fake):
    """Settings on the test stack's MinIO, vision path on (fake server)."""
    env = {"MINIO_ENDPOINT": stack.env["MINIO_ENDPOINT"], "HANDLER_RETRY_BASE_S": "0.01",
           "VISION_ENABLED": "true", "VISION_BASE_URL": fake.base_url, "VISION_MODEL": f"fake-{uuid.uuid4().hex}"}
    with settings_env(env) as s:
        yield s


@pytest.fixture(scope="module")
def svc(settings):
    """parser, rasterizer, vision-table and splitter modules with their clients."""
    mods = [importlib.import_module(f"services.{m}.main") for m in ("parser", "rasterizer", "vision_table", "splitter")]
    for m in mods:
        m.settings = settings
        m.store = ObjectStore(settings)
        m.store.ensure_bucket()
    mods[2].vision = VisionClient(settings)
    mods[2].plumber = PlumberPool(settings.vision_plumber_timeout_s, settings.vision_plumber_memory_limit_bytes)
    yield mods
    mods[2].plumber.close()


def _metric(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def _parse(parser, path, strategy="question") -> DocumentParsed:
    doc_id = uuid.uuid4().hex
    parser.store.put_bytes(storage.original_key(doc_id), path.read_bytes())
    parser.store.put_json(storage.manifest_key(doc_id), {"document_id": doc_id})
    up = DocumentUploaded(document_id=doc_id, filename=path.name, strategy=strategy,
                          object_key=storage.original_key(doc_id), size_bytes=1, sha256="x",
                          upload_date="2026-11-29T00:00:00+00:00")
    async with TestKafkaBroker(parser.broker) as br:
        await br.publish(up, topics.UPLOADED)
        return DocumentParsed.model_validate(parser.pubs.output.mock.call_args.args[0])


async def _rasterize(rasterizer, parsed) -> list[PageWork]:
    async with TestKafkaBroker(rasterizer.broker) as br:
        await br.publish(parsed, topics.PARSED)
        return [PageWork.model_validate(c.args[0]) for c in rasterizer.pubs.output.mock.call_args_list]


async def _tables(vt, works) -> list[PageTablesDone]:
    async with TestKafkaBroker(vt.broker) as br:
        for w in works:
            await br.publish(w, topics.PAGES_RENDERED)
        return [PageTablesDone.model_validate(c.args[0]) for c in vt.pubs.output.mock.call_args_list]


async def test_rasterizer_renders_table_pages_only_and_docx_skips(svc, settings):
    parser, rasterizer, _, _ = svc
    parsed = await _parse(parser, B_PDF)
    works = await _rasterize(rasterizer, parsed)
    assert [w.page_number for w in works] == [1, 2, 3, 4, 5]
    rendered = [w for w in works if w.image_key]
    assert [w.page_number for w in rendered] == [1, 2, 3, 4]          # page 5 has no table rules
    png = rasterizer.store.get_bytes(rendered[0].image_key)
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and abs(img.width - 595 * 150 / 72) < 3  # A4 at 150 dpi
    assert all(w.dpi == 150 and len(w.image_sha256) == 64 for w in rendered)
    # DOCX: no page work, straight to the splitter's topic
    docx = await _parse(parser, FIXTURES / "E_基礎設施.docx")
    async with TestKafkaBroker(rasterizer.broker) as br:
        await br.publish(docx, topics.PARSED)
        rasterizer.pubs.output.mock.assert_not_called()
        skip = PageTablesDone.model_validate(rasterizer.skip_pub.mock.call_args.args[0])
    assert skip.table_stage is False and skip.document_id == docx.document_id


async def test_rasterizer_renders_nothing_with_vision_off(svc, settings):
    parser, rasterizer, _, _ = svc
    parsed = await _parse(parser, B_PDF)
    rasterizer.settings = settings.model_copy(update={"vision_enabled": False})
    try:
        works = await _rasterize(rasterizer, parsed)
    finally:
        rasterizer.settings = settings
    assert len(works) == 5 and not any(w.image_key for w in works)
    assert not list(rasterizer.store.list_keys(f"documents/{parsed.document_id}/images/"))


async def test_vision_answer_used_cached_and_rejected(svc, fake):
    parser, rasterizer, vt, _ = svc
    fake.answer = VALID
    parsed = await _parse(parser, B_PDF)
    works = await _rasterize(rasterizer, parsed)
    calls0, hits0 = fake.image_calls, _metric("legco_vision_cache_hits_total")
    done = await _tables(vt, works)
    assert [d.page_number for d in done] == [1, 2, 3, 4, 5]
    assert [d.table_source for d in done] == ["vision"] * 4 + ["none"]
    assert fake.image_calls - calls0 == 4
    res = PageResult.model_validate(vt.store.get_json(done[0].result_key))
    assert res.vision_status == "accepted" and res.vision_tables[0].rows == [["文件日期", "2024-06-17"]]
    assert res.tables  # pdfplumber's tables are kept (their spans place the vision table)
    # the same file again (new document id): every answer from the cache, zero calls
    again = await _tables(vt, await _rasterize(rasterizer, await _parse(parser, B_PDF)))
    assert fake.image_calls - calls0 == 4
    assert _metric("legco_vision_cache_hits_total") - hits0 == 4
    assert [d.table_source for d in again] == ["vision"] * 4 + ["none"]
    # an invented number: rejected, pdfplumber stands, failure counted
    fake.answer = INVENTED
    fails0 = _metric("legco_vision_validation_failures_total", reason="invented_number")
    model = vt.vision.model
    vt.vision.model = f"{model}-2"  # a new model: the cache does not apply
    try:
        rejected = await _tables(vt, works[:1])
    finally:
        vt.vision.model = model
    assert rejected[0].table_source == "pdfplumber"
    res = PageResult.model_validate(vt.store.get_json(rejected[0].result_key))
    assert res.vision_status == "rejected" and "987654321" in res.notes[0]
    assert _metric("legco_vision_validation_failures_total", reason="invented_number") - fails0 == 1


async def test_vision_table_skips_deleted_document(svc):
    parser, rasterizer, vt, _ = svc
    parsed = await _parse(parser, B_PDF)
    works = await _rasterize(rasterizer, parsed)
    vt.store.delete_document(parsed.document_id)
    assert await _tables(vt, works[:1]) == []


async def test_splitter_waits_for_all_pages_and_splits_once(svc, settings, fake):
    parser, rasterizer, vt, splitter = svc
    rasterizer.settings = vt.settings = settings.model_copy(update={"vision_enabled": False})
    try:
        parsed = await _parse(parser, B_PDF)
        done = await _tables(vt, await _rasterize(rasterizer, parsed))
    finally:
        rasterizer.settings = vt.settings = settings
    assert [d.table_source for d in done] == ["pdfplumber"] * 4 + ["none"]
    last = splitter.store.get_bytes(done[-1].result_key)
    splitter.store.client.remove_object(splitter.store.bucket, done[-1].result_key)  # page 5 "in flight"
    async with TestKafkaBroker(splitter.broker) as br:
        for d in done[:-1]:
            await br.publish(d, settings.splitter_input_topic)
        splitter.pubs.output.mock.assert_not_called()                 # page 5 not done yet
        splitter.store.put_bytes(done[-1].result_key, last)
        await br.publish(done[-1], settings.splitter_input_topic)
        assert splitter.pubs.output.mock.call_count == 1
        chunked = DocumentChunked.model_validate(splitter.pubs.output.mock.call_args.args[0])
        for d in done:                                                 # redelivered page events
            await br.publish(d, settings.splitter_input_topic)
        assert splitter.pubs.output.mock.call_count == 1
    cs = ChunkSet.model_validate(splitter.store.get_json(chunked.chunks_key))
    b1 = next(c for c in cs.chunks if c.metadata.get("question_id") == "B1")
    assert "| 發展參數 | 原有規劃（2013 年） | 規劃檢討後（2023 年） | 變化 |" in b1.text
    assert b1.metadata["answer_contains_table"] is True

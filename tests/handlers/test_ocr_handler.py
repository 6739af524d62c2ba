"""Local OCR of scanned pages in the table stage (issue 18): the real scanned LegCo paper
(``hk_legco_sub_710-11_scanned_zh.pdf``, no text layer but a paper-number stamp) parsed in-process,
its first two pages through the stage's handlers (fan-out → page workers → gatherer) under
FastStream's in-memory ``TestKafkaBroker`` with an in-memory object store, Tesseract as the OCR
engine and the vision path off. The pages come out with the OCR text, ``ocr=True`` and a
confidence; the splitter's chunks carry them; the page PDFs stay the original scan."""
from __future__ import annotations

import contextlib
import importlib
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from faststream.kafka import TestKafkaBroker

from services.parser.handle import check_scanned
from services.parser.parse import parse_document
from services.splitter.split import split_document
from services.tables.gather import GatherState
from services.tables.handle import ParsedPages
from services.tables.ocr import TesseractEngine
from services.tables.plumber_pool import PlumberPool
from shared import storage, topics
from shared.errors import DocumentError
from shared.events import DocumentParsed, DocumentTablesDone, PageTablesDone
from shared.models import ParsedDocument
from shared.settings import Settings
from tests.conftest import CORPUS
from tests.memory_store import MemoryStore

SCANNED = CORPUS / "real" / "hk_legco_sub_710-11_scanned_zh.pdf"
PAGES = 2  # of 14: each page is several seconds of OCR


@pytest.fixture(scope="module")
def settings() -> Settings:
    return Settings(_env_file=None, vision_enabled=False, ocr_enabled=True,  # type: ignore[call-arg]
                    handler_retry_base_s=0.01)


@pytest.fixture(scope="module")
def tables(settings: Settings) -> Iterator[tuple[Any, MemoryStore]]:
    """``services.tables.main`` handed an in-memory store, no vision client and Tesseract."""
    module = importlib.import_module("services.tables.main")
    stage = module.stage
    names = ("settings", "store", "plumber", "vision", "ocr", "parsed_pages", "gather")
    before = {}
    for k in names:
        with contextlib.suppress(KeyError):
            before[k] = stage.client(k)
    engine = TesseractEngine(settings.ocr_langs, settings.ocr_timeout_s)
    assert engine.available(), "tesseract with chi_tra+eng is not installed: run scripts/deps.sh ocr"
    plumber = PlumberPool(settings.vision_plumber_timeout_s, settings.vision_plumber_memory_limit_bytes)
    store = MemoryStore()
    stage.provide(settings=settings, store=store, plumber=plumber, vision=None, ocr=engine,
                  parsed_pages=ParsedPages(), gather=GatherState())
    yield module, store
    plumber.close()
    stage.provide(**{"ocr": None, **before})  # no OCR engine left behind for other modules' tests


def _parsed_scan(store: MemoryStore, settings: Settings) -> tuple[DocumentParsed, dict[int, bytes]]:
    """The first ``PAGES`` pages of the real scan as the parser stores them; its page PDFs."""
    doc_id = uuid.uuid4().hex
    out = parse_document(SCANNED.read_bytes(), SCANNED.name, doc_id, settings)
    pages = [p for p in out.parsed.pages if p.page_number is not None and p.page_number <= PAGES]
    assert all(p.scanned for p in pages)
    parsed = out.parsed.model_copy(update={"pages": pages, "page_count": PAGES})
    store.put_json(storage.pages_key(doc_id), parsed)
    pdfs = {n: out.page_pdfs[n] for n in range(1, PAGES + 1)}
    for n, data in pdfs.items():
        store.put_bytes(storage.page_pdf_key(doc_id, n), data)
    event = DocumentParsed(document_id=doc_id, filename=SCANNED.name, strategy="token", file_type="pdf",
                           page_count=PAGES, pages_key=storage.pages_key(doc_id),
                           page_pdf_prefix=storage.page_pdf_prefix(doc_id),
                           scanned_pages=list(range(1, PAGES + 1)))
    return event, pdfs


def test_all_scanned_pdf_is_not_refused_while_ocr_reads_scans(settings):
    out = parse_document(SCANNED.read_bytes(), SCANNED.name, "x", settings)
    assert settings.scans_readable
    check_scanned(out.parsed.pages, out.parsed.page_count, settings.scans_readable)  # goes on
    off = Settings(_env_file=None, ocr_enabled=False, vision_enabled=False)  # type: ignore[call-arg]
    assert not off.scans_readable
    with pytest.raises(DocumentError, match="1-14"):
        check_scanned(out.parsed.pages, out.parsed.page_count, off.scans_readable)
    no_stage = Settings(_env_file=None, ocr_enabled=True,  # type: ignore[call-arg]
                        splitter_input_topic=topics.PARSED)
    assert not no_stage.scans_readable


async def test_scanned_pages_get_ocr_text_through_the_table_stage(tables, settings):
    module, store = tables
    event, pdfs = _parsed_scan(store, settings)
    async with TestKafkaBroker(module.stage.broker) as br:
        await br.publish(event, topics.PARSED)
        done_pages = [PageTablesDone.model_validate(c.args[0]) for c in module.page_done_pub.mock.call_args_list]
        docs = [DocumentTablesDone.model_validate(c.args[0]) for c in module.stage.pubs.output.mock.call_args_list]
    assert sorted(p.page_number for p in done_pages if p.document_id == event.document_id) == [1, 2]
    assert all(p.scanned for p in done_pages)
    [done] = [d for d in docs if d.document_id == event.document_id]
    doc = ParsedDocument.model_validate(store.get_json(done.pages_key))
    for page in doc.pages:
        assert page.ocr is True, page
        assert page.ocr_confidence is not None and 0.5 < page.ocr_confidence <= 1.0
        assert "could not be read" not in page.text                 # no scanned notice
        assert len(page.text) > 300
    squeezed = "".join(doc.pages[0].text.split())
    assert "網約車" in squeezed and "710/2026" in squeezed        # the title and the paper-number stamp
    # the page PDFs stay the original scan
    for n, data in pdfs.items():
        assert store.get_bytes(storage.page_pdf_key(event.document_id, n)) == data
    # the splitter carries the OCR flags onto the chunks
    chunks = split_document(doc, "token", settings).chunks
    assert chunks
    assert all(c.metadata.get("ocr") is True and c.metadata.get("scanned") is True for c in chunks)
    assert all(0.5 < c.metadata["ocr_confidence"] <= 1.0 for c in chunks)

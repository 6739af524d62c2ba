"""The text-position layer: boxes inside the page, texts PDFium's own, stored by the parser stage
next to the page PDFs and swept with the document."""
from __future__ import annotations

import asyncio
import re
from typing import Any

import pypdfium2 as pdfium
import pytest

from services.parser.boxes import extract_page_boxes
from services.parser.handle import parse_and_store
from shared import storage
from shared.errors import DocumentGone
from shared.events import DocumentUploaded
from shared.models import PageBoxes
from shared.settings import Settings

E_PDF = "fixtures/E_基礎設施.pdf"
DOC = "1" * 32


@pytest.fixture(scope="module")
def e_boxes(corpus) -> dict[int, PageBoxes]:
    return extract_page_boxes((corpus / E_PDF).read_bytes())


def test_every_page_of_e_has_a_layer_with_boxes_inside_the_page(e_boxes):
    assert sorted(e_boxes) == list(range(1, 14))  # 13 pages, 1-based
    for n, layer in e_boxes.items():
        assert layer.page == n
        assert (layer.width, layer.height) == pytest.approx((595.3, 841.9), abs=0.1)  # A4 in points
        assert layer.lines
        for line in layer.lines:
            x0, y0, x1, y1 = line.b
            assert 0 <= x0 < x1 <= layer.width and 0 <= y0 < y1 <= layer.height, (n, line)
            assert len(line.x) == len(line.t) + 1
            assert line.x == sorted(line.x) and line.x[0] == x0 and line.x[-1] == x1
            assert line.t == line.t.strip() and "\n" not in line.t and "\r" not in line.t


def test_the_texts_and_offsets_are_pdfiums(corpus, e_boxes):
    doc = pdfium.PdfDocument((corpus / E_PDF).read_bytes())
    try:
        for n, layer in e_boxes.items():
            textpage = doc[n - 1].get_textpage()
            for line in layer.lines:
                assert textpage.get_text_range(line.o, len(line.t)).replace("\x02", "-") == line.t
            # every printed character is in one run: the runs are the page text without breaks
            whole = re.sub(r"\s+", "", textpage.get_text_range().replace("\x02", "-"))
            assert "".join(re.sub(r"\s+", "", line.t) for line in layer.lines) == whole
    finally:
        doc.close()


def test_lines_are_top_down_with_origin_at_the_top_left(e_boxes):
    page2 = e_boxes[2]
    first = page2.lines[0]
    assert first.t.startswith("⚫ 公用設施共同溝")
    # the first line of text sits near the top of the page, in a y-down system
    assert first.b[1] < 100
    tops = [line.b[1] for line in page2.lines if line.b[0] < 120]  # the left-aligned lines
    assert tops == sorted(tops)
    # a character's own slice: the third character of the line begins right of the bullet
    assert first.x[2] > first.x[0] + 5


def test_a_box_matches_the_char_box_pdfium_gives(corpus, e_boxes):
    """A point check of the coordinate change: PDF user space (y up) → top-left origin."""
    doc = pdfium.PdfDocument((corpus / E_PDF).read_bytes())
    try:
        line = e_boxes[2].lines[1]
        page = doc[1]
        height = page.get_size()[1]
        left, bottom, right, top = page.get_textpage().get_charbox(line.o, loose=True)
        assert line.x[0] == pytest.approx(left, abs=0.06)
        assert line.b[1] <= height - top + 0.06 and line.b[3] >= height - bottom - 0.06
    finally:
        doc.close()


def test_an_unreadable_pdf_has_no_layer():
    assert extract_page_boxes(b"%PDF-1.4 not really") == {}


def test_scanned_pages_get_no_layer(parse_corpus):
    out = parse_corpus("real/hk_legco_sub_710-11_scanned_zh.pdf")
    with_text = {p.page_number for p in out.parsed.pages if p.text.strip()}
    assert set(out.page_boxes) == with_text != set(range(1, 15))


def test_docx_and_txt_have_no_layer(parse_corpus):
    assert parse_corpus("fixtures/E_基礎設施.docx").page_boxes == {}
    assert parse_corpus("fixtures/E_基礎設施.txt").page_boxes == {}


class Store:
    """In-memory object store: the calls the parser stage makes."""

    def __init__(self) -> None:
        self.objects: dict[str, Any] = {}

    def get_bytes(self, key: str) -> bytes:
        return bytes(self.objects[key])

    def put_bytes(self, key: str, data: bytes, content_type: str = "") -> None:
        self.objects[key] = data

    def put_json(self, key: str, obj: Any) -> None:
        self.objects[key] = obj

    def delete_document(self, document_id: str) -> int:
        gone = [k for k in self.objects if k.startswith(storage.document_prefix(document_id))]
        for k in gone:
            del self.objects[k]
        return len(gone)


def _event(data: bytes) -> DocumentUploaded:
    return DocumentUploaded(document_id=DOC, filename="E.pdf", strategy="question", object_key="k",
                            size_bytes=len(data), sha256="x", upload_date="2026-12-01")


async def _report(**_: Any) -> None:
    pass


def test_the_stage_stores_one_layer_per_page_and_names_them_in_its_event(corpus):
    data = (corpus / E_PDF).read_bytes()
    store = Store()
    store.objects["k"] = data
    parsed = asyncio.run(parse_and_store(_event(data), store, Settings(), _report))  # type: ignore[arg-type]
    assert parsed.boxes_prefix == storage.page_boxes_prefix(DOC) == f"documents/{DOC}/parsed/boxes/"
    keys = sorted(k for k in store.objects if k.startswith(parsed.boxes_prefix))
    assert keys == sorted(storage.page_boxes_key(DOC, n) for n in range(1, 14))
    # stored as the JSON bytes put_json writes (uploaded from the parse child's spool directory)
    assert PageBoxes.model_validate_json(store.objects[storage.page_boxes_key(DOC, 3)]).page == 3
    # everything the stage wrote lives under the document's prefix: a delete leaves nothing
    store.delete_document(DOC)
    assert list(store.objects) == ["k"]


def test_the_stage_stops_between_layer_writes_when_the_document_is_deleted(corpus):
    data = (corpus / E_PDF).read_bytes()
    store = Store()
    store.objects["k"] = data
    layers_before_gone = 2

    async def check(force: bool = False) -> None:
        if sum(k.startswith(storage.page_boxes_prefix(DOC)) for k in store.objects) >= layers_before_gone:
            raise DocumentGone(DOC)

    with pytest.raises(DocumentGone):
        asyncio.run(parse_and_store(_event(data), store, Settings(), _report, check))  # type: ignore[arg-type]
    layers = [k for k in store.objects if k.startswith(storage.page_boxes_prefix(DOC))]
    assert len(layers) == layers_before_gone and storage.pages_key(DOC) not in store.objects


def test_docx_names_no_layers(corpus):
    data = (corpus / "fixtures/E_基礎設施.docx").read_bytes()
    store = Store()
    store.objects["k"] = data
    event = _event(data).model_copy(update={"filename": "E.docx"})
    parsed = asyncio.run(parse_and_store(event, store, Settings(), _report))  # type: ignore[arg-type]
    assert parsed.boxes_prefix is None
    assert not [k for k in store.objects if "/boxes/" in k]

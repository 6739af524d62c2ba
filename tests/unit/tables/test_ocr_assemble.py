"""A scanned page's OCR result in the gathered document and the chunks (pure): the OCR text
takes the page's place with ``ocr``/``ocr_confidence``; a page OCR could not read keeps the
scanned notice; born-digital pages are untouched."""
from __future__ import annotations

from services.splitter.split import split_document
from services.tables.assemble import apply_page_results, scanned_notice
from services.tables.page_result import PageResult
from shared.models import Chunk, PageText, ParsedDocument
from shared.settings import Settings


def _doc() -> ParsedDocument:
    return ParsedDocument(document_id="x", filename="s.pdf", file_type="pdf", page_count=3, pages=[
        PageText(page_number=1, text="正文第一頁，有文字層。" * 20, char_count=220),
        PageText(page_number=2, text="CB(3)710", char_count=8, scanned=True),
        PageText(page_number=3, text="", char_count=0, scanned=True)])


def test_ocr_text_replaces_the_scanned_page_and_reaches_the_chunks():
    results = [PageResult(page_number=1),
               PageResult(page_number=2, scanned=True, ocr_text="立法會CB(3)710/2026(11)號文件\n網約車服務規管" * 10,
                          ocr_confidence=0.874, ocr_seconds=3.2),
               PageResult(page_number=3, scanned=True, notes=["OCR found no text on the page"])]
    out = apply_page_results(_doc(), results)
    p1, p2, p3 = out.pages
    assert not p1.ocr and p1.ocr_confidence is None and p1.text.startswith("正文第一頁")
    assert p2.ocr and p2.ocr_confidence == 0.874 and p2.text.startswith("立法會CB(3)710")
    assert scanned_notice(2) not in p2.text and p2.char_count == len(p2.text)
    assert not p3.ocr and scanned_notice(3) in p3.text
    chunks = split_document(out, "token", Settings(_env_file=None, chunk_size_tokens=60, chunk_overlap_tokens=0)).chunks
    def covers_page_2(c: Chunk) -> bool:  # a chunk running on over a page break holds both pages
        return bool(c.metadata.get("page_start", c.page_number) <= 2 <= c.metadata.get("page_end", c.page_number))

    ocr_chunks = [c for c in chunks if c.metadata.get("ocr")]
    assert ocr_chunks and all(covers_page_2(c) and c.metadata["ocr_confidence"] == 0.874 for c in ocr_chunks)
    assert any(c.page_number == 2 for c in ocr_chunks)
    assert all("ocr" not in c.metadata for c in chunks if not covers_page_2(c))
    assert any(c.page_number == 1 for c in chunks if not covers_page_2(c))

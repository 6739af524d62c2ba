"""A source read from a scanned page by local OCR says so (``ocr``, ``ocr_confidence``) in the
API; other sources leave both out."""
from __future__ import annotations

from services.query.retrieve import to_source


def test_ocr_metadata_reaches_the_source():
    meta = {"document_id": "d1", "filename": "scan.pdf", "file_type": "pdf", "page_number": 2,
            "scanned": True, "ocr": True, "ocr_confidence": 0.873}
    src = to_source("d1:0", "網約車服務", meta, 0.5)
    assert src.ocr is True and src.ocr_confidence == 0.873
    body = src.model_dump(mode="json")
    assert body["ocr"] is True and body["ocr_confidence"] == 0.873


def test_a_born_digital_source_has_no_ocr_fields():
    src = to_source("d2:0", "text", {"document_id": "d2", "file_type": "pdf", "page_number": 1}, 0.5)
    body = src.model_dump(mode="json")
    assert "ocr" not in body and "ocr_confidence" not in body

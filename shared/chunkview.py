"""How a stored chunk (Chroma id, text, flat metadata) is shown through the API: the same
fields for the chunk list of a document and for the sources of an answer."""
from __future__ import annotations

from typing import Any

PASSTHROUGH = (
    "strategy_type", "chunk_kind", "qa_style", "question_index", "question_id", "question_text",
    "topic_section", "answer_contains_table", "has_table", "followup_count", "internal_ref_count",
    "part", "parts", "qa_fallback", "token_count", "table_source", "scanned", "ocr", "ocr_confidence",
    "file_type", "department",
    "visibility",
)


def page_pdf_url(document_id: str, page_number: int | None) -> str | None:
    """URL of the one-page PDF of ``page_number`` (1-based), or ``None`` without a page."""
    if page_number is None or page_number < 1:
        return None
    return f"/api/v1/documents/{document_id}/pages/{page_number}.pdf"


def page_pdf_of(meta: dict[str, Any]) -> str | None:
    """URL of the one-page PDF of a stored chunk's page: PDF papers only, ``None`` without a page."""
    page = meta.get("page_number")
    if meta.get("file_type") != "pdf" or not isinstance(page, int):
        return None
    return page_pdf_url(str(meta.get("document_id", "")), page)


def chunk_view(chunk_id: str, text: str, meta: dict[str, Any], summary_chars: int = 200) -> dict[str, Any]:
    """API view of one chunk.

    Args:
        chunk_id: the Chroma id (``{document_id}_{chunk_index}``).
        text: the chunk text as stored.
        meta: its flat Chroma metadata (``page_number`` -1 means no page).
        summary_chars: length of ``content_summary`` in characters.
    """
    page = meta.get("page_number")
    page = page if isinstance(page, int) and page >= 1 else None
    doc_id = str(meta.get("document_id", ""))
    pdf = page_pdf_of(meta)
    view: dict[str, Any] = {
        "chunk_id": chunk_id,
        "document_id": doc_id,
        "filename": meta.get("filename"),
        "chunk_index": int(meta.get("chunk_index", 0)),
        "text": text,
        "content_summary": " ".join(text.split())[:summary_chars],
        "page_number": page,
        "pdf_url": pdf,
    }
    for k in PASSTHROUGH:
        if k in meta:
            view[k] = meta[k]
    if isinstance(meta.get("page_start"), int) and isinstance(meta.get("page_end"), int):
        view["source_page_range"] = [meta["page_start"], meta["page_end"]]
    return view

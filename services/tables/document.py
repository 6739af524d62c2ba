"""Pages → tables → pages with tables attached, in one call (pdfplumber path, no LLM).

What the pipeline does for a PDF when no vision LLM is configured, run in one process: the
``legco split`` CLI and the tests call it; the services run the same two steps distributed
(:func:`build_page_result` per page in the table stage's page workers,
:func:`apply_page_results` in its gatherer once every page is done).
"""
from __future__ import annotations

from services.tables.assemble import apply_page_results
from services.tables.page_result import PageResult, build_page_result
from shared.models import ParsedDocument


def page_results(doc: ParsedDocument, page_pdfs: dict[int, bytes]) -> list[PageResult]:
    """:func:`build_page_result` for every page of ``doc`` (1-based page → one-page PDF
    bytes in ``page_pdfs``; pages without a PDF are treated as table-less)."""
    out = []
    for p in doc.pages:
        if p.page_number is None:
            continue
        pdf = page_pdfs.get(p.page_number)
        out.append(build_page_result(pdf, p.page_number, p.text, p.scanned))
    return out


def extract_document_tables(doc: ParsedDocument, page_pdfs: dict[int, bytes]) -> ParsedDocument:
    """``doc`` with its tables attached (:func:`apply_page_results`); DOCX/TXT documents are
    returned unchanged (their tables are markdown from the parser already). A page whose PDF
    pdfplumber cannot read contributes no tables (see :func:`build_page_result`).
    """
    if doc.file_type != "pdf":
        return doc
    return apply_page_results(doc, page_results(doc, page_pdfs))

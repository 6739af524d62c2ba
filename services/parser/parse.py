"""Parser entry points: bytes of an uploaded file -> ``ParseOutput``.

``parse_document`` does the work in the calling process; ``parse_document_isolated`` runs it
in a child process with a wall-clock timeout and an address-space limit, which is how the
service should call it for untrusted uploads (see ``isolation.py``).
"""
from __future__ import annotations

import re
import threading

from pydantic import BaseModel, Field

from shared.models import PageBoxes, PageText, ParsedDocument
from shared.settings import Settings

from .boxes import extract_page_boxes
from .docx import parse_docx
from .isolation import run_isolated
from .pages import split_pdf_pages
from .pdf import extract_pdf_text
from .pdf_backends import quiet_pypdf_logging
from .sniff import sniff
from .txt import parse_txt


class ParseOutput(BaseModel):
    """What the parser produces for one file.

    ``parsed``: per-page text (``ParsedDocument``). ``page_pdfs``: one-page PDF bytes by
    1-based page number (every page of a PDF; empty for DOCX/TXT). ``page_boxes``: the
    text-position layer (``PageBoxes``) of every PDF page with text, by 1-based page number
    (empty for DOCX/TXT, and for a PDF that PDFium cannot read).
    """

    parsed: ParsedDocument
    page_pdfs: dict[int, bytes] = Field(default_factory=dict)
    page_boxes: dict[int, PageBoxes] = Field(default_factory=dict)


def parse_document(data: bytes, filename: str, document_id: str, settings: Settings) -> ParseOutput:
    """Parse an uploaded file in this process.

    Args:
        data: the file's bytes.
        filename: the uploaded name (only used for messages; the type comes from content).
        document_id: id stamped on the ``ParsedDocument``.
        settings: limits (``max_docx_uncompressed_bytes``, ``scanned_min_chars_per_page``).

    Returns:
        ``ParseOutput``. PDF: one ``PageText`` per page (1-based), one-page PDFs and the
        position layers of the pages with text; DOCX/TXT: one ``PageText`` with
        ``page_number=None``. Scanned, garbled and blank pages are reported in
        ``parsed.warnings``, not raised.

    Raises:
        DocumentError: the input is unusable (codes ``empty``, ``unsupported_type``,
            ``unsupported_encoding``, ``corrupt``, ``encrypted``, ``no_pages``, ``too_large``).
    """
    quiet_pypdf_logging()
    sniffed = sniff(data, filename)
    warnings: list[str] = [sniffed.note] if sniffed.note else []
    page_pdfs: dict[int, bytes] = {}
    page_boxes: dict[int, PageBoxes] = {}
    if sniffed.file_type == "pdf":
        result = extract_pdf_text(data, settings)
        pages, extractor = result.pages, result.extractor
        warnings.extend(result.warnings)
        page_pdfs = dict(split_pdf_pages(data))
        # pages with no text in pages.json (scanned, garbled) get no layer: nothing to mark
        with_text = {p.page_number for p in pages if p.text.strip()}
        page_boxes = {n: b for n, b in extract_page_boxes(data).items() if n in with_text}
    elif sniffed.file_type == "docx":
        pages, extractor = [parse_docx(data, settings)], "python-docx"
    else:
        page, codec = parse_txt(data)
        pages, extractor = [page], f"text:{codec}"
    if sniffed.file_type != "pdf" and not pages[0].text.strip():
        warnings.append("The document contains no text.")
    warnings.extend(replace_lone_surrogates(pages))
    parsed = ParsedDocument(
        document_id=document_id,
        filename=filename,
        file_type=sniffed.file_type,
        page_count=len(pages),
        pages=pages,
        extractor=extractor,
        warnings=warnings,
    )
    return ParseOutput(parsed=parsed, page_pdfs=page_pdfs, page_boxes=page_boxes)


_SURROGATE = re.compile("[\ud800-\udfff]")


def replace_lone_surrogates(pages: list[PageText]) -> list[str]:
    """Replace lone UTF-16 surrogates in page texts with U+FFFD, in place; one warning per page.

    A text layer can hold them (a font's mapping table pointing at half of a surrogate pair);
    no UTF-8 encoder accepts them, so left in they would make every later write of the text
    fail, for the same reason each time."""
    notes = []
    for n, page in enumerate(pages, start=1):
        if _SURROGATE.search(page.text):
            count = len(_SURROGATE.findall(page.text))
            page.text = _SURROGATE.sub("\ufffd", page.text)
            where = f"Page {page.page_number or n}" if page.page_number else "The text"
            notes.append(f"{where} held {count} unreadable character(s) (lone UTF-16 surrogates); "
                         "they were replaced by \ufffd.")
    return notes


def parse_document_isolated(data: bytes, filename: str, document_id: str, settings: Settings,
                            cancel: threading.Event | None = None) -> ParseOutput:
    """``parse_document`` in a child process with ``settings.parse_timeout_s`` (seconds,
    wall clock) and ``settings.parse_memory_limit_bytes`` (RLIMIT_AS, bytes).

    Same arguments and result as ``parse_document``; ``cancel``: set it to stop the child
    (``isolation.Cancelled``), e.g. when the document is deleted meanwhile.

    Raises:
        DocumentError: as ``parse_document``; plus ``timeout`` (child killed after the
            timeout), ``too_large`` (child ran out of its memory limit) and ``crash`` (child
            died without a result, e.g. a segfault in a native library).
        RuntimeError: the child raised an unexpected (non-document) error; treat as
            transient.
    """
    return run_isolated(
        parse_document,
        (data, filename, document_id, settings),
        timeout_s=settings.parse_timeout_s,
        memory_limit_bytes=settings.parse_memory_limit_bytes,
        cancel=cancel,
    )

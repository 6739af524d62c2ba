"""Render PDF pages to PNG with pypdfium2, and tell which pages are worth a vision look
(pure, CPU-bound: call from a worker thread, never on the event loop)."""
from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from contextlib import contextmanager

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image

MIN_PATHS_FOR_TABLE = 4  # vector paths (rules, cell borders) on a page that may hold a table


def _open(pdf_bytes: bytes) -> pdfium.PdfDocument:
    try:
        return pdfium.PdfDocument(pdf_bytes)
    except pdfium.PdfiumError as e:
        raise ValueError(f"not a readable PDF: {e}") from e


@contextmanager
def _page(pdf_bytes: bytes, page: int) -> Iterator[pdfium.PdfPage]:
    """1-based ``page`` of the PDF, closed (with its document) on exit.

    Raises ``ValueError`` for an unreadable PDF or a page out of range."""
    doc = _open(pdf_bytes)
    try:
        if not 1 <= page <= len(doc):
            raise ValueError(f"page {page} out of range 1..{len(doc)}")
        p = doc[page - 1]
        try:
            yield p
        finally:
            p.close()
    finally:
        doc.close()


def render_image(pdf_bytes: bytes, page: int = 1, dpi: int = 150) -> Image.Image:
    """Render 1-based ``page`` of a PDF at ``dpi`` dots per inch; returns a PIL image (RGB).

    Raises ``ValueError`` for an unreadable PDF, a page out of range or ``dpi`` < 1.
    """
    if dpi < 1:
        raise ValueError("dpi must be positive")
    with _page(pdf_bytes, page) as p:
        image: Image.Image = p.render(scale=dpi / 72).to_pil()
    return image


def render_png(pdf_bytes: bytes, page: int = 1, dpi: int = 150) -> bytes:
    """Render 1-based ``page`` of a PDF at ``dpi`` dots per inch; returns PNG bytes.

    Raises ``ValueError`` for an unreadable PDF, a page out of range or ``dpi`` < 1.
    """
    image = render_image(pdf_bytes, page, dpi)
    buf = io.BytesIO()
    image.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def may_hold_table(pdf_bytes: bytes, page: int = 1) -> bool:
    """True when 1-based ``page`` draws at least ``MIN_PATHS_FOR_TABLE`` vector paths (ruled
    tables are drawn with paths) — a cheap pre-filter for sending a born-digital page to the
    vision LLM. Raises ``ValueError`` for an unreadable PDF or a page out of range."""
    with _page(pdf_bytes, page) as p:
        n = sum(1 for _ in p.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH], max_depth=2))
    return n >= MIN_PATHS_FOR_TABLE


def sha256(data: bytes) -> str:
    """Hex sha256 of ``data`` (the vision cache key of a page image)."""
    return hashlib.sha256(data).hexdigest()

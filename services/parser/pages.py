"""Split a PDF into one-page PDFs (for citing/showing source pages).

Each page object is copied with pypdf's ``PdfWriter.add_page`` (content streams and the
resources they use are carried over as they are, not re-rendered), so the one-page file
looks exactly like the original page. Encrypted PDFs that open with the empty user password
are decrypted first; the one-page files are written without encryption. If pypdf cannot read
the file, pypdfium2's ``import_pages`` (also a copy of the page objects) is used instead.
"""
from __future__ import annotations

import io
from collections.abc import Iterator

import pypdf
import pypdfium2 as pdfium

from shared.errors import DocumentError

from .pdf_backends import CORRUPT_REASON, NO_PAGES_REASON, open_pdfium, open_pypdf


def _pypdf_pages(reader: pypdf.PdfReader) -> Iterator[tuple[int, bytes]]:
    for index in range(len(reader.pages)):
        writer = pypdf.PdfWriter()
        writer.add_page(reader.pages[index])
        buf = io.BytesIO()
        writer.write(buf)
        yield index + 1, buf.getvalue()


def _pdfium_pages(data: bytes) -> Iterator[tuple[int, bytes]]:
    src = open_pdfium(data)
    try:
        for index in range(len(src)):
            dst = pdfium.PdfDocument.new()
            try:
                dst.import_pages(src, [index])
                buf = io.BytesIO()
                dst.save(buf)
            finally:
                dst.close()
            yield index + 1, buf.getvalue()
    finally:
        src.close()


def split_pdf_pages(data: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield ``(page_number, one_page_pdf_bytes)`` for every page of the PDF ``data``.

    Args:
        data: PDF bytes (may be encrypted with an empty user password).

    Yields:
        1-based page number and a complete, unencrypted one-page PDF (bytes) holding the
        original page.

    Raises:
        DocumentError: ``encrypted`` (a real password is needed), ``corrupt`` (neither pypdf
            nor pypdfium2 can read it), ``no_pages`` (zero pages).
    """
    try:
        reader = open_pypdf(data)
        count = len(reader.pages)
    except DocumentError as exc:
        if exc.code == "encrypted":
            raise
        reader, count = None, -1
    except Exception:  # noqa: BLE001 - unexpected pypdf failure: use the other library
        reader, count = None, -1
    if count == 0:
        raise DocumentError(NO_PAGES_REASON, code="no_pages")
    if reader is not None:
        try:
            # Materialise page by page so a failure mid-way can still fall back cleanly.
            done = 0
            for number, page_pdf in _pypdf_pages(reader):
                done = number
                yield number, page_pdf
            return
        except DocumentError:
            raise
        except Exception as exc:  # pypdf could not write a page
            if done:
                raise DocumentError(CORRUPT_REASON, code="corrupt") from exc
    yield from _pdfium_pages(data)

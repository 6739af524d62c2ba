"""Thin wrappers around the two PDF libraries: open (empty-password aware) and read pages.

Each backend turns the library's exceptions into ``DocumentError`` with a readable reason
and returns plain data (``RawPage``), so ``pdf.py`` can compare and combine them.
"""
from __future__ import annotations

import io
import logging
from collections.abc import Callable
from dataclasses import dataclass

import pypdf
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from pypdf.errors import FileNotDecryptedError, PdfReadError

from shared.errors import DocumentError

from .overprint import OverprintFilter

ENCRYPTED_REASON = (
    "The PDF is password-protected; upload a copy without a password (or with the "
    "password removed)."
)
CORRUPT_REASON = (
    "The PDF is damaged or incomplete (it may have been cut off during download); "
    "upload the complete file."
)
NO_PAGES_REASON = "The PDF has no pages; there is nothing to read."


@dataclass(frozen=True)
class RawPage:
    """One page as a backend read it.

    ``page_number`` is 1-based; ``text`` is the library's text as is (not normalised);
    ``width_pt``/``height_pt`` are the visible (crop box) size in PDF points (1/72 inch);
    ``has_images`` is True when the page draws at least one raster image (None = unknown).
    """

    page_number: int
    text: str
    width_pt: float
    height_pt: float
    has_images: bool | None


@dataclass(frozen=True)
class Backend:
    """A named page reader: ``read(data) -> list[RawPage]`` raising ``DocumentError``."""

    name: str
    read: Callable[[bytes], list[RawPage]]


# --------------------------------------------------------------------------- pypdf


def open_pypdf(data: bytes) -> pypdf.PdfReader:
    """Open ``data`` with pypdf, decrypting with the empty user password if needed.

    Raises:
        DocumentError: code ``encrypted`` if a real password is required, ``corrupt`` if
            the file cannot be read as a PDF.
    """
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise DocumentError(ENCRYPTED_REASON, code="encrypted")
        return reader
    except DocumentError:
        raise
    except FileNotDecryptedError as exc:
        raise DocumentError(ENCRYPTED_REASON, code="encrypted") from exc
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError,
            OSError, RecursionError, AssertionError, NotImplementedError) as exc:
        raise DocumentError(CORRUPT_REASON, code="corrupt") from exc


def _pypdf_has_images(page: pypdf.PageObject) -> bool | None:
    try:
        return len(page.images) > 0
    except Exception:  # noqa: BLE001 - image listing is only a hint for scan detection
        return None


#: Area of an A4 page in PDF points (595.276 x 841.89 pt).
A4_AREA_PT2 = 595.276 * 841.89


def _wants_image_hint(text: str, width_pt: float, height_pt: float, hint_below_chars_per_a4: int | None) -> bool:
    """Whether a page's image listing is worth its cost: always without a bound; with one, only
    for a page whose raw text has fewer than twice the bound's visible characters (scaled to the
    page area relative to A4). The listing is only a hint for scan detection, which asks it for
    low-text pages alone; the margin of 2 covers what normalisation removes (soft hyphens,
    control characters)."""
    if hint_below_chars_per_a4 is None:
        return True
    bound = 2 * hint_below_chars_per_a4 * abs(width_pt * height_pt) / A4_AREA_PT2
    return sum(1 for ch in text if not ch.isspace()) < bound


def read_pypdf(data: bytes, hint_below_chars_per_a4: int | None = None) -> list[RawPage]:
    """Per-page text with pypdf (``extract_text()`` in its default plain mode), overprinted
    copies of a text (fake bold: the same glyphs shown again within a fraction of a point, see
    ``overprint.OverprintFilter``) left out.

    A page whose text cannot be extracted gets empty text and ``has_images=None``.
    ``hint_below_chars_per_a4``: list a page's images (``has_images``) only when its text is
    short (see ``_wants_image_hint``; the scan threshold in characters per A4 area), else
    ``has_images=None``. pypdf finds inline images by parsing the page's content stream a second
    time, which was a third of the time of reading a text-rich page (cProfile, 121 real pages).

    Raises:
        DocumentError: as ``open_pypdf``; code ``corrupt`` if page content cannot be read.
    """
    reader = open_pypdf(data)
    pages: list[RawPage] = []
    try:
        for i, page in enumerate(reader.pages, start=1):
            box = page.cropbox
            width, height = abs(float(box.width)), abs(float(box.height))
            try:
                overprint = OverprintFilter()
                page.extract_text(visitor_text=overprint)
                text = overprint.text()
                has_images = (_pypdf_has_images(page)
                              if _wants_image_hint(text, width, height, hint_below_chars_per_a4) else None)
            except MemoryError:
                raise
            except Exception:  # noqa: BLE001 - one unreadable page: empty text, the caller
                # sees a page below the scan threshold and asks the fallback library.
                text, has_images = "", None
            pages.append(
                RawPage(
                    page_number=i,
                    text=text,
                    width_pt=width,
                    height_pt=height,
                    has_images=has_images,
                )
            )
    except FileNotDecryptedError as exc:
        raise DocumentError(ENCRYPTED_REASON, code="encrypted") from exc
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError,
            OSError, RecursionError, AssertionError, NotImplementedError, ZeroDivisionError) as exc:
        raise DocumentError(CORRUPT_REASON, code="corrupt") from exc
    return pages


# ------------------------------------------------------------------------ pypdfium2


def open_pdfium(data: bytes) -> pdfium.PdfDocument:
    """Open ``data`` with pypdfium2 (PDFium tries the empty user password itself).

    Raises:
        DocumentError: code ``encrypted`` for a wrong/missing password, ``corrupt`` otherwise.
    """
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if getattr(exc, "err_code", None) == pdfium_c.FPDF_ERR_PASSWORD or "password" in str(exc).lower():
            raise DocumentError(ENCRYPTED_REASON, code="encrypted") from exc
        raise DocumentError(CORRUPT_REASON, code="corrupt") from exc


def count_pages(data: bytes) -> int | None:
    """The page count PDFium reads from the PDF ``data`` (cheap: no page is loaded), or
    ``None`` when PDFium cannot open it (damaged, encrypted: the text pass says why)."""
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError:
        return None
    try:
        return len(doc)
    finally:
        doc.close()


def read_pdfium(data: bytes) -> list[RawPage]:
    """Per-page text with pypdfium2 (``PdfTextPage.get_text_bounded()``; U+0002 -> "-").

    Raises:
        DocumentError: as ``open_pdfium``; code ``corrupt`` if a page cannot be loaded.
    """
    doc = open_pdfium(data)
    pages: list[RawPage] = []
    try:
        for i in range(len(doc)):
            page = doc[i]
            try:
                width, height = page.get_size()
                textpage = page.get_textpage()
                try:
                    text = textpage.get_text_bounded()
                finally:
                    textpage.close()
                has_images = next(iter(page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE])), None) is not None
            finally:
                page.close()
            # PDFium reports a hyphen at a line break as U+0002; restore the printed hyphen.
            text = text.replace("\x02", "-")
            pages.append(RawPage(i + 1, text, abs(width), abs(height), has_images))
    except pdfium.PdfiumError as exc:
        raise DocumentError(CORRUPT_REASON, code="corrupt") from exc
    finally:
        doc.close()
    return pages


PYPDF = Backend("pypdf", read_pypdf)
PDFIUM = Backend("pypdfium2", read_pdfium)
BACKENDS: dict[str, Backend] = {b.name: b for b in (PYPDF, PDFIUM)}


def quiet_pypdf_logging() -> None:
    """pypdf logs a warning per recoverable defect; keep them out of service logs."""
    logging.getLogger("pypdf").setLevel(logging.ERROR)

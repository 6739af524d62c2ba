"""Per-page text of a PDF: pypdf first, pypdfium2 as fallback, scan and garble detection.

Why pypdf first: on the corpus both reach the same truth-string recall, but pypdfium2's
failures are silent (text repeated 21x on a self-referencing form XObject; characters dropped
from Big5 CID text; spaces between English words lost in browser-printed PDFs)
while pypdf's one failure (whole pages of mis-decoded CJK in hk_policy_address_2019_zh.pdf)
is caught by ``garble_score`` and repaired page by page from pypdfium2. pypdfium2 is ~7x
faster, but pypdf's ~55 pages/s is ample for briefing papers. Figures: README.md and
``bench/parser_compare.py``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from shared.errors import DocumentError
from shared.models import PageText
from shared.settings import Settings

from .pdf_backends import A4_AREA_PT2, NO_PAGES_REASON, PDFIUM, PYPDF, Backend, RawPage, read_pypdf
from .textquality import count_visible_chars, garble_score, informative_chars, normalise_text, strip_control_chars


@dataclass
class PdfText:
    """Result of ``extract_pdf_text``.

    ``pages`` are 1-based and complete (one per PDF page); ``extractor`` names the library
    used (``"pypdf"``, ``"pypdfium2"`` or ``"pypdf+pypdfium2"`` when pages were mixed);
    ``warnings`` are sentences for the user about pages without usable text.
    """

    pages: list[PageText]
    extractor: str
    warnings: list[str] = field(default_factory=list)


def scan_threshold_chars(width_pt: float, height_pt: float, min_chars_per_a4: int) -> float:
    """Characters a page of ``width_pt`` x ``height_pt`` points needs not to count as scanned:
    ``min_chars_per_a4`` scaled by the page area relative to A4."""
    return min_chars_per_a4 * (abs(width_pt * height_pt) / A4_AREA_PT2)


def format_pages(numbers: list[int]) -> str:
    """``[1, 2, 3, 5]`` -> ``"1-3, 5"`` (1-based page numbers, sorted ascending)."""
    parts: list[str] = []
    start: int | None = None
    prev = 0  # the run's last page, once ``start`` is set
    for n in sorted(numbers):
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            parts.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = n
    if start is not None:
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ", ".join(parts)


def _plural(numbers: list[int]) -> str:
    return ("Page " if len(numbers) == 1 else "Pages ") + format_pages(numbers)


class _Fallback:
    """Reads the document with the fallback backend once, on first use."""

    def __init__(self, backend: Backend, data: bytes) -> None:
        self.backend = backend
        self._data = data
        self._pages: list[RawPage] | None = None
        self._failed = False

    def page(self, number: int, expected_count: int) -> RawPage | None:
        if self._pages is None and not self._failed:
            try:
                self._pages = self.backend.read(self._data)
            except Exception:  # noqa: BLE001 - a failing fallback just means "no better text"
                self._failed = True
        if not self._pages or len(self._pages) != expected_count:
            return None
        return self._pages[number - 1]


def _read_primary(data: bytes, settings: Settings) -> tuple[list[RawPage], Backend, Backend | None]:
    """Read with pypdf, or with pypdfium2 when pypdf cannot open the file. pypdf lists the images
    of low-text pages only (the scan test asks no other page)."""
    try:
        return read_pypdf(data, settings.scanned_min_chars_per_page), PYPDF, PDFIUM
    except DocumentError as exc:
        if exc.code == "encrypted":
            raise
        first_error: Exception = exc
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - an unexpected pypdf bug: try the other library
        first_error = exc
    try:
        return PDFIUM.read(data), PDFIUM, None
    except DocumentError:
        if isinstance(first_error, DocumentError):
            raise first_error from None
        raise


@dataclass
class _PageRead:
    """One page's text as read so far: ``source`` names the library it came from,
    ``low_text`` means fewer visible characters than the page's scan threshold,
    ``repaired`` that the fallback library replaced a garbled text."""

    text: str
    source: str
    garbled: bool
    low_text: bool
    has_images: bool | None
    repaired: bool = False


def _read_page(raw: RawPage, primary: Backend, fallback: _Fallback | None, page_count: int,
               settings: Settings) -> _PageRead:
    """``raw``'s normalised text, from the fallback library when the primary's is garbled or
    too short and the fallback's is better."""
    text = normalise_text(raw.text)
    threshold = scan_threshold_chars(raw.width_pt, raw.height_pt, settings.scanned_min_chars_per_page)
    read = _PageRead(text=text, source=primary.name, garbled=garble_score(text).garbled,
                     low_text=count_visible_chars(text) < threshold, has_images=raw.has_images)
    if fallback and (read.garbled or read.low_text):
        alt = fallback.page(raw.page_number, page_count)
        if alt is not None:
            _consider_fallback(read, alt, fallback.backend.name, threshold)
    return read


#: The fallback's text replaces a readable primary text only with this much more information.
FALLBACK_GAIN = 1.2


def _consider_fallback(read: _PageRead, alt: RawPage, alt_source: str, threshold: float) -> None:
    """Merge the fallback library's image hint into ``read``, and take its text when it is not
    garbled and either repairs a garbled text or reads more: over ``FALLBACK_GAIN`` times the
    primary's ``informative_chars`` (repeated lines counted once), so a text repeated by a Form
    XObject cycle never wins by being longer."""
    alt_text = normalise_text(alt.text)
    alt_garbled = garble_score(alt_text).garbled
    if read.has_images is None:
        read.has_images = alt.has_images
    elif alt.has_images:
        read.has_images = True
    better = (read.garbled and not alt_garbled) or (
        not alt_garbled and informative_chars(alt_text) > FALLBACK_GAIN * informative_chars(read.text)
    )
    if better:
        read.repaired = read.garbled
        read.text, read.source, read.garbled = alt_text, alt_source, False
        read.low_text = count_visible_chars(read.text) < threshold


def _warnings(page_count: int, scanned: list[int], garbled: list[int], blank: list[int], repaired: list[int],
              fallback_name: str, primary_name: str, scans_readable: bool = False) -> list[str]:
    """The user-facing sentences about scanned, garbled, blank and repaired pages (1-based).
    ``scans_readable``: the table stage reads scanned and garbled pages from their images
    (``Settings.scans_readable``: local OCR or the vision path), so the sentences say so rather
    than that OCR is needed."""
    warnings: list[str] = []
    if scanned:
        warnings.append(
            f"{_plural(scanned)} of {page_count} look scanned (images with little or no text layer); "
            + ("their text is read from the page images (OCR), which can misread characters."
               if scans_readable else "they need OCR to be searchable, and OCR is off.")
        )
    if garbled:
        warnings.append(
            f"{_plural(garbled)}: the text layer is garbled (fonts without a character mapping); "
            + ("read from the page images (OCR) instead." if scans_readable else "needs OCR, and OCR is off.")
        )
    if blank:
        warnings.append(f"{_plural(blank)} blank (no text).")
    if repaired:
        warnings.append(
            f"{_plural(repaired)}: text read with {fallback_name} because "
            f"{primary_name} returned garbled text."
        )
    return warnings


def extract_pdf_text(data: bytes, settings: Settings) -> PdfText:
    """Extract normalised text of every page of the PDF in ``data``.

    Args:
        data: the PDF file's bytes.
        settings: uses ``scanned_min_chars_per_page`` (characters per A4-sized area).

    Returns:
        ``PdfText`` with one ``PageText`` per page (1-based). A page whose text is garbled
        in both libraries gets empty text, ``scanned=True`` (it needs OCR) and a warning;
        a page with fewer characters than the area-scaled threshold that draws an image
        is ``scanned=True`` (its text, e.g. a paper-number stamp, is kept); a page with no
        text and no image is blank (empty text, ``scanned=False``). A document without any
        usable text is returned, not rejected: the pipeline decides.

    Raises:
        DocumentError: ``encrypted`` (needs a password), ``corrupt`` (neither library can
            open it), ``no_pages`` (zero pages).
    """
    raw_pages, primary, fallback_backend = _read_primary(data, settings)
    if not raw_pages:
        raise DocumentError(NO_PAGES_REASON, code="no_pages")
    fallback = _Fallback(fallback_backend, data) if fallback_backend else None

    pages: list[PageText] = []
    used: set[str] = set()
    scanned: list[int] = []
    blank: list[int] = []
    garbled: list[int] = []
    repaired: list[int] = []
    for raw in raw_pages:
        read = _read_page(raw, primary, fallback, len(raw_pages), settings)
        if read.repaired:
            repaired.append(raw.page_number)
        if read.garbled:
            garbled.append(raw.page_number)
            pages.append(PageText(page_number=raw.page_number, text="", char_count=0, scanned=True))
            continue
        text = strip_control_chars(read.text)
        used.add(read.source)
        is_scanned = read.low_text and read.has_images is not False
        if is_scanned:
            scanned.append(raw.page_number)
        elif not text:
            blank.append(raw.page_number)
        pages.append(
            PageText(page_number=raw.page_number, text=text, char_count=len(text), scanned=is_scanned)
        )

    warnings = _warnings(len(pages), scanned, garbled, blank, repaired,
                         fallback.backend.name if fallback else "", primary.name, settings.scans_readable)
    order = [b for b in (primary.name, fallback_backend.name if fallback_backend else "") if b in used]
    extractor = "+".join(order) if order else primary.name
    return PdfText(pages=pages, extractor=extractor, warnings=warnings)

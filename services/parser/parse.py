"""Parser entry points: bytes of an uploaded file -> ``ParseOutput``.

``parse_document`` does the work in the calling process; ``parse_spooled_isolated`` runs it
in a child process with a wall-clock limit that follows the page count and an address-space
limit, the pages written to a spool directory one at a time (``spool.py``), which is how the
service calls it for untrusted uploads (see ``isolation.py``); ``parse_document_isolated`` is
the same with the pages read back into memory.
"""
from __future__ import annotations

import re
import tempfile
import threading

from pydantic import BaseModel, Field

from shared.models import PageBoxes, PageText, ParsedDocument
from shared.settings import Settings

from .boxes import iter_page_boxes
from .columns import column_text
from .docx import parse_docx
from .glyphmap import GlyphChecker
from .isolation import TimeLimit, run_isolated
from .pages import split_pdf_pages
from .pdf import extract_pdf_text
from .pdf_backends import count_pages, quiet_pypdf_logging
from .sniff import sniff
from .spool import MemorySink, PageSink, SpoolSink, page_boxes_path, page_pdf_path, read_page_count
from .textquality import normalise_text, strip_control_chars
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


class SpooledParse(BaseModel):
    """What the parser produces for one file when the pages went to a spool directory
    (``spool.SpoolSink``): ``parsed`` (per-page text), and the 1-based pages whose one-page PDF
    (``pdf_pages``) and position layer (``box_pages``) were written there, ascending."""

    parsed: ParsedDocument
    pdf_pages: list[int] = Field(default_factory=list)
    box_pages: list[int] = Field(default_factory=list)


def parse_document(data: bytes, filename: str, document_id: str, settings: Settings) -> ParseOutput:
    """Parse an uploaded file in this process, its pages kept in memory.

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
    sink = MemorySink()
    parsed = parse_into(data, filename, document_id, settings, sink)
    return ParseOutput(parsed=parsed, page_pdfs=sink.pdfs, page_boxes=sink.boxes)


def parse_to_spool(data: bytes, filename: str, document_id: str, settings: Settings, spool_dir: str) -> SpooledParse:
    """``parse_document`` with the pages written to the spool directory ``spool_dir`` (created
    if missing; layout in ``spool.py``) one at a time instead of kept: the memory it needs does
    not grow with the page count beyond the page texts. Same errors as ``parse_document``."""
    sink = SpoolSink(spool_dir)
    parsed = parse_into(data, filename, document_id, settings, sink)
    return SpooledParse(parsed=parsed, pdf_pages=sink.pdf_pages, box_pages=sink.box_pages)


def parse_into(data: bytes, filename: str, document_id: str, settings: Settings, sink: PageSink) -> ParsedDocument:
    """Parse an uploaded file, handing each one-page PDF and position layer to ``sink`` as it
    is made (a PDF's page count first, as soon as PDFium has counted the pages); returns the
    ``ParsedDocument``. Same arguments (but ``sink``) and errors as ``parse_document``."""
    quiet_pypdf_logging()
    sniffed = sniff(data, filename)
    warnings: list[str] = [sniffed.note] if sniffed.note else []
    if sniffed.pdf_offset:
        # other data before the header (a mail or upload tool's wrapper): the PDF is what follows,
        # and its cross-reference offsets count from its header (as pypdf reads such a file)
        data = data[sniffed.pdf_offset:]
        warnings.append(f"The file had {sniffed.pdf_offset:,} bytes of other data before the PDF; they were skipped.")
    if sniffed.file_type == "pdf":
        count = count_pages(data)
        if count:
            sink.page_count(count)
        result = extract_pdf_text(data, settings)
        pages, extractor = result.pages, result.extractor
        warnings.extend(result.warnings)
        for n, pdf in split_pdf_pages(data):
            sink.page_pdf(n, pdf)
        # pages with no text in pages.json (scanned, garbled) get no layer: nothing to mark
        with_text = {p.page_number for p in pages if p.text.strip()}
        # characters the fonts map wrongly, checked on each page as the layer pass loads it: the
        # page text (in ``pages``) and its layer are repaired before the columns are read
        glyphs = GlyphChecker(pages, settings)
        columns = False
        for n, boxes in iter_page_boxes(data, glyphs):
            if n in with_text:
                sink.page_boxes(n, boxes)
                columns = _read_by_columns(pages, n, boxes) or columns
        if columns and "pypdfium2" not in extractor:
            extractor += "+pypdfium2"
        warnings.extend(glyphs.warnings())
    elif sniffed.file_type == "docx":
        pages, extractor = [parse_docx(data, settings)], "python-docx"
    else:
        page, codec = parse_txt(data)
        pages, extractor = [page], f"text:{codec}"
    if sniffed.file_type != "pdf" and not pages[0].text.strip():
        warnings.append("The document contains no text.")
    warnings.extend(replace_lone_surrogates(pages))
    return ParsedDocument(
        document_id=document_id,
        filename=filename,
        file_type=sniffed.file_type,
        page_count=len(pages),
        pages=pages,
        extractor=extractor,
        warnings=warnings,
    )


def _read_by_columns(pages: list[PageText], number: int, boxes: PageBoxes) -> bool:
    """Replace page ``number``'s (1-based) text in ``pages`` by its columns' text, read from its
    position layer (PDFium), when ``columns.column_text`` finds it is a two-column page; says
    whether it did. Both extractors read such a page line by line across the gutter."""
    text = column_text(boxes)
    if text is None:
        return False
    text = strip_control_chars(normalise_text(text))
    old = pages[number - 1]
    pages[number - 1] = old.model_copy(update={"text": text, "char_count": len(text)})
    return True


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


def parse_time_limit_s(settings: Settings, page_count: int | None) -> float:
    """Seconds the parse child may take for a document of ``page_count`` pages:
    ``parse_timeout_s`` + ``parse_timeout_per_page_s`` per page, at most ``parse_timeout_max_s``
    (never below ``parse_timeout_s``); ``parse_timeout_s`` while the count is unknown (before the
    child counted the pages, or for a file PDFium cannot count: DOCX, TXT, a damaged PDF)."""
    if not page_count:
        return settings.parse_timeout_s
    grown = settings.parse_timeout_s + settings.parse_timeout_per_page_s * page_count
    return max(settings.parse_timeout_s, min(settings.parse_timeout_max_s, grown))


def parse_spooled_isolated(data: bytes, filename: str, document_id: str, settings: Settings, spool_dir: str,
                           cancel: threading.Event | None = None) -> SpooledParse:
    """``parse_to_spool`` in a child process with an address-space limit
    (``settings.parse_memory_limit_bytes``, bytes) and a wall-clock limit that follows the page
    count (``parse_time_limit_s``: the child writes the count into the spool directory as soon as
    it has it, and the limit is read again every 0.25 s).

    Args:
        spool_dir: an existing directory the child writes the pages into (``spool.py``).
        cancel: set it to stop the child (``isolation.Cancelled``), e.g. when the document is
            deleted meanwhile.

    Raises:
        DocumentError: as ``parse_document``; plus ``timeout`` (child killed after the limit;
            the reason names the limit and the page count it was for), ``too_large`` (child ran
            out of its memory limit) and ``crash`` (child died without a result, e.g. a
            segfault in a native library).
        RuntimeError: the child raised an unexpected (non-document) error; treat as transient.
    """
    return run_isolated(
        parse_to_spool,
        (data, filename, document_id, settings, spool_dir),
        timeout_s=settings.parse_timeout_s,
        memory_limit_bytes=settings.parse_memory_limit_bytes,
        cancel=cancel,
        time_limit=spool_time_limit(settings, spool_dir),
    )


def spool_time_limit(settings: Settings, spool_dir: str) -> TimeLimit:
    """The parse child's current limit (``isolation.TimeLimit``): ``parse_time_limit_s`` of the
    page count the child wrote into ``spool_dir`` (none yet: ``parse_timeout_s``), and a note
    naming the count for the reason of a timeout."""
    def limit() -> tuple[float, str]:
        count = read_page_count(spool_dir)
        return parse_time_limit_s(settings, count), (f"the limit for its {count} pages" if count else "")

    return limit


def parse_document_isolated(data: bytes, filename: str, document_id: str, settings: Settings,
                            cancel: threading.Event | None = None) -> ParseOutput:
    """``parse_spooled_isolated`` through a temporary spool directory, with the pages read back
    into memory: the same result as ``parse_document``, for callers that want it whole (the
    tests, small documents). The service uploads from the spool directory instead
    (``handle.parse_and_store``). Same errors as ``parse_spooled_isolated``."""
    with tempfile.TemporaryDirectory(prefix="legco-parse-", dir=settings.parse_spool_dir or None) as spool_dir:
        spooled = parse_spooled_isolated(data, filename, document_id, settings, spool_dir, cancel)
        return ParseOutput(
            parsed=spooled.parsed,
            page_pdfs={n: page_pdf_path(spool_dir, n).read_bytes() for n in spooled.pdf_pages},
            page_boxes={n: PageBoxes.model_validate_json(page_boxes_path(spool_dir, n).read_bytes())
                        for n in spooled.box_pages})

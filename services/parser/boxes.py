"""The text-position layer of a PDF: where each run of text is printed on its page.

PDFium (pypdfium2) gives every character of a page's text its box; this module groups the
characters into runs of one printed line (``BoxLine``: text, PDFium character offset, box and
character x positions) per page (``PageBoxes``), so the splitter can find where a chunk's words
are printed and the web app can mark them on the rendered page. Coordinates are PDF points with
the origin at the top-left corner of the page as displayed (crop box and ``/Rotate`` applied),
y downward: the coordinates pdf.js renders a page in at scale 1.

Kept small: one object per run, positions rounded to 0.1 pt (E_基礎設施.pdf: 13 pages of
text, ~4 KB of JSON per page).
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from shared.models import BoxLine, PageBoxes

log = logging.getLogger("legco.parser.boxes")

Point = Callable[[float, float], tuple[float, float]]

#: A gap wider than this many line heights between two characters of one line starts a new run
#: (table cells and columns that PDFium reads as one line).
RUN_GAP_LINE_HEIGHTS = 1.5
_LINE_BREAKS = {"\r", "\n"}


def display_mapping(page: pdfium.PdfPage) -> tuple[Point, float, float]:
    """A mapping from PDF user space (origin bottom-left, y up) to the displayed page (origin
    top-left, y down, crop box and rotation applied), and the displayed width and height."""
    x0, y0, x1, y1 = page.get_cropbox()
    w, h = x1 - x0, y1 - y0
    rotation = page.get_rotation() % 360
    if rotation == 90:
        return (lambda x, y: (y - y0, x - x0)), h, w
    if rotation == 180:
        return (lambda x, y: (x1 - x, y - y0)), w, h
    if rotation == 270:
        return (lambda x, y: (y1 - y, x1 - x)), h, w
    return (lambda x, y: (x - x0, y1 - y)), w, h


def _r(v: float) -> float:
    return round(v, 1)


class _Run:
    """Characters of one run being collected: offset, text, boxes (displayed coordinates)."""

    def __init__(self, offset: int) -> None:
        self.offset = offset
        self.chars: list[str] = []
        self.boxes: list[tuple[float, float, float, float]] = []

    def line(self) -> BoxLine | None:
        # spaces at either end carry no ink: leave them out of the run
        start, end = 0, len(self.chars)
        while start < end and not self.chars[start].strip():
            start += 1
        while end > start and not self.chars[end - 1].strip():
            end -= 1
        if start == end:
            return None
        chars, boxes = self.chars[start:end], self.boxes[start:end]
        inked = [b for c, b in zip(chars, boxes, strict=True) if c.strip()]
        bx0 = min(b[0] for b in inked)
        by0 = min(b[1] for b in inked)
        bx1 = max(b[2] for b in inked)
        by1 = max(b[3] for b in inked)
        # x[i]: left of character i, never left of the previous one; x[n]: the run's right end
        xs: list[float] = []
        last = bx0
        for b in boxes:
            last = max(last, min(b[0], bx1))
            xs.append(_r(last))
        xs[0] = _r(bx0)
        xs.append(_r(bx1))
        return BoxLine(o=self.offset + start, t="".join(chars), b=(_r(bx0), _r(by0), _r(bx1), _r(by1)), x=xs)


_HIGH, _LOW = 0xD800, 0xDC00  # the first high and low UTF-16 surrogates


def _char(codes: list[int], i: int) -> str:
    """The character PDFium reports at index ``i`` of a page whose UTF-16 code units are
    ``codes``: U+0002 (PDFium's line-end hyphen) as ``-``; a high surrogate followed by a low
    one as the supplementary-plane character the pair encodes (PDFium gives such a character two
    indices, e.g. 𨋢 U+282E2 as D860 DEE2); a lone surrogate or an impossible code as U+FFFD,
    which, unlike a surrogate, can be written as UTF-8 (JSON)."""
    code = codes[i]
    if code == 2:
        return "-"
    if _HIGH <= code < _LOW and i + 1 < len(codes) and _LOW <= codes[i + 1] <= 0xDFFF:
        return chr(0x10000 + ((code - _HIGH) << 10) + (codes[i + 1] - _LOW))
    if 0 < code < 0x110000 and not _HIGH <= code <= 0xDFFF:
        return chr(code)
    return "\ufffd"


def page_chars(textpage: pdfium.PdfTextPage) -> list[tuple[int, str]]:
    """``(PDFium character index, character)`` of each character of a page's text in PDFium's
    order (see ``_char``): a supplementary-plane character is one item, at the index of its
    first half."""
    codes = [pdfium_c.FPDFText_GetUnicode(textpage.raw, i) for i in range(textpage.count_chars())]
    return [(i, _char(codes, i)) for i, code in enumerate(codes)
            if not (_LOW <= code <= 0xDFFF and i > 0 and _HIGH <= codes[i - 1] < _LOW)]


def page_boxes(page: pdfium.PdfPage, page_number: int, fixes: Mapping[int, str] | None = None) -> PageBoxes:
    """The position layer of one page (``page_number`` 1-based): its runs in PDFium's text
    order, a new run at each line break PDFium reports, at a change of baseline, and at a gap
    wider than ``RUN_GAP_LINE_HEIGHTS`` line heights. A supplementary-plane character is one
    character of its run (PDFium counts it as two: ``BoxLine.o`` stays PDFium's offset).
    ``fixes``: PDFium character index -> the character to store there instead (a character the
    page's font maps wrongly, read from its shape: ``glyphmap.check_glyphs``)."""
    to_display, width, height = display_mapping(page)
    textpage = page.get_textpage()
    lines: list[BoxLine] = []
    try:
        run: _Run | None = None

        def close() -> None:
            if run is not None and (line := run.line()) is not None:
                lines.append(line)

        for i, char in page_chars(textpage):
            if fixes and i in fixes:
                char = fixes[i]
            if char in _LINE_BREAKS:
                close()
                run = None
                continue
            left, bottom, right, top = textpage.get_charbox(i, loose=True)
            ax, ay = to_display(left, top)
            bx, by = to_display(right, bottom)
            box = (min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))
            if run is not None and run.boxes and char.strip():
                prev = next((b for c, b in zip(reversed(run.chars), reversed(run.boxes), strict=True)
                             if c.strip()), None)
                if prev is not None:
                    line_h = max(prev[3] - prev[1], box[3] - box[1], 1.0)
                    mid_prev, mid = (prev[1] + prev[3]) / 2, (box[1] + box[3]) / 2
                    if abs(mid - mid_prev) > line_h / 2 or box[0] - prev[2] > RUN_GAP_LINE_HEIGHTS * line_h:
                        close()
                        run = None
            if run is None:
                run = _Run(i)
            run.chars.append(char)
            run.boxes.append(box)
        close()
    finally:
        textpage.close()
    return PageBoxes(page=page_number, width=_r(width), height=_r(height), lines=lines)


#: Called with each page (1-based number, the open PDFium page) before its layer is made; returns
#: the page's ``page_boxes`` fixes or None (``glyphmap.GlyphChecker``).
PageHook = Callable[[int, pdfium.PdfPage], Mapping[int, str] | None]


def extract_page_boxes(data: bytes, fixes: PageHook | None = None) -> dict[int, PageBoxes]:
    """The position layer of every page of the PDF in ``data`` that has text, by 1-based page
    number. A PDF PDFium cannot read gives ``{}`` (the layer is an aid: no highlights, no
    failure); so does a page it cannot load. ``fixes``: see ``PageHook``."""
    return dict(iter_page_boxes(data, fixes))


def iter_page_boxes(data: bytes, fixes: PageHook | None = None) -> Iterator[tuple[int, PageBoxes]]:
    """``extract_page_boxes`` one page at a time: ``(1-based page, PageBoxes)`` for each page
    with text, in page order, so a caller that writes each layer away holds one at a time.
    ``fixes`` is called for every page loaded, on the open page, before its layer is made."""
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as e:
        log.info("no position layer: %s", e)
        return
    try:
        for i in range(len(doc)):
            try:
                page = doc[i]
            except pdfium.PdfiumError as e:
                log.info("no position layer for page %d: %s", i + 1, e)
                continue
            try:
                boxes = page_boxes(page, i + 1, fixes(i + 1, page) if fixes else None)
            finally:
                page.close()
            if boxes.lines:
                yield i + 1, boxes
    finally:
        doc.close()

"""Page text → one clean body text with an exact character → page map.

Steps per page (the extraction quirks they undo are listed with each step):

1. :func:`shared.textnorm.normalize_text` (PUA HK characters, Word bullets, soft hyphens,
   ``\\r\\n``).
2. Drop page furniture lines, looked for only among the first/last few lines of a page:
   footers ``E-5``, date lines ``2024-06-17``, the page-1 header ``(E)``, bare page numbers
   (``46 47``), LegCo page stamps (``立法會CB(3)710/2026(02)號文件``, ``LC Paper No. …``)
   and running headers repeated at the top/bottom of many pages.
3. Remove trailing spaces and spurious spaces between CJK characters (pypdf/pdfium).

Pages are joined with ``\\n``.  ``Body.pages[i]`` is the page (1-based, or ``None`` for
DOCX/TXT) of ``Body.text[i]``, so page numbers stay exact after stripping.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from shared.models import ParsedDocument
from shared.textnorm import collapse_cjk_spaces, normalize_text

FOOTER_RE = re.compile(r"^[A-Z]{1,2}\s?-\s?\d{1,3}$")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
HEADER_LETTER_RE = re.compile(r"^\([A-Z]{1,2}\)$")
PAGE_NUM_RE = re.compile(r"^[-–—]?\s*\d{1,3}(?:\s+\d{1,3})?\s*[-–—]?$")
STAMP_RE = re.compile(
    r"^(?:立法會\s*C[BP]\s*\(\d\)\s*\d+/\d+\s*(?:\(\d+\))?\s*號文件"
    r"|LC\s*Paper\s*No\.?\s*C[BP]\s*\(\d\)\s*\d+/\d+\s*(?:\(\d+\))?)$",
    re.IGNORECASE,
)
EDGE_LINES = 3  # furniture is only looked for in the first/last lines of a page


@dataclass
class Body:
    """Cleaned document text and, per character, its 1-based page (``None`` for DOCX/TXT)."""

    text: str
    pages: list[int | None]
    removed: list[tuple[int | None, str]] = field(default_factory=list)

    def page_at(self, i: int) -> int | None:
        """Page of character ``i`` (clamped into the text)."""
        if not self.pages:
            return None
        return self.pages[max(0, min(i, len(self.pages) - 1))]

    def last_page(self, start: int, end: int) -> int | None:
        """Page of the last non-whitespace character in ``text[start:end]``."""
        j = end - 1
        while j > start and self.text[j].isspace():
            j -= 1
        return self.page_at(j)

    def first_page(self, start: int, end: int) -> int | None:
        """Page of the first non-whitespace character in ``text[start:end]``."""
        i = start
        while i < end - 1 and self.text[i].isspace():
            i += 1
        return self.page_at(i)


def _clean_line(line: str) -> str:
    return collapse_cjk_spaces(line.rstrip())


def _edge_indexes(lines: list[str]) -> list[int]:
    nonempty = [i for i, line in enumerate(lines) if line.strip()]
    return sorted(set(nonempty[:EDGE_LINES] + nonempty[-EDGE_LINES:]))


def _running_headers(pages: list[list[str]]) -> set[str]:
    """Lines that sit at a page edge on at least 3 pages and 40 % of the pages."""
    if len(pages) < 3:
        return set()
    counts: Counter[str] = Counter()
    for lines in pages:
        seen = {re.sub(r"\d+", "#", lines[i].strip()) for i in _edge_indexes(lines)}
        counts.update(s for s in seen if len(s) >= 4)
    return {s for s, c in counts.items() if c >= 3 and c >= 0.4 * len(pages) and not s.strip("# ").isdigit()}


def _is_furniture(line: str, running: set[str], first_page: bool) -> bool:
    s = line.strip()
    if not s:
        return False
    if FOOTER_RE.match(s) or DATE_RE.match(s) or STAMP_RE.match(s) or PAGE_NUM_RE.match(s):
        return True
    if HEADER_LETTER_RE.match(s):
        return True
    return re.sub(r"\d+", "#", s) in running


def furniture_lines(page_lines: list[list[str]]) -> list[set[int]]:
    """Per page (in order), the indexes of its furniture lines (step 2 of the module docstring):
    among its first/last ``EDGE_LINES`` non-empty lines, page numbers (``- 3 -``), footers,
    dates, stamps and running headers (at a page edge on 3 pages and 40 % of the pages)."""
    running = _running_headers(page_lines)
    return [{i for i in _edge_indexes(lines) if _is_furniture(lines[i], running, idx == 0)}
            for idx, lines in enumerate(page_lines)]


def strip_furniture(doc: ParsedDocument) -> list[str]:
    """Each page's text (``doc.pages`` order) without its furniture lines, the other lines as
    extracted (not normalised; blank lines left at either end dropped); a page without furniture,
    a page that would be left empty (its whole text repeated on every page, e.g. a vision
    answer), and a DOCX/TXT text, unchanged. Markdown table rows are never furniture.
    The token strategy chunks these, as :func:`build_body` strips the same lines for the
    question strategy."""
    if doc.file_type != "pdf":
        return [p.text for p in doc.pages]
    page_lines = [p.text.split("\n") for p in doc.pages]
    drop = furniture_lines(page_lines)
    out = []
    for p, lines, skip in zip(doc.pages, page_lines, drop, strict=True):
        skip = {i for i in skip if not lines[i].lstrip().startswith("|")}  # a table's repeated header row stays
        kept = _without(lines, skip) if skip else p.text
        out.append(kept if kept.strip() else p.text)  # furniture never empties a page
    return out


def _without(lines: list[str], skip: set[int]) -> str:
    """``lines`` but those at ``skip``, joined by ``\n``, blank lines at either end dropped."""
    kept = [line for i, line in enumerate(lines) if i not in skip]
    while kept and not kept[-1].strip():
        kept.pop()
    while kept and not kept[0].strip():
        kept.pop(0)
    return "\n".join(kept)


def build_body(doc: ParsedDocument) -> Body:
    """Clean all pages of ``doc`` into one :class:`Body`.

    DOCX/TXT documents (no pages) only get normalisation and CJK-space cleanup; furniture
    stripping applies to PDFs.
    """
    is_pdf = doc.file_type == "pdf"
    page_lines = [normalize_text(p.text).split("\n") for p in doc.pages]
    drop = furniture_lines(page_lines) if is_pdf else [set() for _ in page_lines]
    parts: list[str] = []
    pages: list[int | None] = []
    removed: list[tuple[int | None, str]] = []
    for page, lines, skip in zip(doc.pages, page_lines, drop, strict=True):
        kept: list[str] = []
        for i, line in enumerate(lines):
            if i in skip:
                removed.append((page.page_number, line.strip()))
                continue
            kept.append(_clean_line(line))
        # drop leading/trailing empty lines of the page
        while kept and not kept[-1].strip():
            kept.pop()
        while kept and not kept[0].strip():
            kept.pop(0)
        if not kept:
            continue
        chunk = "\n".join(kept)
        if parts:
            parts.append("\n")
            pages.append(pages[-1])
        parts.append(chunk)
        pages.extend([page.page_number] * len(chunk))
    return Body(text="".join(parts), pages=pages, removed=removed)

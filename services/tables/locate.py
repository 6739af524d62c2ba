"""Locate a table's flattened text inside a page's plain text.

pypdfium2's ``get_text_range()`` (with ``\\r\\n`` turned into ``\\n``) writes a
ruled table as its cells in reading order, one visual line of a cell per text
line, with extra spaces between CJK and Latin/digits.  We therefore compare with
all whitespace removed:

1. exact: the fragment's cells concatenated row by row (whitespace removed) is a
   substring of the page text (whitespace removed);
2. anchored: otherwise the span from the first row's text (up to
   ``ANCHOR_CHARS``) to the last row's text is accepted if its length is within
   ``LENGTH_SLACK`` of the table text and ``MIN_OVERLAP`` of its characters (as a
   multiset) are table characters (covers a different cell order inside rows, e.g. vertically merged cells).

The returned span starts at the first table character and ends after the last
one, in the original page text, so replacing ``text[start:end]`` with markdown
leaves no table residue.
"""
from __future__ import annotations

from collections import Counter

from services.tables.models import ExtractedTable

IGNORED = {"\ufffe", "\u00ad"}  # soft hyphens pdfium emits at line ends
ANCHOR_CHARS = 12
LENGTH_SLACK = 0.10
MIN_OVERLAP = 0.95


def _squeeze(text: str) -> tuple[str, list[int]]:
    """Text without whitespace and ignored chars, plus each kept char's index in ``text``."""
    kept, index = [], []
    for i, ch in enumerate(text):
        if ch.isspace() or ch in IGNORED:
            continue
        kept.append(ch)
        index.append(i)
    return "".join(kept), index


def _overlap(a: str, b: str) -> float:
    ca, cb = Counter(a), Counter(b)
    common = sum((ca & cb).values())
    return common / max(len(a), len(b), 1)


def locate_table_span(page_text: str, table: ExtractedTable, page: int) -> tuple[int, int] | None:
    """Character span ``(start, end)`` of ``table``'s text on 1-based ``page`` in
    ``page_text`` (that page's plain text), or ``None`` if the table is not on that
    page or cannot be located confidently.

    ``end`` is exclusive.  For a table spanning pages call once per page with that
    page's text; a repeated header row on the page is part of the span.
    """
    frag = table.fragment_on(page)
    if frag is None:
        return None
    target, _ = _squeeze("".join(c for row in frag.rows for c in row))
    if not target:
        return None
    hay, index = _squeeze(page_text)
    pos = hay.find(target)
    if pos >= 0:
        return index[pos], index[pos + len(target) - 1] + 1
    rows = [r for r in (_squeeze("".join(row))[0] for row in frag.rows) if r]
    return _anchored(hay, index, target, rows[0][:ANCHOR_CHARS], rows[-1][-ANCHOR_CHARS:])


def _anchored(hay: str, index: list[int], target: str, head: str, tail: str) -> tuple[int, int] | None:
    """Best span starting with ``head`` and ending with ``tail`` whose length and
    character multiset match ``target``."""
    n, a = len(target), len(tail)
    best: tuple[float, int, int] | None = None
    start = hay.find(head)
    while start >= 0:
        lo, hi = start + int(n * (1 - LENGTH_SLACK)), start + int(n * (1 + LENGTH_SLACK)) + 1
        end = hay.find(tail, max(start, lo - a))
        while end >= 0 and end + a <= hi:
            score = _overlap(hay[start:end + a], target)
            if score >= MIN_OVERLAP and (best is None or score > best[0]):
                best = (score, start, end + a)
            end = hay.find(tail, end + 1)
        start = hay.find(head, start + 1)
    if best is None:
        return None
    _, s, e = best
    return index[s], index[e - 1] + 1

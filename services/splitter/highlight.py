"""Where a chunk's own words are printed: its text aligned with its pages' position layers.

The parser stores, per PDF page with text, a ``PageBoxes`` layer (runs of one printed line, with
boxes, read with PDFium). A chunk's text comes from the page text the parser chose (pypdf or
PDFium), after the splitter's clean-up (page furniture removed, CJK spaces removed, HK
private-use characters mapped, tables swapped for markdown). So the two are aligned loosely:

1. Both sides become a sequence of *units*: each CJK (or other non-Latin) letter is a unit, each
   run of Latin letters and digits (a word) is one, after NFKC and case folding; spaces,
   punctuation and markdown table rules are dropped. Reflow (line breaks, hyphens at a line
   end split a word into two units) and spacing then change little.
2. ``difflib.SequenceMatcher`` finds the matching blocks, in order; blocks shorter than
   ``MIN_BLOCK_UNITS`` units (a lone common word or character) are ignored, unless the unit is
   long enough to be specific. Gaps of up to ``BRIDGE_UNITS`` unmatched units between
   matches are taken in (a word cut by a hyphen at a line end matches on neither side).
3. On each run of the layer, the matched characters from the first to the last (and the
   punctuation right after it) become one rectangle (a chunk is one stretch of the document,
   so what lies between on one line is its own). Lines with nothing matched (page numbers,
   running headers, the previous question) get none.

Which text is a chunk's own: a Q&A pair's question and answer (``embed_text``), a token chunk's
page without the overlap taken from its neighbours (``overlap_before_chars``/
``overlap_after_chars``), any other chunk's ``text``. Which pages: ``page_start``..``page_end``
(a Q&A pair or section), else ``page_number``.

Coordinates are those of ``PageBoxes``: PDF points, origin at the top-left corner of the page as
displayed, y downward.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher

from shared.models import Chunk, Highlight, PageBoxes

MIN_BLOCK_UNITS = 2
"""A matching block of fewer units counts only when its unit has ``SPECIFIC_UNIT_CHARS``."""
SPECIFIC_UNIT_CHARS = 5


def _is_word_char(c: str) -> bool:
    """Latin-like letters and digits group into words; CJK and kana stand alone."""
    return c.isalnum() and (c.isascii() or unicodedata.category(c) != "Lo")


@dataclass(frozen=True)
class _Unit:
    """One unit of a layer: its normalised form and where its characters are (page, run
    index, first and last character index in the run)."""

    key: str
    page: int
    run: int
    start: int
    end: int


def _units(text: str) -> Iterable[tuple[str, int, int]]:
    """``(key, start, end)`` for each unit of ``text`` (``end`` inclusive, in ``text``)."""
    i, n = 0, len(text)
    while i < n:
        norm = unicodedata.normalize("NFKC", text[i]).casefold()
        if not any(ch.isalnum() for ch in norm):
            i += 1
            continue
        if all(_is_word_char(ch) for ch in norm):
            j = i + 1
            parts = [norm]
            while j < n:
                nxt = unicodedata.normalize("NFKC", text[j]).casefold()
                if not nxt or not all(_is_word_char(ch) for ch in nxt):
                    break
                parts.append(nxt)
                j += 1
            yield "".join(parts), i, j - 1
            i = j
        else:
            yield "".join(ch for ch in norm if ch.isalnum()), i, i
            i += 1


def text_keys(text: str) -> list[str]:
    """The unit keys of a chunk text."""
    return [k for k, _, _ in _units(text)]


def layer_units(layers: Iterable[PageBoxes]) -> list[_Unit]:
    """The units of some pages' layers, in page and reading order."""
    out: list[_Unit] = []
    for layer in layers:
        for r, line in enumerate(layer.lines):
            out.extend(_Unit(k, layer.page, r, s, e) for k, s, e in _units(line.t))
    return out


BRIDGE_UNITS = 2
"""Unmatched units between two matched ones that are taken as matched (see ``_bridge``)."""


def _bridge(matched: list[bool]) -> None:
    """Mark gaps of at most ``BRIDGE_UNITS`` unmatched units between matched ones as matched,
    in place. Within a line this changes nothing (a line's rect runs from its first to its last
    match); across a line break it takes in a word cut by a hyphen ("em-" / "ployee", which
    match on neither side of the cut when the chunk has "employee") or a character the two
    texts read differently."""
    last = -1
    for j, hit in enumerate(matched):
        if not hit:
            continue
        if last >= 0 and 0 < j - last - 1 <= BRIDGE_UNITS:
            for k in range(last + 1, j):
                matched[k] = True
        last = j


def align(text: str, layers: list[PageBoxes]) -> list[Highlight]:
    """The rectangles of ``text`` on ``layers`` (pages in order; see the module docstring).

    Returns one ``Highlight`` per page with a match, in page order; ``[]`` when nothing
    matches.
    """
    keys = text_keys(text)
    units = layer_units(layers)
    if not keys or not units:
        return []
    matcher = SequenceMatcher(None, keys, [u.key for u in units], autojunk=False)
    matched = [False] * len(units)
    for block in matcher.get_matching_blocks():
        if block.size == 0:
            continue
        if block.size < MIN_BLOCK_UNITS and len(keys[block.a]) < SPECIFIC_UNIT_CHARS:
            continue
        for j in range(block.b, block.b + block.size):
            matched[j] = True
    _bridge(matched)
    spans: dict[tuple[int, int], list[int]] = {}
    for u, hit in zip(units, matched, strict=True):
        if hit:
            span = spans.setdefault((u.page, u.run), [u.start, u.end])
            span[0], span[1] = min(span[0], u.start), max(span[1], u.end)
    by_page = {layer.page: layer for layer in layers}
    highlights: dict[int, Highlight] = {}
    for (page, run), (start, end) in sorted(spans.items()):
        line = by_page[page].lines[run]
        while end + 1 < len(line.t) and not line.t[end + 1].isalnum() and line.t[end + 1].strip():
            end += 1  # the punctuation closing the last word (。？) is part of it
        x0, x1 = line.x[start], line.x[end + 1]
        if x1 <= x0:
            continue
        hl = highlights.setdefault(page, Highlight(page=page))
        hl.rects.append((x0, line.b[1], x1, line.b[3]))
        hl.texts.append(line.t[start:end + 1])
    return [highlights[p] for p in sorted(highlights)]


def own_text(chunk: Chunk) -> str:
    """The part of ``chunk`` that is its own (see the module docstring): ``Chunk.own_text``,
    the same text the embedder embeds."""
    return chunk.own_text()


def chunk_pages(chunk: Chunk) -> list[int]:
    """The 1-based pages ``chunk`` is printed on (``[]`` without a page)."""
    start, end = chunk.metadata.get("page_start"), chunk.metadata.get("page_end")
    if isinstance(start, int) and isinstance(end, int) and 1 <= start <= end:
        return list(range(start, end + 1))
    return [chunk.page_number] if chunk.page_number is not None and chunk.page_number >= 1 else []


def add_highlights(chunks: Iterable[Chunk], layers: Mapping[int, PageBoxes]) -> None:
    """Set ``highlights`` of every chunk whose pages have layers (in place); a chunk without
    pages or layers keeps none."""
    for chunk in chunks:
        pages = [layers[p] for p in chunk_pages(chunk) if p in layers]
        chunk.highlights = align(own_text(chunk), pages) if pages else []

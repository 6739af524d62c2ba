"""Assemble all Q&A items of a body: run every style's finder, order the items, attach
heading blocks, set each item's end (= start of the next item's heading block, of the next style
region, or the end of the body) and its topic section (the last topic line seen; reset by a
備用問答-type header and at the start of a style region).

Styles are decided per topic section where a document mixes them (``style_sections``): 問/答,
``Q1./A1.``, Q-only and ``O1`` items are found by their markers wherever they are; Hansard
questions and reporters' questions only in the runs of topic sections that hold no marker pair.
Each such run with items is a *style region* of its own, as is the marked text after it: an item
never runs across a region's start, and a region's opening (its heading, a transcript's opening
remarks) before its first item is narrative.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from services.splitter import markers as mk
from services.splitter.detect import Item, Line, heading_block, is_section_heading, split_lines
from services.splitter.preprocess import Body
from services.splitter.qa_chinese import find_chinese_items
from services.splitter.qa_english import find_english_items
from services.splitter.qa_hansard import find_hansard_items
from services.splitter.qa_others import find_other_items
from services.splitter.qa_transcript import find_transcript_items
from services.splitter.style_sections import unmarked_runs


@dataclass
class Detection:
    """What :func:`find_items` found in a body.

    ``items``: in document order, ``chunk_start``/``end``/``topic`` set. ``style``: ``"chinese"``,
    ``"english"``, ``"hansard"``, ``"transcript"``, ``"mixed"`` (more than one of them; ``others``
    items do not count) or ``"none"`` (no items: the caller falls back to token chunking).
    ``narrative``: ``[start, end)`` character spans of the body that belong to no item, in order —
    the text before the first item and the opening of each later style region. The item spans
    ``[chunk_start, end)`` and the narrative spans tile ``[0, len(body.text))``.
    """

    items: list[Item]
    style: str
    narrative: list[tuple[int, int]] = field(default_factory=list)


def _marked_items(text: str, lines: list[Line]) -> list[Item]:
    """問/答, ``Q1.`` (with or without ``A1.``) and, in a document that has those, ``O1`` items."""
    zh = find_chinese_items(text, lines)
    if zh and all(i.ambiguous for i in zh):
        zh = [] if len(zh) < 2 else zh  # a lone 問 marker with no 答 is not Q&A
    items = zh + find_english_items(text, lines)
    if items:
        items += find_other_items(text, lines)
    return items


def _region_starts(lines: list[Line], turn_runs: list[range], items: list[Item]) -> list[int]:
    """Line indexes where a style region starts, ascending, ``0`` first: each run of turn
    sections with items, and the marked text after it. Regions without an item are left out."""
    starts = {0}
    for run in turn_runs:
        starts.update((run.start, run.stop))
    ordered = sorted(s for s in starts if s < len(lines))
    kept = [s for n, s in enumerate(ordered)
            if any(s <= it.marker_line < (ordered[n + 1] if n + 1 < len(ordered) else len(lines)) for it in items)]
    return [0, *kept[1:]] if kept else [0]


def _region_title(lines: list[Line], i: int) -> str | None:
    """The topic line opening a style region at line ``i`` (``None`` for a Q&A region header or
    a line that is no heading)."""
    if i == 0 or not is_section_heading(lines, i) or mk.QA_REGION_HEADER.match(lines[i].s):
        return None
    return re.sub(r"\s+", " ", lines[i].s).strip()


def _turn_items(text: str, lines: list[Line], marked: list[Item]) -> tuple[list[range], list[Item]]:
    """Hansard or reporters' questions in each run of topic sections without a marked pair:
    ``(the runs that have some, their items)``."""
    runs: list[range] = []
    found: list[Item] = []
    for run in unmarked_runs(lines, {it.marker_line for it in marked}):
        items = find_hansard_items(text, lines, run) or find_transcript_items(text, lines, run)
        if items:
            runs.append(run)
            found += items
    return runs, found


def _attach_headings(lines: list[Line], items: list[Item], starts: list[int]) -> list[Item]:
    """Set each item's ``chunk_start`` (its heading block, never above its region's start) and
    ``topic``; returns the first item of each region (``starts``: the regions' first lines)."""
    topic: str | None = None
    floor, region = -1, 0
    firsts: list[Item] = [items[0]]
    for it in items:
        r = bisect.bisect_right(starts, it.marker_line) - 1
        if r != region:
            region, floor, topic = r, starts[r] - 1, _region_title(lines, starts[r])
            firsts.append(it)
        first, new_topic, header = heading_block(lines, it.marker_line, floor)
        if header:
            topic = None
        if new_topic is not None:
            topic = new_topic
        it.topic = topic
        it.chunk_start = lines[first].start if first < it.marker_line else it.marker_start
        floor = it.marker_line
    return firsts


def find_items(body: Body) -> Detection:
    """Detect Q&A items in ``body`` (see :class:`Detection`)."""
    text = body.text
    lines = split_lines(text)
    marked = _marked_items(text, lines)
    turn_runs, turned = _turn_items(text, lines, marked)
    items: list[Item] = []
    for it in sorted(marked + turned, key=lambda it: it.marker_start):
        if not items or items[-1].marker_line != it.marker_line:  # a marker line claimed twice (defensive)
            items.append(it)
    if not items:
        return Detection([], "none")
    starts = _region_starts(lines, turn_runs, items)
    firsts = _attach_headings(lines, items, starts)
    breaks = [lines[s].start for s in starts[1:]]
    bounds = sorted({it.chunk_start for it in items} | set(breaks) | {len(text)})
    for it in items:
        it.end = bounds[bisect.bisect_right(bounds, it.marker_start)]
        a = it.a_start  # the answer starts after whitespace
        while a < it.end and text[a].isspace():
            a += 1
        it.a_start = a
    narrative = [(a, f.chunk_start) for a, f in zip([0, *breaks], firsts, strict=True)
                 if text[a:f.chunk_start].strip()]
    styles = {i.style for i in items} - {"others"}
    style = "mixed" if len(styles) > 1 else (styles.pop() if styles else "none")
    return Detection(items, style, narrative)

"""Assemble all Q&A items of a body: run every style's finder, order the items, attach
heading blocks, set each item's end (= start of the next item's heading block, or the end
of the body) and its topic section (the last topic line seen; reset by a 備用問答-type
header)."""
from __future__ import annotations

from services.splitter.detect import Item, heading_block, split_lines
from services.splitter.preprocess import Body
from services.splitter.qa_chinese import find_chinese_items
from services.splitter.qa_english import find_english_items
from services.splitter.qa_hansard import find_hansard_items
from services.splitter.qa_others import find_other_items
from services.splitter.qa_transcript import find_transcript_items


def find_items(body: Body) -> tuple[list[Item], str]:
    """Detect Q&A items in ``body``.

    Returns ``(items, style)``; ``style`` is ``"chinese"``, ``"english"``, ``"mixed"``,
    ``"hansard"`` / ``"transcript"`` (``qa_hansard`` / ``qa_transcript``: only without 問/答 or
    ``Q1.`` markers) or ``"none"``
    (no items: the caller falls back to token chunking).  Items are in document
    order with ``chunk_start``/``end``/``topic`` set; their spans tile
    ``[items[0].chunk_start, len(body.text))``.
    """
    text = body.text
    lines = split_lines(text)
    zh = find_chinese_items(text, lines)
    if zh and all(i.ambiguous for i in zh):
        zh = [] if len(zh) < 2 else zh  # a lone 問 marker with no 答 is not Q&A
    en = find_english_items(text, lines)
    items = zh + en
    if items:
        items += find_other_items(text, lines)
    else:  # no 問/答 or Q1. markers: Members' questions in Hansard, or a press transcript's turns
        items = find_hansard_items(text, lines) or find_transcript_items(text, lines)
    items.sort(key=lambda it: it.marker_start)
    # drop items whose marker line is claimed twice (defensive)
    uniq: list[Item] = []
    for it in items:
        if uniq and uniq[-1].marker_line == it.marker_line:
            continue
        uniq.append(it)
    items = uniq
    if not items:
        return [], "none"
    topic: str | None = None
    floor = -1
    for it in items:
        first, new_topic, region = heading_block(lines, it.marker_line, floor)
        if region:
            topic = None
        if new_topic is not None:
            topic = new_topic
        it.topic = topic
        it.chunk_start = lines[first].start if first < it.marker_line else it.marker_start
        floor = it.marker_line
    for n, it in enumerate(items):
        it.end = items[n + 1].chunk_start if n + 1 < len(items) else len(text)
        # answer text starts after whitespace
        a = it.a_start
        while a < it.end and text[a].isspace():
            a += 1
        it.a_start = a
    styles = {"others" if i.style == "others" else i.style for i in items} - {"others"}
    style = "mixed" if len(styles) > 1 else (styles.pop() if styles else "none")
    return items, style

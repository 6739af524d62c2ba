"""Press-conference and media-session transcripts: ``Reporter: …`` / ``記者：…`` turns, each
answered by one or more officials' turns (``Secretary for Security: …``, ``發展局局長：…``).

One item per reporter turn: the question is the reporter's words (without the label), the answer
runs from the first official's turn after it to the next reporter turn, labels kept (so the
chunk reads as the exchange it was). The item's id is its sequence number (``1``, ``2``, …);
``speaker`` is the reporter's label and ``answered_by`` the officials who spoke. Opening remarks
before the first reporter turn stay narrative (``section`` chunks).

Used in a document, or in the topic sections of one (``style_sections``), without 問/答 or ``Q1.``
markers, with at least two reporter turns of which at least one is answered by an official (one
stray "Reporter:" line is not a transcript).
"""
from __future__ import annotations

import re

from services.splitter.detect import Item, Line
from services.splitter.qa_chinese import _lstrip_offset

_ZW = "\u200b\u200c\u200d\ufeff"
_COLON = r"\s*[:：︰]\s*"
# the questioner's turn: English and Chinese labels of the press
REPORTER = re.compile(rf"^(Reporters?|Journalists?|Question|記者|傳媒|提問){_COLON}", re.IGNORECASE)
# an official's turn: an English title-case label of up to 10 words, or a Chinese role
_ROLE_ZH = (r"(?:局長|副局長|司長|署長|處長|主席|長官|秘書長|總監|專員|主任|發言人|部長|處長|常任秘書長|"
            r"政務司司長|財政司司長|律政司司長|行政長官|助理署長|副署長|副處長|警務處處長|消防處處長)")
SPEAKER = re.compile(
    rf"^((?:[A-Z][A-Za-z.'’()\-]*)(?:\s+(?:of|for|and|the|[A-Z(][A-Za-z.'’()\-]*)){{0,9}}"
    rf"|[\u3400-\u9fff]{{0,12}}{_ROLE_ZH}(?:（[^）]{{1,12}}）)?){_COLON}(?=\S)")


def _label(s: str) -> str:
    return s.lstrip(_ZW)


def find_transcript_items(text: str, lines: list[Line], span: range | None = None) -> list[Item]:
    """Reporter turns as items, in document order (``end``/``chunk_start`` set by the caller).

    ``span``: the line indexes to look in (a topic section of a document that mixes styles;
    default every line). Returns ``[]`` unless the span holds at least two reporter turns, one of
    them answered."""
    span = span if span is not None else range(len(lines))
    turns: list[tuple[Line, str, int, bool]] = []  # (line, label, label end, is the reporter)
    for ln in lines[span.start:span.stop]:
        s = _label(ln.s)
        if m := REPORTER.match(s):
            turns.append((ln, m.group(1), m.end() + len(ln.s) - len(s), True))
        elif m := SPEAKER.match(s):
            turns.append((ln, m.group(1), m.end() + len(ln.s) - len(s), False))
    if not turns or not any(t[3] for t in turns):
        return []
    first = next(n for n, t in enumerate(turns) if t[3])
    turns = turns[first:]  # an official's label before the first question is an opening remark
    items: list[Item] = []
    answered = 0
    for n, (ln, label, end, reporter) in enumerate(turns):
        if not reporter:
            continue
        nxt = next((k for k in range(n + 1, len(turns)) if turns[k][3]), len(turns))
        officials = turns[n + 1:nxt]
        base = _lstrip_offset(text, ln)
        q_start = base + end
        if officials:
            a_line = officials[0][0]
            a_start = _lstrip_offset(text, a_line)
            q_end = a_start
            answered += 1
        else:
            q_end = a_start = ln.end
        item = Item("transcript", str(len(items) + 1), ln.index, base, q_start, q_end, a_start,
                    ambiguous=not officials)
        item.speaker = label
        item.answered_by = list(dict.fromkeys(t[1] for t in officials))
        items.append(item)
    if len(items) < 2 or not answered:
        return []
    return items

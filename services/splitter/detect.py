"""Find Q&A items in a cleaned body and detect the document's Q&A style.

A regex pass comes first; an LLM may only verify its boundaries.  The pairing rules live in
:mod:`qa_chinese`, :mod:`qa_english` and :mod:`qa_others`; this module turns lines into
:class:`Item` spans, attaches heading blocks (topic lines, 備用問答) to the following
item and decides where every item ends (where the next item's heading block starts).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from services.splitter import markers as mk


@dataclass
class Line:
    """One line of the body: ``text[start:end]`` (no newline), ``s`` = stripped text with
    Kangxi radicals folded (``markers.fold_radicals``: same length, so offsets hold)."""

    index: int
    start: int
    end: int
    s: str


@dataclass
class Item:
    """One detected Q&A item (character offsets into ``Body.text``).

    ``chunk_start`` ≤ ``marker_start`` (heading lines above the question belong to it),
    ``question`` = ``text[q_start:q_end]``, the answer runs ``[a_start, end)``.
    ``ambiguous`` marks boundaries found without an explicit answer marker.
    """

    style: str  # chinese | english | others | hansard | transcript
    qid: str
    marker_line: int
    marker_start: int
    q_start: int
    q_end: int
    a_start: int
    end: int = 0
    chunk_start: int = 0
    topic: str | None = None
    ambiguous: bool = False
    notes: list[str] = field(default_factory=list)
    speaker: str | None = None  # transcripts: the questioner's label ("Reporter", "記者")
    answered_by: list[str] = field(default_factory=list)  # transcripts, Hansard: the officials who answered
    speakers: list[str] = field(default_factory=list)  # Hansard: every turn's speaker, first appearance order
    verification: list[str] = field(default_factory=list)  # the Step 4 triggers its answer meets


def split_lines(text: str) -> list[Line]:
    """Lines of ``text`` with their offsets."""
    out: list[Line] = []
    pos = 0
    for i, raw in enumerate(text.split("\n")):
        out.append(Line(i, pos, pos + len(raw), mk.fold_radicals(raw.strip())))
        pos += len(raw) + 1
    return out


def _ends_sentence(s: str) -> bool:
    return not s or bool(mk.SENTENCE_END.search(s))


def _is_topic(lines: list[Line], i: int) -> bool:
    s = lines[i].s
    if not s or len(s) > 80:
        return False
    if mk.LETTER_TOPIC.match(s) and not s.endswith(("。", ".", "？", "?")):
        return True
    if mk.OTHERS_TOPIC.match(s):
        return True
    if mk.CJK_TOPIC.match(s) or ((mk.NUMBERED_TOPIC.match(s) or mk.EN_TOPIC.match(s))
                                 and not _ends_sentence(s) and len(s) <= 60):
        # a short line above a question is a heading only where a sentence or a heading ended
        # before it (not the last, unpunctuated item of a list in the previous answer)
        prev = next((lines[j].s for j in range(i - 1, -1, -1) if lines[j].s), "")
        return _ends_sentence(prev) or mk.QA_REGION_HEADER.match(prev) is not None or _is_heading_like(prev)
    return False


def _is_heading_like(s: str) -> bool:
    return bool(mk.QA_REGION_HEADER.match(s) or mk.LETTER_TOPIC.match(s) or mk.OTHERS_TOPIC.match(s)
                or (mk.NUMBERED_TOPIC.match(s) and not _ends_sentence(s) and len(s) <= 60))


def is_section_heading(lines: list[Line], i: int) -> bool:
    """Line ``i`` opens a topic section: a Q&A region header (``備用問答``, ``ORAL ANSWERS TO
    QUESTIONS``) or a topic line (``_is_topic``: numbered, lettered, an appendix's title, or a short
    unnumbered heading where a sentence ended before it)."""
    s = lines[i].s
    return bool(s) and (mk.QA_REGION_HEADER.match(s) is not None or _is_topic(lines, i))


def previous_text_line(lines: list[Line], i: int) -> int | None:
    """Index of the last non-blank line before line ``i`` (``None`` at the top of the body)."""
    return next((j for j in range(i - 1, -1, -1) if lines[j].s), None)


def heading_block(lines: list[Line], marker_line: int, floor_line: int) -> tuple[int, str | None, bool]:
    """Heading lines directly above ``marker_line`` (not above ``floor_line``).

    Returns ``(first_line_index, topic or None, has_region_header)``.  A wrapped letter
    topic (``(IX) Employees' Compensation after …`` + ``Injured Employee``) is joined.
    """
    first = marker_line
    topic_lines: list[str] = []
    region = False
    j = marker_line - 1
    while j > floor_line:
        s = lines[j].s
        if not s:
            j -= 1
            continue
        if mk.QA_REGION_HEADER.match(s):
            region = True
            first = j
        elif (
            j - 1 > floor_line
            and len(s) <= 60
            and not _ends_sentence(s)
            and not mk.LETTER_TOPIC.match(s)
            and not mk.NUMBERED_TOPIC.match(s)
            and mk.LETTER_TOPIC.match(lines[j - 1].s)
            and not lines[j - 1].s.endswith(("。", "."))
        ):
            # continuation of a wrapped "(IX) …" heading (before the line is taken as a heading
            # of its own: "Injured Employee" alone looks like one)
            topic_lines.insert(0, lines[j - 1].s + " " + s)
            first = j - 1
            j -= 2
            continue
        elif _is_topic(lines, j):
            topic_lines.insert(0, s)
            first = j
        else:
            break
        j -= 1
    topic = re.sub(r"\s+", " ", topic_lines[-1]).strip() if topic_lines else None
    return first, topic, region


def question_end_by_mark(lines: list[Line], marker_line: int, q_start: int, limit_line: int) -> int:
    """End offset of a question with no answer marker: the end of the first line (from the
    marker line, at most 4 lines, before ``limit_line``) that ends with ？ or ?; else the
    end of the marker line."""
    for k in range(marker_line, min(marker_line + 4, limit_line)):
        if lines[k].s.endswith(("？", "?")):
            return max(q_start, lines[k].end)
    return max(q_start, lines[marker_line].end)

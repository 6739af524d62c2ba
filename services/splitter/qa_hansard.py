"""Council Hansard: questions to the Government, oral and written.

A question opens with its number and the asking Member (``1. 陳大文議員：…``, ``3. MR CHAN
TAI-MAN (in Cantonese): …``) under its title line. One item per question: the Member's question,
then everything up to the next question — the official's reply and, for an oral question, the
supplementary questions with their replies (``何小明議員：…`` / ``發展局局長：…`` turns, the
President's ``主席：`` / ``PRESIDENT:`` between them) — so the whole exchange on one subject is
one unit. The item's id is the question's number, its topic the title line above it
(``detect.heading_block``), ``speaker`` the asking Member and ``answered_by`` the officials who
replied; ``speakers`` names every turn's speaker in order of first appearance.

Used in a document, or in the topic sections of one (``style_sections``), without 問/答 or
``Q1.`` markers, that either carries a Hansard section header (``議員質詢的口頭答覆`` /
``…書面答覆`` / ``ORAL ANSWERS TO QUESTIONS`` / ``WRITTEN ANSWERS``) or holds at least two
numbered Members' questions answered by an official.
"""
from __future__ import annotations

import re

from services.splitter.detect import Item, Line
from services.splitter.qa_chinese import _lstrip_offset

_COLON = r"\s*[:：︰]\s*"
_LANG = r"(?:\s*[(（](?:in|以)\s*[^)）]{1,20}[)）])?"
# a Member, in Chinese (陳大文議員) or as the English Hansard prints it (MR CHAN TAI-MAN, IR DR LO)
_MEMBER = (r"(?:[\u3400-\u9fff]{1,8}議員"
           r"|(?:(?:MR|MRS|MS|MISS|DR|IR|PROF|THE\s+HONOURABLE)\.?\s+)+[A-Z][A-Z.'’\- ]{1,40}?)")
_OFFICIAL = (r"(?:[\u3400-\u9fff]{0,12}(?:局長|副局長|司長|主席|長官|秘書長|署長|處長)"
             r"|(?:(?:ACTING|DEPUTY|UNDER)\s+)?(?:SECRETARY|CHIEF\s+SECRETARY|FINANCIAL\s+SECRETARY|PRESIDENT"
             r"|CHAIRMAN|DIRECTOR|PERMANENT\s+SECRETARY)\b[A-Z ,'’\-]{0,60}?)")
QUESTION = re.compile(rf"^(\d{{1,2}})\s*[.．、]\s*({_MEMBER}){_LANG}{_COLON}")
TURN = re.compile(rf"^({_MEMBER}|{_OFFICIAL}){_LANG}{_COLON}(?=\S)")
HEADER = re.compile(r"^(?:議員質詢的(?:口頭|書面)答覆|(?:ORAL|WRITTEN)\s+ANSWERS?\s+TO\s+QUESTIONS)$", re.IGNORECASE)
_PRESIDENT = re.compile(r"^(?:主席|PRESIDENT|CHAIRMAN)$", re.IGNORECASE)


def _is_member(label: str) -> bool:
    return bool(re.fullmatch(_MEMBER, label))


def find_hansard_items(text: str, lines: list[Line], span: range | None = None) -> list[Item]:
    """Members' questions as items, in document order (``end``/``chunk_start`` set by the caller).

    ``span``: the line indexes to look in (a topic section of a document that mixes styles;
    default every line). Returns ``[]`` unless the span holds a Hansard section header and an
    answered question, or two answered questions."""
    span = span if span is not None else range(len(lines))
    region = lines[span.start:span.stop]
    starts = [(ln, m) for ln in region if (m := QUESTION.match(ln.s))]
    if not starts:
        return []
    has_header = any(HEADER.match(ln.s) for ln in region)
    items: list[Item] = []
    answered = 0
    for n, (ln, m) in enumerate(starts):
        nxt = starts[n + 1][0].index if n + 1 < len(starts) else span.stop
        turns = [(lines[k], t) for k in range(ln.index + 1, nxt) if (t := TURN.match(lines[k].s))]
        base = _lstrip_offset(text, ln)
        q_start = base + m.end()
        officials = [t.group(1).strip() for _, t in turns
                     if not _is_member(t.group(1).strip()) and not _PRESIDENT.match(t.group(1).strip())]
        first_reply = next(((k, t) for k, t in turns if not _is_member(t.group(1).strip())
                            and not _PRESIDENT.match(t.group(1).strip())), None)
        if first_reply is not None:
            a_start = _lstrip_offset(text, first_reply[0])
            q_end = a_start
            answered += 1
        else:
            q_end = a_start = ln.end
        item = Item("hansard", m.group(1), ln.index, base, q_start, q_end, a_start, ambiguous=first_reply is None)
        item.speaker = m.group(2).strip()
        item.answered_by = list(dict.fromkeys(officials))
        item.speakers = list(dict.fromkeys([item.speaker, *(t.group(1).strip() for _, t in turns)]))
        items.append(item)
    if not answered or (not has_header and answered < 2):
        return []
    return items

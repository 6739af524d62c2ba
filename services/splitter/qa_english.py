"""English-numbered questions.

* Explicit pairs ``Q1 …`` / ``A1 …`` (or ``Q1.``/``A1.``): the answer marker is the first
  ``A<n>`` line with the *same number* after the question and before the next question, so
  unrelated ``A1``–``A9`` codes (schedule items) or a wrapped "A14 above" never pair.
* Questions without answer markers (File L: ``Q7.<TAB>question？`` then the answer text):
  the question ends at the first line ending in ？/?, the answer runs to the next item.

Question markers are kept only while their numbers increase (a stray "Q3" inside an
answer is ignored), except that a topic section may start again at ``Q1`` (a ``Q1`` line right
under a section heading: a paper whose part 2 numbers its questions afresh).  Without any
A-marker pair, at least two questions are required.
"""
from __future__ import annotations

import re

from services.splitter import markers as mk
from services.splitter.detect import Item, Line, is_section_heading, previous_text_line, question_end_by_mark
from services.splitter.qa_chinese import _lstrip_offset


def _opens_section(lines: list[Line], i: int) -> bool:
    """The line above line ``i`` is a section heading (so a question numbered ``1`` there starts
    a new numbering)."""
    prev = previous_text_line(lines, i)
    return prev is not None and is_section_heading(lines, prev)


def find_english_items(text: str, lines: list[Line]) -> list[Item]:
    """All Q-marker items in document order (``end``/``chunk_start`` not yet set)."""
    q_lines: list[tuple[Line, re.Match[str], int]] = []
    last = 0
    for ln in lines:
        m = mk.EN_Q.match(ln.s)
        if not m:
            continue
        num = int(m.group(1))
        if num <= last and not (num == 1 and _opens_section(lines, ln.index)):
            continue
        q_lines.append((ln, m, num))
        last = num
    items: list[Item] = []
    paired = 0
    for n, (ln, m, num) in enumerate(q_lines):
        nxt = q_lines[n + 1][0].index if n + 1 < len(q_lines) else len(lines)
        base = _lstrip_offset(text, ln)
        q_start = base + m.end()
        answer = None
        for k in range(ln.index + 1, nxt):
            am = mk.EN_A.match(lines[k].s)
            if am and int(am.group(1)) == num:
                answer = (lines[k], am)
                break
        qid = f"Q{num}"
        if answer is not None:
            aln, am = answer
            a_base = _lstrip_offset(text, aln)
            items.append(Item("english", qid, ln.index, base, q_start, a_base, a_base + am.end()))
            paired += 1
        else:
            q_end = question_end_by_mark(lines, ln.index, q_start, nxt)
            items.append(Item("english", qid, ln.index, base, q_start, q_end, q_end, ambiguous=True))
    if not paired and len(items) < 2:
        return []
    return items

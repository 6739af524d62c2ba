""""Others" items (File E ``O1<TAB>title？`` + answer, no 問/答 markers): the title line is
the question, the answer runs to the next item.  Numbers must run 1, 2, 3 … and at least
two items are required, so a stray "O2" in prose is not an item."""
from __future__ import annotations

import re

from services.splitter import markers as mk
from services.splitter.detect import Item, Line, question_end_by_mark
from services.splitter.qa_chinese import _lstrip_offset


def find_other_items(text: str, lines: list[Line]) -> list[Item]:
    """O-items in document order (``end``/``chunk_start`` not yet set)."""
    found: list[tuple[Line, re.Match[str], int]] = []
    for ln in lines:
        m = mk.OTHERS.match(ln.s)
        if m and int(m.group(1)) == len(found) + 1:
            found.append((ln, m, int(m.group(1))))
    if len(found) < 2:
        return []
    items = []
    for n, (ln, m, num) in enumerate(found):
        nxt = found[n + 1][0].index if n + 1 < len(found) else len(lines)
        base = _lstrip_offset(text, ln)
        q_start = base + m.end()
        q_end = question_end_by_mark(lines, ln.index, q_start, nxt)
        items.append(Item("others", f"O{num}", ln.index, base, q_start, q_end, q_end, ambiguous=True))
    return items

"""Chinese 問/答 pairs: ``問 A1：…`` … ``答 A1：…`` (ids A1, B12 or plain 1; colon ：, : or
︰; spaces optional), line-based:
a question is a line starting with the 問 marker; its answer marker is the first 答 line
with the same id before the next 問 marker.  A 問 marker without a matching 答 marker is
kept (question ends at the first line ending in ？) and flagged ambiguous."""
from __future__ import annotations

from services.splitter import markers as mk
from services.splitter.detect import Item, Line, question_end_by_mark


def _lstrip_offset(text: str, line: Line) -> int:
    raw = text[line.start:line.end]
    return line.start + (len(raw) - len(raw.lstrip()))


def find_chinese_items(text: str, lines: list[Line]) -> list[Item]:
    """All 問-marker items in document order (``end``/``chunk_start`` not yet set)."""
    q_lines = [(ln, m) for ln in lines if (m := mk.ZH_Q.match(ln.s))]
    items: list[Item] = []
    for n, (ln, m) in enumerate(q_lines):
        qid = mk.normalize_id(m.group(1))
        nxt = q_lines[n + 1][0].index if n + 1 < len(q_lines) else len(lines)
        base = _lstrip_offset(text, ln)
        q_start = base + m.end()
        answer = None
        for k in range(ln.index + 1, nxt):
            am = mk.ZH_A.match(lines[k].s)
            if am and mk.normalize_id(am.group(1)) == qid:
                answer = (lines[k], am)
                break
        if answer is None:
            # 答 on the question line itself ("問 1：…？ 答 1：…") is not supported; fall back
            q_end = question_end_by_mark(lines, ln.index, q_start, nxt)
            items.append(Item("chinese", qid, ln.index, base, q_start, q_end, q_end, ambiguous=True,
                              notes=["no 答 marker"]))
            continue
        aln, am = answer
        a_base = _lstrip_offset(text, aln)
        items.append(Item("chinese", qid, ln.index, base, q_start, a_base, a_base + am.end()))
    return items

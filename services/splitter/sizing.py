"""Split an over-long Q&A pair: recursively at blank lines, then at line breaks, keeping the
question and the start of the answer together.

The answer is cut into blocks at line boundaries (PDF text has no blank lines, so every
line is a paragraph candidate); consecutive markdown-table lines form one block that is
never cut.  Blocks are packed greedily so that ``question prefix + blocks`` stays within
the budget; a single non-table block that is still too long is cut with token windows.
"""
from __future__ import annotations

from services.splitter.tables import is_table_line
from services.splitter.tokens import count_tokens
from services.splitter.windows import token_windows


def _blocks(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int, bool]]:
    """Line blocks ``(start, end, is_table)`` covering ``spans`` of ``text``."""
    out: list[tuple[int, int, bool]] = []
    for s, e in spans:
        pos = s
        while pos < e:
            nl = text.find("\n", pos, e)
            stop = e if nl < 0 else nl + 1
            table = is_table_line(text[pos:stop])
            if out and table and out[-1][2] and out[-1][1] == pos:
                out[-1] = (out[-1][0], stop, True)
            else:
                out.append((pos, stop, table))
            pos = stop
    return out


def pack_parts(
    text: str, spans: list[tuple[int, int]], prefix: str, max_tokens: int
) -> list[list[tuple[int, int]]]:
    """Group the answer ``spans`` (offsets into ``text``) into parts whose text, with
    ``prefix`` (the question) prepended, fits ``max_tokens`` (cl100k) where possible.

    Returns a list of parts, each a list of ``(start, end)`` spans in order.  Tables are
    never split, so a part holding one huge table may exceed the budget.
    """
    budget = max(1, max_tokens - count_tokens(prefix) - 2)
    parts: list[list[tuple[int, int]]] = []
    cur: list[tuple[int, int]] = []
    cur_text = ""
    for s, e, table in _blocks(spans, text):
        piece = text[s:e]
        if count_tokens(cur_text + piece) <= budget:
            cur.append((s, e))
            cur_text += piece
            continue
        if cur:
            parts.append(cur)
            cur, cur_text = [], ""
        if table or count_tokens(piece) <= budget:
            cur, cur_text = [(s, e)], piece
            continue
        for w in token_windows(piece, budget, 0):
            parts.append([(s + w.start, s + w.end)])
    if cur:
        parts.append(cur)
    return parts

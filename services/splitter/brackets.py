"""Nested follow-ups (``[如被追問…]``, ``[如追問…]``, ``[If pressed: …]``) and internal-reference
brackets (``[內部參考…]``, ``[內部補充資料…]``, ``[For internal reference: …]``) inside an answer:
they belong to the answer they sit in."""
from __future__ import annotations

from services.splitter import markers as mk


def count_followups(text: str) -> int:
    """Number of follow-up brackets in ``text``."""
    return len(mk.FOLLOWUP.findall(text))


def internal_ref_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """``[start, end)`` offsets of internal-reference brackets in ``text[start:end]``, each
    from its ``[`` to the matching ``]`` (nesting-aware; an unclosed bracket runs to
    ``end``), extended over the line break that follows it."""
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    for m in mk.INTERNAL_REF.finditer(text, start, end):
        if spans and m.start() < spans[-1][1]:
            continue
        depth, j = 0, m.start()
        while j < end:
            c = text[j]
            if c in "[［":
                depth += 1
            elif c in "]］":
                depth -= 1
                if depth == 0:
                    j += 1
                    break
            j += 1
        if j < end and text[j] == "\n":
            j += 1
        spans.append((m.start(), j))
    return spans

"""Validate a vision LLM's answer before it replaces anything.

An answer is accepted only if

1. it contains at least one GFM table (:func:`parse_markdown_tables`), and
2. on a born-digital page (text layer present), every number in its tables occurs in the
   page's text layer — a number the model invented or misread rejects the whole answer.

Numbers are compared without whitespace and thousands separators: ``11 726`` (HK style),
``11,726`` and ``11726`` are the same number; ``2.5000`` must appear as ``2.5000``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from services.tables.markdown import parse_markdown_tables
from services.tables.models import MarkdownTable

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


@dataclass
class Validation:
    """Result of :func:`validate_answer`: ``tables`` when accepted, else ``reason``
    (``"no_table"`` or ``"invented_number"``) and the offending numbers in ``details``."""

    tables: list[MarkdownTable] = field(default_factory=list)
    reason: str | None = None
    details: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the answer may be used."""
        return self.reason is None


def _squeeze(text: str) -> str:
    return "".join(text.split()).replace(",", "").replace("，", "")


def numbers_in(tables: list[MarkdownTable]) -> list[str]:
    """Every number (digit run, with inner ``.``/``,``) in the header and cells of ``tables``,
    thousands separators removed, in order."""
    out: list[str] = []
    for t in tables:
        for cell in [*t.header, *(c for row in t.rows for c in row)]:
            out.extend(m.replace(",", "") for m in _NUMBER.findall(_squeeze_spaces_in_numbers(cell)))
    return out


def _squeeze_spaces_in_numbers(text: str) -> str:
    """``11 726`` → ``11726`` (a space between digit groups is a thousands separator)."""
    return re.sub(r"(?<=\d) (?=\d{3}\b)", "", text)


def validate_answer(answer: str, page_text: str, scanned: bool) -> Validation:
    """Check a vision answer for one page.

    Args:
        answer: the model's markdown.
        page_text: the page's text layer (from the parser).
        scanned: the page has no usable text layer; then only the table check applies.

    Returns:
        A :class:`Validation`; never raises.
    """
    tables = parse_markdown_tables(answer or "")
    if not tables:
        return Validation(reason="no_table")
    if not scanned:
        hay = _squeeze(page_text)
        missing = [n for n in numbers_in(tables) if n not in hay]
        if missing:
            return Validation(reason="invented_number", details=sorted(set(missing))[:20])
    return Validation(tables=tables)

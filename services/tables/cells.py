"""Cell-text cleanup: join the visual lines of one table cell into one line.

Rule (same as the corpus ground truth): a line break between two wide characters
(CJK ideographs, kana, hangul, full-width punctuation; Unicode East Asian Width
``W``/``F``) or next to full-width punctuation (``）`` ``／``) is removed; any other
line break becomes one space (English words, numbers next to Chinese as in
``粉嶺北第 12 區``).
"""
from __future__ import annotations

import unicodedata


def is_wide(ch: str) -> bool:
    """True for a CJK / full-width character (East Asian Width ``W`` or ``F``)."""
    return unicodedata.east_asian_width(ch) in ("W", "F")


def is_wide_punct(ch: str) -> bool:
    """True for full-width punctuation or symbols such as ``（`` ``）`` ``／`` ``，``."""
    return is_wide(ch) and unicodedata.category(ch)[0] in ("P", "S")


def _glue(left: str, right: str) -> bool:
    return (is_wide(left) and is_wide(right)) or is_wide_punct(left) or is_wide_punct(right)


def join_cell_lines(text: str | None) -> str:
    """Join the lines of a pdfplumber cell text (``\\n``-separated) into one line.

    ``None`` (a merged-away cell) becomes ``""``.  Leading/trailing spaces of each
    line are stripped; empty lines are dropped.
    """
    if not text:
        return ""
    out = ""
    for line in (part.strip() for part in text.split("\n")):
        if not line:
            continue
        if out and not _glue(out[-1], line[0]):
            out += " "
        out += line
    return out

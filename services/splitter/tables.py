"""Does a piece of text contain a table?

* Markdown tables (lines starting with ``|``, as the DOCX parser / table stage emit) are
  certain.
* PDF text has no table markup; short lines without clause punctuation that hold a
  number or several space-separated cells are treated as table rows when they cluster.  This is a
  heuristic, used only when the table stage did not run: once it has
  (``ParsedDocument.tables_extracted``), its markdown tables are in the text and
  ``heuristic=False`` trusts them alone.
"""
from __future__ import annotations

import re

_NUM = re.compile(r"\d")
_PROSE = re.compile(r"[，。；：;]|[.,]\s")


def is_table_line(line: str) -> bool:
    """A markdown table row."""
    return line.lstrip().startswith("|")


def _row_like(line: str) -> bool:
    if not line or len(line) > 45 or _PROSE.search(line):
        return False
    return bool(_NUM.search(line)) or line.count(" ") >= 2


def contains_table(text: str, heuristic: bool = True) -> bool:
    """True when ``text`` holds a markdown table or (``heuristic=True``) looks like PDF table
    rows (at least three row-like lines — short, no clause punctuation, a number or several
    space-separated cells — within four consecutive lines)."""
    lines = [ln.strip() for ln in text.split("\n")]
    if sum(1 for ln in lines if is_table_line(ln)) >= 2:
        return True
    if not heuristic:
        return False
    flags = [_row_like(ln) for ln in lines]
    return any(sum(flags[i:i + 4]) >= 3 for i in range(len(flags)))

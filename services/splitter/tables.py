"""Does a piece of text contain a table?

* Markdown tables (lines starting with ``|``, as the DOCX parser / table stage emit) are
  certain.
* PDF text has no table markup; a run of at least three short lines that each hold a
  number and no clause punctuation (``，。；``) is treated as table rows.  This is a
  heuristic; the table stage (``PageText.tables``) will replace it.
"""
from __future__ import annotations

import re

_NUM = re.compile(r"\d")
_PROSE = re.compile(r"[，。；,;]|\.\s")


def is_table_line(line: str) -> bool:
    """A markdown table row."""
    return line.lstrip().startswith("|")


def contains_table(text: str) -> bool:
    """True when ``text`` holds a markdown table or looks like PDF table rows."""
    lines = [ln.strip() for ln in text.split("\n")]
    if sum(1 for ln in lines if is_table_line(ln)) >= 2:
        return True
    run = 0
    for ln in lines:
        if ln and len(ln) <= 40 and _NUM.search(ln) and not _PROSE.search(ln):
            run += 1
            if run >= 3:
                return True
        else:
            run = 0
    return False

"""Render and parse GitHub-flavoured markdown (GFM) tables.

Follows the GFM spec, section "Tables (extension)": a header row, a delimiter row
(``---``, optionally ``:`` for alignment) with the same number of cells, then body
rows until a blank line or a line without a pipe.  ``\\|`` escapes a pipe inside a
cell; body rows with too few cells are padded with ``""``, extra cells are dropped.
"""
from __future__ import annotations

import re

from services.tables.models import MarkdownTable

_DELIM_CELL = re.compile(r"^\s*:?-+:?\s*$")
_WS = re.compile(r"\s+")


def escape_cell(text: str | None) -> str:
    """Make ``text`` safe for one GFM cell: whitespace runs (incl. newlines) become one
    space, ``|`` becomes ``\\|``.  ``None`` becomes ``""``."""
    if text is None:
        return ""
    text = _WS.sub(" ", text).strip()
    return text.replace("\\|", "|").replace("|", "\\|")


def render_markdown(header: list[str], rows: list[list[str]]) -> str:
    """Render a GFM table.

    ``header``: one label per column (may be empty strings); ``rows``: data rows,
    each padded/truncated to ``len(header)``.  Returns the table text without a
    trailing newline.  Raises ``ValueError`` if ``header`` is empty.
    """
    if not header:
        raise ValueError("a markdown table needs at least one column")
    n = len(header)

    def line(cells: list[str]) -> str:
        cells = (list(cells) + [""] * n)[:n]
        return "| " + " | ".join(escape_cell(c) for c in cells) + " |"

    out = [line(header), "| " + " | ".join("---" for _ in range(n)) + " |"]
    out.extend(line(r) for r in rows)
    return "\n".join(out)


def split_row(line: str) -> list[str]:
    """Split one GFM table line into cell texts (unescaping ``\\|``, trimming spaces).

    A leading and a trailing unescaped pipe are optional, as in GFM."""
    s = line.strip()
    cells: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s) and s[i + 1] == "|":
            cur.append("|")
            i += 2
            continue
        if ch == "|":
            cells.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    cells.append("".join(cur))
    if s.startswith("|"):
        cells = cells[1:]
    if s.endswith("|") and not s.endswith("\\|") and cells:
        cells = cells[:-1]
    return [c.strip() for c in cells]


def _has_pipe(line: str) -> bool:
    return "|" in line.replace("\\|", "")


def _is_delimiter(line: str, n: int) -> bool:
    if not _has_pipe(line) and n > 1:
        return False
    cells = split_row(line)
    return len(cells) == n and all(_DELIM_CELL.match(c) for c in cells)


def parse_markdown_tables(text: str) -> list[MarkdownTable]:
    """Find every GFM table in ``text`` (e.g. an LLM answer), in order.

    Returns a list of :class:`MarkdownTable`; text that is not a table is ignored.
    Never raises on malformed input: a header line without a matching delimiter
    row is simply not a table.
    """
    lines = text.splitlines()
    tables: list[MarkdownTable] = []
    i = 0
    while i < len(lines) - 1:
        line = lines[i]
        if not _has_pipe(line):
            i += 1
            continue
        header = split_row(line)
        if not _is_delimiter(lines[i + 1], len(header)):
            i += 1
            continue
        n = len(header)
        rows: list[list[str]] = []
        j = i + 2
        while j < len(lines) and lines[j].strip() and _has_pipe(lines[j]):
            cells = split_row(lines[j])
            rows.append((cells + [""] * n)[:n])
            j += 1
        tables.append(MarkdownTable(header=header, rows=rows))
        i = j
    return tables

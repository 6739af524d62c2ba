"""Reflowing a chunk's text as extracted from a PDF into paragraphs (pure; no I/O).

A PDF's text layer breaks every printed line: ``新發展區涉及收回約 260 公頃私人土地及清理約 110 公頃政府土``
/ ``地。``. :func:`reflow` joins the lines of one paragraph and keeps the breaks that carry
structure, returning markdown with paragraphs separated by one blank line:

* a line is joined to the one before it when that one was *wrapped*: at least
  ``WRAPPED_RATIO`` of the text's line width (display columns: a CJK character counts 2),
  and neither line is structure (below). A short line ends its paragraph (a heading, the last
  line of a paragraph, a list item's end).
* joins: no space between two CJK characters or next to full-width punctuation, one space
  between Latin words and between a CJK character and a Latin word or figure (this corpus prints
  ``約 1,520 戶``); a soft hyphen at a line end is dropped, a hard hyphen kept without a space
  (Word does not hyphenate by default, so a line-final ``-`` is a compound's: ``ex-`` / ``gratia``).
* structure that always starts its own paragraph: list items (``⚫ ➢ • -``, the Word bullets
  U+F0B7…, ``1.``, ``(a)``, ``i.``, ``一、``, ``（一）``), topic headers (``(A) 排水系統``), Q&A
  markers (``問 A1：``, ``答 A1：``, ``Q3.``, ``A3.``) and bracketed notes (``[內部參考：…]``,
  ``[如被追問：…]``); a line ending in ``]`` ends its paragraph, and so does a question's line
  ending in ``？``/``?`` (``Q3. …？`` is followed by its answer without a marker).
* markdown table rows (``| … |``) are kept as they are, as one block with a blank line before and
  after, so a table is closed where it ends (a markdown table otherwise takes the prose line
  after it as one more row).
"""
from __future__ import annotations

import re
import unicodedata

from shared.textnorm import collapse_cjk_spaces

WRAPPED_RATIO = 0.75
"""A line at least this share of the text's line width was wrapped by the PDF (Chinese lines at
full width differ by 1–2 characters of ~30; ragged English lines by up to ~20 %)."""

SOFT_HYPHENS = "\u00ad\ufffe"  # U+FFFE: how a soft hyphen comes out of some of the corpus's PDFs

_QUESTION_MARKER = re.compile(r"^(?:問\s*[A-Z]?\d*\s*[：:︰]|Q\d{1,3}\s*[.．:：︰])")

_BLOCK_START = re.compile(
    r"""^(?:
        [⚫➢•●○■□◆◇▪►✓\u2022\u25cf\uf0b7\uf0be\uf06c\uf0fc\uf0a7\uf076\uf0d8]   # bullets (Word's private-use ones too)
      | [-–*]\s                                                          # dash bullets
      | \d{1,2}[.．、)](?!\d)                                            # 1.  2、  3)
      | \((?:[a-z]|[ivx]{1,4})\)  | (?:[a-z]|[ivx]{1,4})\.\s              # (a) (iv) a. iv.
      | [一二三四五六七八九十]{1,3}、 | [（(][一二三四五六七八九十]{1,3}[)）]   # 一、 （一）
      | \([A-Z]\)\s                                                      # (A) 排水系統
      | [問答]\s*[A-Z]?\d*\s*[：:︰]                                       # 問 A1： 答 1：
      | [QA]\d{1,3}\s*[.．:：︰]                                          # Q3. A3.
      | \[                                                               # [內部參考：…] [如被追問：…]
    )""", re.VERBOSE)


def is_table_row(line: str) -> bool:
    """A markdown table row, as the table stage writes them (``| a | b |``)."""
    s = line.strip()
    return len(s) >= 2 and s.startswith("|") and s.endswith("|")


def display_width(line: str) -> int:
    """Columns ``line`` takes in print: East Asian wide/full-width characters 2, others 1."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in line)


def is_wide(ch: str) -> bool:
    """A CJK character or full-width form (or a private-use code point: HK characters in PDFs)."""
    return unicodedata.east_asian_width(ch) in ("W", "F") or 0xE000 <= ord(ch) <= 0xF8FF


def _is_punct(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "PS"


def join_lines(a: str, b: str) -> str:
    """``a`` and the next line ``b`` of one paragraph, joined as printed (see the module doc)."""
    if not a or not b:
        return a + b
    if a[-1] in SOFT_HYPHENS:
        return a[:-1] + b
    last, first = a[-1], b[0]
    if last == "-" and len(a) > 1 and a[-2].isalpha() and first.isalpha():
        return a + b
    if is_wide(last) and is_wide(first):
        return a + b
    if (is_wide(last) and _is_punct(last)) or (is_wide(first) and _is_punct(first)):
        return a + b
    return a + " " + b


def line_width(lines: list[str]) -> int:
    """The text's printed line width in columns: the longest prose line, or with five lines or
    more the 85th percentile (one long heading or leader line does not set the width)."""
    widths = sorted(display_width(s) for s in lines)
    if not widths:
        return 0
    if len(widths) < 5:
        return widths[-1]
    return widths[int(0.85 * (len(widths) - 1))]


def starts_block(line: str) -> bool:
    """``line`` (stripped) begins a paragraph of its own: list item, marker, note, table row."""
    return is_table_row(line) or _BLOCK_START.match(line) is not None


def reflow(text: str) -> str:
    """``text`` (a chunk as stored: PDF lines, markdown tables) as markdown paragraphs joined by
    ``"\\n\\n"``; a table's rows stay one per line. Blank lines of the input are paragraph breaks.
    Characters are kept as printed: only line breaks and spaces change (spaces between two CJK
    characters, which pdfium inserts — ``試 場 的 人 手`` — are removed as well)."""
    lines = [ln.strip() for ln in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    lines = [ln if is_table_row(ln) else collapse_cjk_spaces(ln) for ln in lines]
    width = line_width([ln for ln in lines if ln and not is_table_row(ln)])
    blocks: list[str] = []
    para: str | None = None
    prev = ""
    table: list[str] = []

    def close() -> None:
        nonlocal para
        if para:
            blocks.append(para)
        para = None

    for ln in lines:
        if not ln:
            close()
            if table:
                blocks.append("\n".join(table))
                table = []
            prev = ""
            continue
        if is_table_row(ln):
            close()
            table.append(ln)
            continue
        if table:
            blocks.append("\n".join(table))
            table = []
        wrapped = display_width(prev) >= WRAPPED_RATIO * width and not prev.endswith("]")
        if para is not None and prev.endswith(("？", "?")) and _QUESTION_MARKER.match(para):
            wrapped = False  # a question (``Q3. …？``) ends where its answer begins
        if para is not None and wrapped and not starts_block(ln):
            para = join_lines(para, ln)
        else:
            close()
            para = ln
        prev = ln
    close()
    if table:
        blocks.append("\n".join(table))
    return "\n\n".join(blocks)

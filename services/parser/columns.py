"""Two-column pages read column by column, from the page's text-position layer.

A bilingual paper set as an English column beside a Chinese one (a Word table without rules, or
two text columns drawn row by row) shares baselines across the gutter, so both pypdf and PDFium
read it line by line across: ``"Kwu Tung North New 古洞北新發展區的"``. The position layer
(``boxes.page_boxes``: PDFium's character boxes in runs) says where every character is printed;
this module finds a vertical gutter that no character crosses on the page's rows, and, when the
page really is two columns of running text, returns the left column's lines, then the right's.

Guards, so a single-column page or a table is left alone (tables are found by the table stage and
must keep their rows): exactly one gutter at least ``GUTTER_MIN_PT`` wide; each column at least
``MIN_COLUMN_LINES`` lines holding ``MIN_COLUMN_SHARE`` of the page's characters; running text in
each column (half its lines at least ``FULL_LINE_SHARE`` of the column's width and of 4 words or
8 CJK characters, which table cells are not); lines crossing the gutter (a title over both
columns) only above or below the columns.
"""
from __future__ import annotations

from dataclasses import dataclass

from shared.models import BoxLine, PageBoxes

#: Narrowest gutter (points) between columns: wider than any word space of justified text.
GUTTER_MIN_PT = 9.0
#: Fewest lines of a column, and the least share of the page's visible characters it holds.
MIN_COLUMN_LINES = 5
MIN_COLUMN_SHARE = 0.1
#: A column is running text when at least half its lines are this share of its width or wider.
FULL_LINE_SHARE = 0.6


@dataclass(frozen=True)
class _Part:
    """The inked characters of one run on one side: text, left/right x and vertical middle (pt)."""

    text: str
    x0: float
    x1: float
    y_mid: float
    height: float


def _inked(line: BoxLine) -> list[tuple[str, float, float]]:
    """``(char, left, right)`` of each character of ``line`` (points), spaces included."""
    return [(ch, line.x[i], line.x[i + 1]) for i, ch in enumerate(line.t)]


def _part(chars: list[tuple[str, float, float]], line: BoxLine) -> _Part | None:
    text = "".join(c for c, _, _ in chars).strip()
    if not text:
        return None
    inked = [(a, b) for c, a, b in chars if c.strip()]
    y0, y1 = line.b[1], line.b[3]
    return _Part(text, min(a for a, _ in inked), max(b for _, b in inked), (y0 + y1) / 2, y1 - y0)


def _gutters(lines: list[BoxLine], width: float, allowed: int) -> list[tuple[float, float]]:
    """The x intervals (points) at least ``GUTTER_MIN_PT`` wide, between the leftmost and the
    rightmost character, that at most ``allowed`` lines put a character in (a line of the left
    column may reach into the gutter: a character is on the side of its centre)."""
    size = int(width) + 2
    cover = [0] * size
    left, right = size, 0
    for line in lines:
        marked = [False] * size
        for ch, a, b in _inked(line):
            if ch.strip():
                lo, hi = max(0, int(a)), min(size - 1, int(b))
                left, right = min(left, lo), max(right, hi)
                for x in range(lo, hi + 1):
                    marked[x] = True
        for x in range(size):
            cover[x] += marked[x]
    gutters: list[tuple[float, float]] = []
    start: int | None = None
    for x in range(left, right + 1):
        free = cover[x] <= allowed
        if free and start is None:
            start = x
        elif not free and start is not None:
            if x - start >= GUTTER_MIN_PT:
                gutters.append((float(start), float(x)))
            start = None
    return gutters


def _is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or ch >= "\U00020000"


def _running_text(parts: list[_Part]) -> bool:
    """At least ``MIN_COLUMN_LINES`` lines, half of them full lines: ``FULL_LINE_SHARE`` of the
    column's width and words, not a cell (4 words, or 8 CJK characters)."""
    col_x0, col_x1 = min(p.x0 for p in parts), max(p.x1 for p in parts)
    full = sum(1 for p in parts if p.x1 - p.x0 >= FULL_LINE_SHARE * (col_x1 - col_x0)
               and (len(p.text.split()) >= 4 or sum(map(_is_cjk, p.text)) >= 8))
    return len(parts) >= MIN_COLUMN_LINES and 2 * full >= len(parts)


def _rows(parts: list[_Part]) -> list[str]:
    """``parts`` as printed lines, top to bottom: parts whose middles are within half a line
    height share a line, joined left to right by a space."""
    rows: list[list[_Part]] = []
    for p in sorted(parts, key=lambda p: (p.y_mid, p.x0)):
        if rows and abs(p.y_mid - rows[-1][0].y_mid) <= max(p.height, rows[-1][0].height) / 2:
            rows[-1].append(p)
        else:
            rows.append([p])
    return [" ".join(p.text for p in sorted(row, key=lambda p: p.x0)) for row in rows]


def column_text(boxes: PageBoxes) -> str | None:
    """The text of a two-column page column by column, or ``None`` when the page is not one.

    Args:
        boxes: the page's position layer (points, origin top-left, y down).

    Returns:
        Lines crossing the gutter above the columns, the left column's lines, the right
        column's lines, then lines crossing it below; a line per printed line, a blank line
        between the blocks. ``None`` for a page without exactly one gutter, with a column of
        too few lines or characters or of short cells (a table), or with a line crossing the
        gutter between column lines.
    """
    lines = [line for line in boxes.lines if line.t.strip()]
    if len(lines) < MIN_COLUMN_LINES:
        return None
    allowed = 1 + len(lines) // 10  # a title or two over both columns
    gutters = _gutters(lines, boxes.width, allowed)
    if len(gutters) != 1:
        return None
    g0, g1 = gutters[0]
    left: list[_Part] = []
    right: list[_Part] = []
    spanning: list[_Part] = []
    mid = (g0 + g1) / 2
    for line in lines:
        chars = _inked(line)
        left_chars = [c for c in chars if (c[1] + c[2]) / 2 < mid]
        right_chars = [c for c in chars if (c[1] + c[2]) / 2 >= mid]
        left_ink = [b for c, _, b in left_chars if c.strip()]
        right_ink = [a for c, a, _ in right_chars if c.strip()]
        if left_ink and right_ink and min(right_ink) - max(left_ink) < GUTTER_MIN_PT:
            # one text running across the gutter (a title), not two columns' lines on one baseline
            if (whole := _part(chars, line)) is not None:
                spanning.append(whole)
            continue
        for side, kept in ((left, left_chars), (right, right_chars)):
            if (p := _part(kept, line)) is not None:
                side.append(p)
    if not left or not right or not (_running_text(left) and _running_text(right)):
        return None
    total = sum(len(p.text) for p in left + right + spanning)
    if min(sum(len(p.text) for p in side) for side in (left, right)) < MIN_COLUMN_SHARE * total:
        return None
    top = min(p.y_mid for p in left + right)
    bottom = max(p.y_mid for p in left + right)
    if any(top <= p.y_mid <= bottom for p in spanning):
        return None
    blocks = [_rows([p for p in spanning if p.y_mid < top]), _rows(left), _rows(right),
              _rows([p for p in spanning if p.y_mid > bottom])]
    return "\n\n".join("\n".join(rows) for rows in blocks if rows)

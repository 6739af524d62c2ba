"""Overprinted text collapsed: a heading a print driver made bold by drawing it 2-3 times.

Word and some print drivers fake a bold face by showing the same glyphs two or three times,
each copy offset by a fraction of a point. PDFium reads such a line once (its text page drops a
text object that repeats one already placed there); pypdf reads every copy, so the heading comes
out as ``"Progress of Land ResumptionProgress of Land ResumptionProgress of Land Resumption"``.

pypdf's ``extract_text(visitor_text=...)`` hands over its output one fragment at a time with the
matrices in force when it was shown, and the fragments concatenate to exactly the text it
returns. ``OverprintFilter`` rebuilds that text and leaves out a fragment whose text was already
shown by the show just before it, a little off its place: within ``OVERPRINT_TOLERANCE_PT``
but not at exactly the same point. It decides on positions, not on the text alone, so a line
that genuinely repeats (``"N/A"`` in two table rows, a reduplicated Chinese word) is kept.

Why "just before" and "not exactly the same point": pypdf does not advance its text matrix
inside some shows (CID fonts, TJ arrays: ``hk_policy_address_2019_zh.pdf`` reports every
fragment of a line at the line's start), so two fragments at one identical origin may be
neighbouring characters, not copies. A fake-bold copy is offset (0.2-0.6 pt) and follows its
original. Copies drawn at exactly the same point are kept (PDFium drops those, pypdf cannot tell).
"""
from __future__ import annotations

from collections.abc import Sequence

#: Two shows of the same text whose start points are this close (PDF points, both axes) print as
#: one: a tenth of a 10-pt em. Fake-bold offsets are 0.2-0.6 pt; distinct text is never set so.
OVERPRINT_TOLERANCE_PT = 1.0
#: Origins closer than this (points) are "the same point" (see the module docstring).
SAME_ORIGIN_PT = 0.01


def _origin(cm: Sequence[float], tm: Sequence[float]) -> tuple[float, float]:
    """The start point of a text show in user space (points): the text matrix's translation
    mapped through the current transformation matrix (PDF matrices ``[a b c d e f]``)."""
    x, y = float(tm[4]), float(tm[5])
    return (float(cm[0]) * x + float(cm[2]) * y + float(cm[4]),
            float(cm[1]) * x + float(cm[3]) * y + float(cm[5]))


class OverprintFilter:
    """A ``visitor_text`` for pypdf's ``PageObject.extract_text``; ``text()`` is the page's
    text without overprinted copies and ``dropped`` counts the fragments left out.

    Usage::

        f = OverprintFilter()
        page.extract_text(visitor_text=f)
        text = f.text()
    """

    def __init__(self, tolerance_pt: float = OVERPRINT_TOLERANCE_PT) -> None:
        self.tolerance_pt = tolerance_pt
        self.dropped = 0
        self._parts: list[str] = []
        self._last: tuple[str, float, float] | None = None  # the last non-blank show

    def __call__(self, text: str, cm: Sequence[float], tm: Sequence[float],
                 font_dict: object, font_size: float) -> None:
        key = text.strip()
        if not key:
            self._parts.append(text)
            return
        x, y = _origin(cm, tm)
        last, self._last = self._last, (key, x, y)  # a chain of small offsets stays one text
        if last is not None and last[0] == key:
            offset = max(abs(x - last[1]), abs(y - last[2]))
            if SAME_ORIGIN_PT < offset <= self.tolerance_pt:
                self.dropped += 1
                self._parts.append("\n" * text.count("\n"))  # keep the line structure around it
                return
        self._parts.append(text)

    def text(self) -> str:
        """The page's text as pypdf would return it, overprinted copies left out."""
        return "".join(self._parts)

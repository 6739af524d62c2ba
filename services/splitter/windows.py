"""Sliding token windows over one text, cut on character boundaries.

Used for DOCX/TXT in the token strategy and for narrative sections in the question
strategy.  Algorithm (classic LangChain-style token window, made character-safe):

1. From the current start, find the longest span whose *own* token count is at most
   ``size`` (binary search over character offsets; the count is measured on the span
   itself, so every chunk is within budget by construction).
2. If a sentence/paragraph break (``。！？`` or newline) lies in the last 20 % of the span,
   end the chunk right after the last one.
3. The next chunk starts where the trailing ``overlap`` tokens of the previous chunk start
   (again a character offset), so overlaps never split a character and never contain
   U+FFFD.

Every window is a plain slice ``text[start:end]``; consecutive windows overlap by
``prev.end - next.start`` characters, so concatenating them with overlaps removed
reproduces the text exactly.
"""
from __future__ import annotations

from dataclasses import dataclass

from services.splitter.tokens import count_tokens

BREAK_CHARS = "。！？!?\n"
_BREAK_ZONE = 0.2


@dataclass(frozen=True)
class Window:
    """A slice ``[start, end)`` (character offsets) of the source text."""

    start: int
    end: int
    overlap_chars: int  # characters shared with the previous window (0 for the first)


def _fit_end(text: str, start: int, size: int) -> int:
    """Largest end (> start) such that ``text[start:end]`` has at most ``size`` tokens.
    Always advances by at least one character."""
    n = len(text)
    # Find an upper bound quickly: a token rarely covers more than ~8 chars.
    hi = min(n, start + max(size * 8, 16))
    while hi < n and count_tokens(text[start:hi]) <= size:
        hi = min(n, start + (hi - start) * 2)
    if count_tokens(text[start:hi]) <= size:
        return hi
    lo = start + 1  # one character may exceed a tiny budget; accept it to make progress
    if count_tokens(text[start:lo]) > size:
        return lo
    # invariant: text[start:lo] fits, text[start:hi] does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if count_tokens(text[start:mid]) <= size:
            lo = mid
        else:
            hi = mid
    return lo


def _prefer_break(text: str, start: int, end: int, floor: int) -> int:
    """Move ``end`` back to just after the last break character in the final 20 % of the
    window, if any; the result stays above ``floor`` (the previous window's end)."""
    zone_start = end - max(1, int((end - start) * _BREAK_ZONE))
    for i in range(end - 1, max(zone_start, start) - 1, -1):
        if text[i] in BREAK_CHARS:
            return i + 1 if i + 1 > floor else end
    return end


def _overlap_start(text: str, start: int, end: int, overlap: int) -> int:
    """Smallest offset ``s`` in ``(start, end]`` with ``text[s:end]`` at most ``overlap``
    tokens."""
    if overlap <= 0:
        return end
    lo, hi = start + 1, end  # text[hi:end] == "" always fits
    if count_tokens(text[lo:end]) <= overlap:
        return lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if count_tokens(text[mid:end]) <= overlap:
            hi = mid
        else:
            lo = mid
    return hi


def token_windows(text: str, size: int, overlap: int) -> list[Window]:
    """Split ``text`` into windows of at most ``size`` tokens, consecutive windows sharing
    (up to) ``overlap`` tokens.

    Args:
        text: any string (may be empty → ``[]``).
        size: token budget per window (cl100k_base), must be > 0.
        overlap: tokens repeated from the previous window, ``0 <= overlap < size``.

    Raises:
        ValueError: on a non-positive size or an overlap not smaller than size.
    """
    if size <= 0:
        raise ValueError(f"size must be > 0, got {size}")
    if overlap < 0 or overlap >= size:
        raise ValueError(f"overlap must be in [0, size), got {overlap} for size {size}")
    windows: list[Window] = []
    n = len(text)
    start, prev_end = 0, 0
    while start < n:
        end = _fit_end(text, start, size)
        # a multi-token character after the overlap may not fit: shrink the overlap
        while end <= prev_end and start < prev_end:
            start += 1
            end = _fit_end(text, start, size)
        if end < n:
            end = _prefer_break(text, start, end, prev_end)
        windows.append(Window(start, end, max(0, prev_end - start)))
        if end >= n:
            break
        prev_end = end
        start = _overlap_start(text, start, end, overlap)
    return windows

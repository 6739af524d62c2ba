"""Narrative parts of a Q&A document (發言要點, numbered policy sections 一、二、…, table of
contents, text before the first question) become ``chunk_kind="section"`` chunks, so no
body text is dropped: parts without Q&A are chunked by their section headings (章節), and a
document without any falls back to token chunks.

A section starts at a heading line; a section longer than the token budget is cut into
token windows without overlap (the spans tile the section exactly).
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from services.splitter.detect import split_lines
from services.splitter.windows import token_windows

SECTION_HEADING = re.compile(
    r"^(?:[一二三四五六七八九十]+、.{1,40}|發言要點|目錄|備用問答|備用問題|附件.{0,20}"
    r"|Part\s+[IVX]+\b.{0,60}|[(（](?:[A-Z]|[IVX]{1,5})[)）]\s*\S.{0,60})$"
)


@dataclass
class Section:
    """A narrative slice ``[start, end)`` of the body and its heading (or ``None``)."""

    start: int
    end: int
    title: str | None


def find_sections(text: str, start: int, end: int, size_tokens: int) -> list[Section]:
    """Cut ``text[start:end]`` at heading lines, then into windows of at most
    ``size_tokens`` tokens; whitespace-only pieces are dropped.  The returned sections
    cover every non-whitespace character of the range."""
    if start >= end:
        return []
    cuts = [start]
    title_at: dict[int, str] = {}
    for ln in split_lines(text[start:end]):
        s = ln.s
        if s and SECTION_HEADING.match(s) and start + ln.start > start:
            cuts.append(start + ln.start)
            title_at[start + ln.start] = s
        elif s and SECTION_HEADING.match(s):
            title_at[start] = s
    cuts.append(end)
    out: list[Section] = []
    for a, b in itertools.pairwise(cuts):
        if not text[a:b].strip():
            continue
        title = title_at.get(a)
        for w in token_windows(text[a:b], size_tokens, 0):
            piece = text[a + w.start:a + w.end]
            if piece.strip():
                out.append(Section(a + w.start, a + w.end, title))
    return out

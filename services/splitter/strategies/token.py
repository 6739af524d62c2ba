"""Token strategy ("Chunked by token").

* PDF: one chunk per page (page-aware chunking, so every chunk maps to one source page):
  ``last N tokens of the previous page + page text + first N tokens of the next page``,
  N = ``settings.page_overlap_tokens`` (200); a page is never split.  Pages without text
  (blank pages) produce no chunk, and the overlap is taken from the nearest page that
  has text.  Overlaps are cut on character boundaries (no U+FFFD).
* DOCX/TXT: sliding windows of ``settings.chunk_size_tokens`` with
  ``settings.chunk_overlap_tokens`` overlap (see :mod:`services.splitter.windows`).
"""
from __future__ import annotations

import re

from services.splitter.strategies.base import StrategyResult
from services.splitter.tables import contains_table
from services.splitter.tokens import count_tokens, head_text, tail_text
from services.splitter.windows import token_windows
from shared.models import Chunk, ParsedDocument
from shared.settings import Settings

# page-number-only pages ("3", "- 3 -", "E-3") carry no content
_TRIVIAL_PAGE = re.compile(r"[\s\-–—_.·•()（）\[\]0-9A-Za-z]{0,6}")

OVERLAP_JOIN = "\n"


def has_content(text: str) -> bool:
    """True when ``text`` is more than whitespace or a bare page number."""
    stripped = text.strip()
    return bool(stripped) and not _TRIVIAL_PAGE.fullmatch(stripped)


class TokenStrategy:
    """Page chunks for PDFs, token windows for DOCX/TXT."""

    name = "token"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def chunk(self, doc: ParsedDocument) -> StrategyResult:
        """Chunk ``doc``; never raises for empty documents (returns no chunks + a note)."""
        chunks = self._pdf_chunks(doc) if doc.file_type == "pdf" else self._window_chunks(doc.full_text())
        notes = [] if chunks else ["document has no text: no chunks"]
        return StrategyResult(chunks=chunks, strategy_used="token", notes=notes)

    def _pdf_chunks(self, doc: ParsedDocument) -> list[Chunk]:
        n = self.settings.page_overlap_tokens
        pages = [p for p in doc.pages if has_content(p.text)]
        chunks: list[Chunk] = []
        for i, page in enumerate(pages):
            before, n_before = tail_text(pages[i - 1].text, n) if i > 0 else ("", 0)
            after, n_after = head_text(pages[i + 1].text, n) if i + 1 < len(pages) else ("", 0)
            parts = [t for t in (before, page.text, after) if t]
            text = OVERLAP_JOIN.join(parts)
            chunks.append(
                Chunk(
                    chunk_index=len(chunks),
                    text=text,
                    page_number=page.page_number,
                    metadata={
                        "strategy_type": "token",
                        "token_count": count_tokens(text),
                        # markdown tables only (the table stage's, or DOCX ones)
                        "has_table": contains_table(page.text, heuristic=False),
                        "overlap_before_tokens": n_before,
                        "overlap_after_tokens": n_after,
                        "overlap_before_chars": len(before),
                        "overlap_after_chars": len(after),
                    },
                )
            )
        return chunks

    def _window_chunks(self, text: str) -> list[Chunk]:
        if not has_content(text):
            return []
        chunks: list[Chunk] = []
        for w in token_windows(text, self.settings.chunk_size_tokens, self.settings.chunk_overlap_tokens):
            piece = text[w.start:w.end]
            chunks.append(
                Chunk(
                    chunk_index=len(chunks),
                    text=piece,
                    page_number=None,
                    metadata={
                        "strategy_type": "token",
                        "token_count": count_tokens(piece),
                        "has_table": contains_table(piece, heuristic=False),
                        "overlap_chars": w.overlap_chars,
                        "char_start": w.start,
                        "char_end": w.end,
                    },
                )
            )
        return chunks

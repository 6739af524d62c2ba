"""Token strategy ("Chunked by token").

* PDF: one chunk per page (page-aware chunking, so every chunk maps to one source page):
  ``last N tokens of the previous page + page text + first N tokens of the next page``,
  N = ``settings.page_overlap_tokens`` (200); a page is never split.  Page furniture
  (page numbers such as ``- 3 -``, footers, stamps, running headers) is stripped first, as
  for the question strategy (:func:`services.splitter.preprocess.strip_furniture`), so a
  paragraph running across a page break reads on without the footer in its middle.  The text
  is normalised as the question strategy's (:func:`shared.textnorm.normalize_text`: HK
  private-use characters, Kangxi radicals, ligatures, soft hyphens), so what is shown is what
  is searched.  Pages
  without text (blank pages) produce no chunk, and the overlap is taken from the nearest
  page that has text.  Overlaps are cut on character boundaries (no U+FFFD).
  ``page_start``/``page_end``/``source_page_range`` (``"3-4"``): the chunk's page, widened
  to the next page when its last paragraph runs on there (the page ends without closing
  the sentence: :func:`runs_on`) and to the previous page when its first paragraph began
  there, provided the overlap holds that neighbour's text.
* DOCX/TXT: sliding windows of ``settings.chunk_size_tokens`` with
  ``settings.chunk_overlap_tokens`` overlap (see :mod:`services.splitter.windows`).
"""
from __future__ import annotations

import re

from services.splitter.preprocess import strip_furniture
from services.splitter.strategies.base import StrategyResult
from services.splitter.tables import contains_table
from services.splitter.tokens import count_tokens, head_text, tail_text
from services.splitter.windows import token_windows
from shared.models import Chunk, ParsedDocument
from shared.settings import Settings
from shared.textnorm import normalize_text

# page-number-only pages ("3", "- 3 -", "E-3") carry no content
_TRIVIAL_PAGE = re.compile(r"[\s\-–—_.·•()（）\[\]0-9A-Za-z]{0,6}")

OVERLAP_JOIN = "\n"


# a page ending in a word, a digit, a comma or an opening bracket has not closed its sentence
_RUNS_ON = re.compile(r"[\w,，、\-–(（「『]\Z")


def runs_on(page_text: str) -> bool:
    """True when ``page_text`` (furniture stripped) ends mid-sentence, so its last paragraph
    continues on the next page: its last visible character is a letter, digit, CJK character,
    comma or opening bracket (not ``。.!?:;`` or a table's ``|``)."""
    return _RUNS_ON.search(page_text.rstrip()) is not None


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
        chunks = (self._pdf_chunks(doc) if doc.file_type == "pdf"
                  else self._window_chunks(normalize_text(doc.full_text())))
        notes = [] if chunks else ["document has no text: no chunks"]
        return StrategyResult(chunks=chunks, strategy_used="token", notes=notes)

    def _pdf_chunks(self, doc: ParsedDocument) -> list[Chunk]:
        n = self.settings.page_overlap_tokens
        pages = [(p.page_number, normalize_text(t)) for p, t in zip(doc.pages, strip_furniture(doc), strict=True)
                 if has_content(t)]
        chunks: list[Chunk] = []
        for i, (number, own) in enumerate(pages):
            before, n_before = tail_text(pages[i - 1][1], n) if i > 0 else ("", 0)
            after, n_after = head_text(pages[i + 1][1], n) if i + 1 < len(pages) else ("", 0)
            parts = [t for t in (before, own, after) if t]
            text = OVERLAP_JOIN.join(parts)
            first = pages[i - 1][0] if before and runs_on(pages[i - 1][1]) else number
            last = pages[i + 1][0] if after and runs_on(own) else number
            chunks.append(
                Chunk(
                    chunk_index=len(chunks),
                    text=text,
                    page_number=number,
                    metadata={
                        "strategy_type": "token",
                        "token_count": count_tokens(text),
                        # markdown tables only (the table stage's, or DOCX ones)
                        "has_table": contains_table(own, heuristic=False),
                        "overlap_before_tokens": n_before,
                        "overlap_after_tokens": n_after,
                        "overlap_before_chars": len(before),
                        "overlap_after_chars": len(after),
                        "page_start": first,
                        "page_end": last,
                        "source_page_range": f"{first}-{last}" if first is not None else None,
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

"""What the embedder embeds for a chunk: the normalised search form of its text (or of its own
text, a page chunk's page without its neighbours' overlap, with ``EMBED_PAGE_OVERLAP`` false),
and, for a Q&A chunk, a second "question line" text (document title + topic section + question).

Why a question line with context: an officer's question is a paraphrase of the prepared
question, and the pair's full text (question + long answer, tables) dilutes that match; the
bare question line loses the document's subject (``政府至今已就新發展區發放多少特惠補償？`` does
not say which development area). Measured in ``services/query/README.md``.
"""
from __future__ import annotations

import hashlib
import re

from shared.models import Chunk, ChunkSet
from shared.textnorm import normalize_for_search

TITLE_LINES = 2
TITLE_MAX_CHARS = 80
# Page-1 header letters such as "(L)" or "L" are page furniture, not the title.
_FURNITURE = re.compile(r"^\(?[A-Z]\)?$|^\d+$")


def document_title(chunk_set: ChunkSet) -> str:
    """The first ``TITLE_LINES`` non-empty lines of the document's first chunk (header letters
    and bare numbers skipped), joined by a space and cut to ``TITLE_MAX_CHARS`` characters;
    ``""`` for a document without text."""
    first = next((c for c in chunk_set.chunks if c.text.strip()), None)
    if first is None:
        return ""
    lines = [ln.strip() for ln in first.text.splitlines() if ln.strip() and not _FURNITURE.match(ln.strip())]
    return " ".join(lines[:TITLE_LINES])[:TITLE_MAX_CHARS]


def chunk_search_text(chunk: Chunk, page_overlap: bool = True) -> str:
    """Normalised text embedded for the chunk vector: ``embed_text`` (question + answer for a
    Q&A pair), else the chunk text — or, with ``page_overlap`` false (``EMBED_PAGE_OVERLAP``),
    the chunk's own text (``Chunk.own_text``: a token-strategy page without the overlap it
    repeats from its neighbours, which stays in the stored text for display and the LLM's
    context), so each page's text is embedded once, not about 1.77 times (the embedder composes
    the stored vector with the neighbours', ``neighbours.py``). Not the default: ``legco eval``
    on the fixtures and the real papers lost one query at rank 1 and gained one with it
    (``bench/README.md``, ``ingest.py``)."""
    if chunk.embed_text:
        return normalize_for_search(chunk.embed_text)
    return normalize_for_search(chunk.text if page_overlap else chunk.own_text())


def question_search_text(title: str, chunk: Chunk) -> str | None:
    """Normalised question-line text of a Q&A chunk (title, topic section and question on
    separate lines), or ``None`` for chunks that are not Q&A pairs or have no question text."""
    meta = chunk.metadata
    question = meta.get("question_text")
    if meta.get("chunk_kind") != "qa" or not question:
        return None
    parts = [title, str(meta.get("topic_section") or ""), str(question)]
    return normalize_for_search("\n".join(p for p in parts if p))


def content_chars(text: str) -> int:
    """Number of non-whitespace characters of ``text`` (a title-only chunk has few)."""
    return sum(1 for c in text if not c.isspace())


def text_sha(text: str) -> str:
    """First 16 hex digits of the SHA-256 of ``text`` (UTF-8): stored as ``vector_sha`` /
    ``question_sha`` metadata so the query service can cache vectors by content."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

"""Collapsing duplicate renditions in a result list.

The same paper is often uploaded as PDF and DOCX (or TXT), and the same council paper by two
departments; their chunks are near-identical and would fill the top of the list with one
answer. Two chunks of *different* documents are the same passage when the Jaccard similarity
of their sets of character bigrams (NFKC, whitespace removed) is at least a threshold
(0.8 by default: on the corpus the PDF/DOCX renditions of one Q&A pair score 0.88–1.0, the
closest chunks of different papers 0.63). The best-scoring one is kept and the others are
listed in its ``also_in``. A page chunk of the PDF that lies inside a longer DOCX chunk
(chunk boundaries differ between renditions) counts too: see :func:`same_passage`. Chunks of
one document are never merged (overlapping page chunks are distinct passages). A rendition
is found only among the query's candidates, so ``also_in`` lists the copies that ranked too.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

_SPACE = re.compile(r"\s+")


@lru_cache(maxsize=2048)
def bigram_set(text: str) -> np.ndarray:
    """The set of character bigrams of ``text`` after NFKC with all whitespace removed, as the
    sorted unique codes ``(first code point << 21) | second`` (int64, read-only; 8 bytes a
    bigram, and set operations in numpy: a Python set of bigram strings cost ~100 KB and most of
    a query's renditions time per chunk). Cached by text: the same chunks come back for many
    questions. (No Simplified → Traditional step: renditions of one paper share a script, and
    OpenCC on every candidate text would dominate the query's CPU time.)"""
    flat = _SPACE.sub("", unicodedata.normalize("NFKC", text))
    if len(flat) < 2:
        return _NONE
    points = np.frombuffer(flat.encode("utf-32-le"), dtype="<u4").astype(np.int64)
    codes = np.unique((points[:-1] << 21) | points[1:])
    codes.flags.writeable = False
    return codes


_NONE = np.zeros(0, dtype=np.int64)


def common(a: np.ndarray, b: np.ndarray) -> int:
    """|a ∩ b| of two bigram sets."""
    return int(np.intersect1d(a, b, assume_unique=True).size)


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """|a ∩ b| / |a ∪ b| (0.0 for two empty sets)."""
    both = common(a, b)
    union = a.size + b.size - both
    return both / union if union else 0.0


CONTAINMENT = 0.95
MIN_CONTAINED_BIGRAMS = 100


def same_passage(a: np.ndarray, b: np.ndarray, threshold: float) -> bool:
    """Whether two chunks of different documents are one passage: Jaccard ≥ ``threshold``, or
    one of at least 100 bigrams lies ≥ 95 % inside the other (a PDF page chunk inside the
    DOCX chunk that spans it: chunk boundaries differ between renditions of a token-strategy
    paper). On the corpus, different papers reach Jaccard 0.63 and containment 0.81."""
    if threshold > 1:
        return False
    both = common(a, b)
    union = a.size + b.size - both
    if union and both / union >= threshold:
        return True
    small = min(a.size, b.size)
    return small >= MIN_CONTAINED_BIGRAMS and both / small >= CONTAINMENT


@dataclass
class Ranked:
    """One ranked chunk: id, document id, text, whether it has a one-page PDF to open, the
    caller's item, and the items folded into it."""

    chunk_id: str
    document_id: str
    text: str
    item: Any
    has_page: bool = False
    duplicates: list[Any] = field(default_factory=list)
    best: Any = None


def collapse(ranked: list[Ranked], k: int, threshold: float = 0.8) -> list[Ranked]:
    """The first ``k`` entries of ``ranked`` (best first) that are not a rendition of an
    entry already kept; each dropped entry is appended to the ``duplicates`` of the kept one.
    When a later copy has a page PDF (``has_page``) and the kept one has not (DOCX, TXT), the
    copy with the PDF takes the kept place — sources stay one click from their page — and
    ``best`` keeps the best-ranked item of the group (for its score).

    Args:
        threshold: Jaccard similarity of bigram sets at or above which two chunks of
            different documents are the same passage (values > 1 disable collapsing).
    """
    kept: list[tuple[Ranked, np.ndarray]] = []
    for r in ranked:
        grams = bigram_set(r.text)
        at = next((n for n, (kr, kg) in enumerate(kept) if kr.document_id != r.document_id
                   and same_passage(grams, kg, threshold)), None)
        if at is not None:
            twin, twin_grams = kept[at]
            if r.has_page and not twin.has_page:  # show the copy whose page opens as a PDF
                r.duplicates = twin.duplicates + [twin.item]
                r.best = twin.best
                kept[at] = (r, twin_grams)
            else:
                twin.duplicates.append(r.item)
            continue
        if len(kept) < k:
            r.best = r.item
            kept.append((r, grams))
    return [r for r, _ in kept]

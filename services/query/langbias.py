"""Language-bias removal: per-language mean vectors of the indexed chunks.

multilingual-e5-small scores any chunk in the query's own language about 0.09 cosine higher
than a chunk in another language, whatever the content. Subtracting each language's mean
chunk vector (and re-normalising) removes that shared offset, so similarity reflects content
(the "mean-centering" fix for language-specific subspaces in multilingual encoders, cf.
Libovický et al. 2020, "On the Language Neutrality of Pre-trained Multilingual
Representations"). The means come from the indexed chunks only — the ``_stats`` collection
holds per-document sums written by the embedder — never from queries. The query service reads
those sums once at start and then per document as ``documents.indexed`` / ``documents.deleted``
events arrive (``follow.py``).
"""
from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping

import numpy as np

from shared.vectorstore import LanguageSums, StatsRecord


def unit(v: np.ndarray) -> np.ndarray:
    """``v`` scaled to unit length along its last axis (zero rows stay zero)."""
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(n == 0, 1.0, n)


def debias(vectors: np.ndarray, mean: np.ndarray | None) -> np.ndarray:
    """``unit(vectors - mean)``; just ``unit(vectors)`` when ``mean`` is ``None``.

    Args:
        vectors: shape ``(n, d)`` or ``(d,)``; mean: shape ``(d,)``.
    """
    return unit(vectors if mean is None else vectors - mean)


class LanguageMeans:
    """Per-language mean chunk vectors from per-document vector sums kept in memory.

    Each document's sums are held (language → sum vector, chunk count); after a change the
    means are recomputed by adding the documents' sums in the order the records were written
    (the order of Chroma's ``_stats`` collection), so they are bit-identical to summing the
    collection afresh. Writers are serialised; ``get`` returns the current means without a lock.
    """

    def __init__(self) -> None:
        self._docs: dict[str, dict[str, tuple[np.ndarray, int]]] = {}
        self._means: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def load(self, records: Iterable[StatsRecord]) -> None:
        """Replace every document's sums with ``records`` (``VectorStore.stats_records()``)."""
        docs: dict[str, dict[str, tuple[np.ndarray, int]]] = {}
        for doc_id, lang, vec, count in records:
            docs.setdefault(doc_id, {})[lang] = (np.asarray(vec, dtype=np.float64), count)
        with self._lock:
            self._docs = docs
            self._recompute()

    def update(self, documents: Mapping[str, LanguageSums]) -> None:
        """Replace the sums of some documents (document id → language → (sum, count), as
        ``VectorStore.document_stats`` returns them; empty removes the document). A rewritten
        document moves last, as its rewritten records do in Chroma."""
        with self._lock:
            changed = False
            for doc_id, sums in documents.items():
                new = {lang: (np.asarray(vec, dtype=np.float64), n) for lang, (vec, n) in sums.items()}
                if _same(self._docs.get(doc_id), new):
                    continue  # e.g. an event the start-up scan already reflected: keep its place
                self._docs.pop(doc_id, None)
                if new:
                    self._docs[doc_id] = new
                changed = True
            if changed:
                self._recompute()

    def _recompute(self) -> None:
        totals: dict[str, tuple[np.ndarray, int]] = {}
        for sums in self._docs.values():
            for lang, (vec, n) in sums.items():
                if lang in totals:
                    acc, m = totals[lang]
                    totals[lang] = (acc + vec, m + n)
                else:
                    totals[lang] = (np.zeros_like(vec) + vec, n)
        self._means = {lang: vec / n for lang, (vec, n) in totals.items() if n > 0}

    def get(self) -> dict[str, np.ndarray]:
        """Language → mean vector (shape ``(d,)``), for every language with indexed chunks."""
        return self._means


def _same(a: dict[str, tuple[np.ndarray, int]] | None, b: dict[str, tuple[np.ndarray, int]]) -> bool:
    """True when two documents' sums are equal (``a`` ``None``: not held; equal to empty ``b``)."""
    if a is None:
        return not b
    return a.keys() == b.keys() and all(a[k][1] == b[k][1] and np.array_equal(a[k][0], b[k][0]) for k in a)


def language_neutral(query: np.ndarray, means: dict[str, np.ndarray]) -> np.ndarray:
    """``query`` with the directions that separate the language means projected out.

    With ``D`` = the span of ``μ_l - μ_first`` over the indexed languages, the returned unit
    vector ``s`` has ``s·μ_l`` equal for every language, so one nearest-neighbour search over
    raw stored vectors ranks chunks of all languages by ``s·(p - μ_l)`` without favouring one
    language — one search serves every language (candidates are re-scored exactly afterwards).

    Args:
        query: shape ``(d,)``; means: language → mean vector ``(d,)``.
    """
    langs = sorted(means)
    if len(langs) < 2:
        return unit(query)
    diffs = np.stack([means[lang] - means[langs[0]] for lang in langs[1:]])  # (L-1, d)
    basis, _ = np.linalg.qr(diffs.T)  # (d, L-1) orthonormal columns
    return unit(query - basis @ (basis.T @ query))

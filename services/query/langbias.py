"""Language-bias removal: per-language mean vectors of the indexed chunks.

multilingual-e5-small scores any chunk in the query's own language about 0.09 cosine higher
than a chunk in another language, whatever the content. Subtracting each language's mean
chunk vector (and re-normalising) removes that shared offset, so similarity reflects content
(the "mean-centering" fix for language-specific subspaces in multilingual encoders, cf.
Libovický et al. 2020, "On the Language Neutrality of Pre-trained Multilingual
Representations"). The means come from the indexed chunks only — the ``_stats`` collection
holds per-document sums written by the embedder — never from queries.
"""
from __future__ import annotations

import threading
import time

import numpy as np

from shared.vectorstore import VectorStore


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
    """Cached per-language mean chunk vectors, re-read from Chroma after ``ttl_s`` seconds.

    Args:
        vectors: the store whose ``_stats`` collection holds the sums.
        ttl_s: cache lifetime in seconds (documents indexed or deleted show up after it).
    """

    def __init__(self, vectors: VectorStore, ttl_s: float) -> None:
        self.vectors = vectors
        self.ttl_s = ttl_s
        self._means: dict[str, np.ndarray] = {}
        self._at = float("-inf")
        self._lock = threading.Lock()

    def get(self) -> dict[str, np.ndarray]:
        """Language → mean vector (shape ``(d,)``), for every language with indexed chunks.

        Raises:
            chromadb errors when Chroma is down.
        """
        with self._lock:
            if time.monotonic() - self._at > self.ttl_s:
                sums = self.vectors.language_sums()
                self._means = {lang: np.asarray(vec, dtype=np.float64) / n
                               for lang, (vec, n) in sums.items() if n > 0}
                self._at = time.monotonic()
            return self._means


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

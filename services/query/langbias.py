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

The means of a question are those of the caller's scope (their department's documents and the
shared library), as ``bench/abstention.py`` fits the "not covered" thresholds: centred on every
department's documents, the unanswerable English fireworks question scored 0.87 against 0.70 in a
department holding one paper, and 0.938 in a full test run — covered, against the threshold.
"""
from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping

import numpy as np

from shared.scope import Scope, in_scope
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


Totals = dict[str, tuple[np.ndarray, int]]
"""Language → (sum of chunk vectors, chunk count), summed in document order."""

PRIOR_CHUNKS = 1.0
"""Weight, in chunks, of the prior a language's mean is shrunk towards: zero for every
document's means, every document's mean for a scope's. Without it a language held by one chunk
has that chunk as its mean, the chunk centred is rounding noise, and its dense score a coin toss
(an English paper of one chunk among Chinese papers lost its own unique word to them one time in
five: ``tests/unit/query/test_langbias.py``). One chunk's weight moves a mean of 200 chunks by
0.5%."""


class LanguageMeans:
    """Per-language mean chunk vectors from per-document vector sums kept in memory.

    Each document's sums are held (language → sum vector, chunk count) in the order the records
    were written (the order of Chroma's ``_stats`` collection), and the means are those sums
    added in that order, so they are bit-identical to summing the collection afresh. Each
    document's ``(department, visibility)`` is kept too, so ``get(scope)`` gives the means of one
    caller's documents: computed on a scope's first question, then kept up to date by the writer
    — a new document (the common change) is added to the totals of every scope holding it, as it
    comes last; any other change (a document deleted or rewritten) recomputes the totals there
    and then — so a question never pays for a change. Writers are serialised; ``get`` reads
    without a lock.
    """

    def __init__(self) -> None:
        self._docs: dict[str, dict[str, tuple[np.ndarray, int]]] = {}
        self._scopes: dict[str, tuple[str, str]] = {}
        self._totals: Totals = {}
        self._means: dict[str, np.ndarray] = {}
        self._scope_totals: dict[tuple[str, ...], Totals] = {}
        self._scoped: dict[tuple[str, ...], dict[str, np.ndarray]] = {}
        self._lock = threading.Lock()

    def load(self, records: Iterable[StatsRecord], scopes: Mapping[str, tuple[str, str]] | None = None) -> None:
        """Replace every document's sums with ``records`` (``VectorStore.stats_records()``) and
        their ``(department, visibility)`` with ``scopes`` (``VectorStore.stats_scopes()``; a
        document without one counts in every department's means)."""
        docs: dict[str, dict[str, tuple[np.ndarray, int]]] = {}
        for doc_id, lang, vec, count in records:
            docs.setdefault(doc_id, {})[lang] = (np.asarray(vec, dtype=np.float64), count)
        with self._lock:
            self._docs = docs
            self._scopes = dict(scopes or {})
            self._recompute()

    def update(self, documents: Mapping[str, LanguageSums],
               scopes: Mapping[str, tuple[str, str]] | None = None) -> None:
        """Replace the sums of some documents (document id → language → (sum, count), as
        ``VectorStore.document_stats`` returns them; empty removes the document) and record their
        ``(department, visibility)`` from ``scopes``. A rewritten document moves last, as its
        rewritten records do in Chroma."""
        with self._lock:
            appended: list[str] = []
            moved = False
            for doc_id, scope in (scopes or {}).items():
                if self._scopes.get(doc_id) != scope:
                    moved = moved or doc_id in self._docs
                    self._scopes[doc_id] = scope
            for doc_id, sums in documents.items():
                new = {lang: (np.asarray(vec, dtype=np.float64), n) for lang, (vec, n) in sums.items()}
                old = self._docs.get(doc_id)
                if _same(old, new):
                    continue  # e.g. an event the start-up scan already reflected: keep its place
                if old is not None:
                    moved = True
                    del self._docs[doc_id]
                if new:
                    self._docs[doc_id] = new
                    appended.append(doc_id)
                else:
                    self._scopes.pop(doc_id, None)
            if moved:
                self._recompute()
            elif appended:
                for doc_id in appended:
                    _add(self._totals, self._docs[doc_id])
                    for key, totals in self._scope_totals.items():
                        if self._holds(key, doc_id):
                            _add(totals, self._docs[doc_id])
                self._compose()

    def _holds(self, key: tuple[str, ...], doc_id: str) -> bool:
        s = self._scopes.get(doc_id)
        return s is None or in_scope(s[0], s[1], key)

    def _recompute(self) -> None:
        self._totals = _totals_of(self._docs.values())
        self._scope_totals = {key: _totals_of(sums for doc_id, sums in self._docs.items() if self._holds(key, doc_id))
                              for key in self._scope_totals}
        self._compose()

    def _compose(self) -> None:
        self._means = _means_of(self._totals)
        self._scoped = {key: {**self._means, **_means_of(totals, self._means)}
                        for key, totals in self._scope_totals.items()}

    def get(self, scope: Scope = None) -> dict[str, np.ndarray]:
        """Language → mean vector (shape ``(d,)``) over the documents in ``scope`` (a caller's
        departments, ``shared.scope``; ``None``: every document). A language the scope has no
        chunks in takes every document's mean (an English question to a department holding only
        Chinese papers is still centred)."""
        if scope is None:
            return self._means
        key = tuple(sorted(scope))
        got = self._scoped.get(key)
        if got is None:  # a scope's first question: its totals, kept up to date from now on
            with self._lock:
                if key not in self._scope_totals:
                    self._scope_totals[key] = _totals_of(sums for doc_id, sums in self._docs.items()
                                                         if self._holds(key, doc_id))
                    self._scoped[key] = {**self._means, **_means_of(self._scope_totals[key], self._means)}
                got = self._scoped[key]
        return got


def _add(totals: Totals, sums: Mapping[str, tuple[np.ndarray, int]]) -> None:
    """Add one document's sums to ``totals`` (in place)."""
    for lang, (vec, n) in sums.items():
        if lang in totals:
            acc, m = totals[lang]
            totals[lang] = (acc + vec, m + n)
        else:
            totals[lang] = (np.zeros_like(vec) + vec, n)


def _totals_of(documents: Iterable[Mapping[str, tuple[np.ndarray, int]]]) -> Totals:
    """Language → (sum, count) of the documents' sums, added in the order given."""
    totals: Totals = {}
    for sums in documents:
        _add(totals, sums)
    return totals


def _means_of(totals: Totals, prior: Mapping[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Language → mean of ``totals``, shrunk towards ``prior[lang]`` (absent: zero) with the
    weight of ``PRIOR_CHUNKS`` chunks: ``(sum + k·prior) / (n + k)``."""
    prior = prior or {}
    return {lang: (vec + PRIOR_CHUNKS * prior[lang] if lang in prior else vec) / (n + PRIOR_CHUNKS)
            for lang, (vec, n) in totals.items() if n > 0}


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

"""The keyword side of retrieval: a BM25 index (``bm25s``) of every chunk's search text, and
keyword scores for a query in every indexed language — its own terms for chunks in its
language, CC-CEDICT translations (``lexicon``) for chunks in the other.

Scores are BM25 (Lucene variant, k1 = 1.5, b = 0.75) summed over the query's term sets, each
set scoring its best target (structured query, Pirkola 1998), then divided by the best score
among the chunks of the same language, so each language's best keyword match scores 1.0 and
the two languages are on one scale (an English question's keyword score for a Chinese chunk
comes from fewer, translated terms). Chunk language is the ``lang`` metadata.

The index lives in the query service's memory and is rebuilt from Chroma (chunk texts are
stored there) whenever the collection's per-document statistics change (documents indexed,
replaced or deleted); queries use the previous index until the new one is ready. Nothing is
fitted: BM25's statistics are the indexed content's.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Container, Iterable

import bm25s
import numpy as np

from services.query.keyword_tokens import (cjk_bigrams, covered_runs, document_tokens, english_words,
                                          join_cjk_lines, query_words, stem)
from services.query.lexicon import Lexicon, TermSet
from shared.textnorm import normalize_for_search
from shared.vectorstore import VectorStore

log = logging.getLogger("legco.query.keywords")
PAGE = 2000


@dataclass
class KeywordHits:
    """Keyword scores of one query: chunk id → score in [0, 1] (only chunks with a match), and
    the term sets used per chunk language (for ``matched_terms``)."""

    scores: dict[str, float]
    term_sets: dict[str, list[TermSet]]


@dataclass(frozen=True)
class Snapshot:
    """One built index: chunk ids, metadata (``lang``, ``document_id``, ``strategy_type``,
    ``topic_section`` are used), languages, the BM25 model and its vocabulary."""

    ids: list[str]
    metas: list[dict[str, Any]]
    langs: np.ndarray
    bm25: bm25s.BM25 | None
    vocab: dict[str, int]
    position: dict[str, int] = field(default_factory=dict)


EMPTY = Snapshot([], [], np.array([], dtype=object), None, {})


class KeywordIndex:
    """BM25 over chunk texts, refreshed from Chroma when the indexed documents change.

    Args:
        vectors: the store to read chunk texts and statistics from.
        lexicon: the bilingual lexicon (``lexicon.load_lexicon()``).
        check_s: seconds between checks of the collection's statistics.
        wait_s: longest wait, in seconds, for another thread's rebuild.
    """

    def __init__(self, vectors: VectorStore, lexicon: Lexicon, check_s: float = 2.0, wait_s: float = 5.0) -> None:
        self.vectors = vectors
        self.lexicon = lexicon
        self.check_s = check_s
        self.wait_s = wait_s
        self._lock = threading.Lock()
        self._checked = float("-inf")
        self._fingerprint: tuple | None = None
        self._snap = EMPTY

    # --- building ---------------------------------------------------------------------
    def refresh(self) -> None:
        """Rebuild the index if the statistics fingerprint changed since the last check
        (checked at most every ``check_s`` seconds). While one thread checks or rebuilds, the
        others wait for it up to ``wait_s`` seconds (so a query right after an upload sees the
        new document), then use the current index; before the first build they wait for it.

        Raises:
            chromadb errors when Chroma is down.
        """
        if time.monotonic() - self._checked < self.check_s:
            return
        if not self._lock.acquire(timeout=-1 if self._fingerprint is None else self.wait_s):
            return  # a long rebuild in another thread: use the current index meanwhile
        try:
            if time.monotonic() - self._checked < self.check_s:
                return
            fp = self.vectors.stats_fingerprint()
            if fp != self._fingerprint:
                start = time.perf_counter()
                self._snap = self._build()
                self._fingerprint = fp
                log.info("keyword index: %d chunks in %.2f s", len(self._snap.ids), time.perf_counter() - start)
            self._checked = time.monotonic()
        finally:
            self._lock.release()

    def _build(self) -> Snapshot:
        return build_snapshot(self.vectors.iter_chunks(PAGE))

    # --- querying ---------------------------------------------------------------------
    def metadata(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """Stored metadata of those ``ids`` that are in the current index (id → metadata)."""
        snap = self._snap
        return {cid: snap.metas[snap.position[cid]] for cid in ids if cid in snap.position}

    def search(self, query: str, document_ids: list[str] | None = None, strategy: str | None = None,
               topic_section: str | None = None) -> KeywordHits:
        """Keyword scores for ``query`` (search form) on the current index (refreshed first);
        see :func:`keyword_scores`.

        Raises:
            chromadb errors when Chroma is down (on a refresh).
        """
        self.refresh()
        return keyword_scores(self._snap, self.lexicon, query, document_ids, strategy, topic_section)


def build_snapshot(records: Iterable[tuple[str, str, dict[str, Any]]]) -> Snapshot:
    """A BM25 index of ``(chunk id, chunk text, metadata)`` records (text as stored; it is put
    in search form and tokenised with ``keyword_tokens.document_tokens``)."""
    ids: list[str] = []
    metas: list[dict[str, Any]] = []
    tokens: list[list[str]] = []
    for rid, text, meta in records:
        ids.append(rid)
        metas.append(meta or {})
        tokens.append(document_tokens(normalize_for_search(text or "")))
    if not ids:
        return EMPTY
    bm25 = bm25s.BM25()
    bm25.index(tokens, show_progress=False)
    langs = np.array([str(m.get("lang", "")) for m in metas], dtype=object)
    return Snapshot(ids, metas, langs, bm25, dict(bm25.vocab_dict), {cid: n for n, cid in enumerate(ids)})


def term_sets(lexicon: Lexicon, query: str, vocab: Container[str]) -> dict[str, list[TermSet]]:
    """Per chunk language, the query's term sets (``query`` in keyword form, see
    :func:`keyword_tokens.query_search_form`; only terms in the index vocabulary):

    * ``"zh"``: the query's own CJK bigrams, its own English words (Chinese papers quote
      English names and codes: ``WCAG``), and the Chinese translations of its English words;
    * ``"en"``: the query's own English words and the English translations of its Chinese words.

    English targets are stem phrases (``"ex gratia"``) whose every stem must occur."""
    own_en = [TermSet(w, frozenset({_stem_phrase(w)}), False) for w in query_words(query)
              if all(stem(p) in vocab for p in w.split())]
    zh = [TermSet(b, frozenset({b}), False) for b in dict.fromkeys(cjk_bigrams(query)) if b in vocab]
    zh += own_en + [t for t in lexicon.english_to_chinese(query, vocab) if t.targets]
    en = own_en + [t for t in lexicon.chinese_to_english(query, vocab) if t.targets]
    return {"zh": zh, "en": en}


def _stem_phrase(words: str) -> str:
    return " ".join(stem(w) for w in words.split())


def _target_tokens(target: str) -> list[str]:
    """Index tokens of a target: the bigrams of a Chinese word, the stems of an English phrase."""
    return cjk_bigrams(target) or target.split()


def keyword_scores(snap: Snapshot, lexicon: Lexicon, query: str, document_ids: list[str] | None = None,
                   strategy: str | None = None, topic_section: str | None = None) -> KeywordHits:
    """Keyword scores of the chunks of ``snap`` for ``query`` (keyword form), per language:

    ``score(d) = Σ_sets best(d) / max_d' Σ_sets best(d')`` where ``best`` is the highest BM25
    score of any target of the set that occurs whole in ``d`` (every bigram / stem of it), so
    each language's best keyword match scores 1. (Lucene's classic coordination factor —
    multiplying by the share of term sets matched — was tried against stray translations and
    cost calibration MRR 0.917 → 0.892.) In [0, 1]. Only
    chunks passing the filters (same meaning as the query API's) are scored; chunks without a
    match are absent."""
    if snap.bm25 is None:
        return KeywordHits({}, {"zh": [], "en": []})
    sets = term_sets(lexicon, query, snap.vocab)
    keep = _mask(snap.metas, document_ids, strategy, topic_section)
    scores: dict[str, float] = {}
    token_scores: dict[str, np.ndarray] = {}

    def token(t: str) -> np.ndarray:
        if t not in token_scores:
            token_scores[t] = snap.bm25.get_scores([t]).astype(np.float64)
        return token_scores[t]

    for lang, lang_sets in sets.items():
        in_lang = keep & (snap.langs == lang)
        if not lang_sets or not in_lang.any():
            continue
        total = np.zeros(len(snap.ids), dtype=np.float64)
        for ts in lang_sets:
            best = np.zeros(len(snap.ids), dtype=np.float64)
            for target in ts.targets:
                toks = _target_tokens(target)
                if not all(t in snap.vocab for t in toks):
                    continue
                parts = [token(t) for t in toks]
                whole = np.logical_and.reduce([p > 0 for p in parts])
                best = np.maximum(best, np.where(whole, np.sum(parts, axis=0), 0.0))
            total += best
        total[~in_lang] = 0.0
        top = float(total.max())
        if top > 0:
            for n in np.flatnonzero(total > 0):
                scores[snap.ids[n]] = float(total[n] / top)
    return KeywordHits(scores, sets)


def _mask(metas: list[dict[str, Any]], document_ids: list[str] | None, strategy: str | None,
          topic_section: str | None) -> np.ndarray:
    """Boolean array over ``metas``: which chunks pass the filters."""
    if not (document_ids or strategy or topic_section):
        return np.ones(len(metas), dtype=bool)
    docs = set(document_ids or [])
    return np.array([(not docs or m.get("document_id") in docs)
                     and (not strategy or m.get("strategy_type") == strategy)
                     and (not topic_section or m.get("topic_section") == topic_section)
                     for m in metas], dtype=bool)


def matched_terms(query: str, text: str, lang: str, sets: dict[str, list[TermSet]], limit: int = 8) -> list[str]:
    """Query terms found in a chunk, for display: the query's own Chinese as it occurs in the
    chunk, the query's own English words, and translations as ``"特惠 (ex gratia)"``.

    Args:
        query: the query in keyword form; text: the chunk's search text; lang: its language;
        sets: ``KeywordHits.term_sets``; limit: most terms returned.
    """
    text = join_cjk_lines(text)
    have = set(document_tokens(text))
    surface: dict[str, str] = {}  # English stem → first word of the chunk with that stem
    for w in english_words(text):
        surface.setdefault(stem(w), w)
    own_bigrams: set[str] = set()
    out: list[str] = []
    for ts in sets.get(lang, []):
        hit = [t for t in sorted(ts.targets) if all(g in have for g in _target_tokens(t))]
        if not hit:
            continue
        if ts.translated:
            shown = " ".join(surface.get(p, p) for p in hit[0].split()) if not cjk_bigrams(hit[0]) else hit[0]
            out.append(f"{shown} ({ts.source})")
        elif cjk_bigrams(ts.source) == [ts.source]:
            own_bigrams.add(ts.source)
        else:
            out.append(ts.source)
    return (covered_runs(query, own_bigrams, text) + out)[:limit]

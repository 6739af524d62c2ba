"""The keyword side of retrieval: a BM25 index (``bm25s``) of every chunk's search text, and
keyword scores for a query in every indexed language — its own terms for chunks in its
language, CC-CEDICT translations (``lexicon``) for chunks in the other.

Scores are BM25 (Lucene variant, k1 = 1.5, b = 0.75) summed over the query's term sets, each
set scoring its best target (structured query, Pirkola 1998), then divided by the best score
among the chunks of the same language, so each language's best keyword match scores 1.0 and
the two languages are on one scale (an English question's keyword score for a Chinese chunk
comes from fewer, translated terms). Chunk language is the ``lang`` metadata.

The index lives in the query service's memory. It is loaded from Chroma once at start and then
follows the ``documents.indexed`` / ``documents.deleted`` events (``follow.py``) document by
document: a document's chunks are tokenised once, when it arrives, and kept with their tokens,
so a change re-fits BM25 from memory (no tokenising, no Chroma read) and swaps the new snapshot
in whole — a query uses one consistent snapshot, never a half-updated one. Nothing is fitted:
BM25's statistics are the indexed content's.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import bm25s
import numpy as np

from services.query.gazetteer import DocumentName, Gazetteer, document_name_terms
from services.query.keyword_tokens import (
    cjk_bigrams,
    covered_runs,
    document_tokens,
    english_words,
    join_cjk_lines,
    query_words,
    stem,
)
from services.query.lexicon import Lexicon, TermSet
from services.query.term_evidence import Form, QueryTerm, term_forms, weigh_terms
from shared.lang import detect_language
from shared.scope import Scope, meta_in_scope
from shared.textnorm import normalize_for_search

log = logging.getLogger("legco.query.keywords")

Record = tuple[str, str, dict[str, Any]]
"""A stored chunk: ``(chunk id, text as stored, flat metadata)``."""


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
    gazetteer: Gazetteer = field(default_factory=lambda: Gazetteer({}))


EMPTY = Snapshot([], [], np.array([], dtype=object), None, {})


@dataclass(frozen=True)
class IndexedChunk:
    """A chunk as the index keeps it: id, metadata, its search-text tokens and, for a
    document's first chunk (``chunk_index`` 0), the document's name terms (``gazetteer``)."""

    chunk_id: str
    meta: dict[str, Any]
    tokens: list[str]
    name: DocumentName | None = None


def index_chunk(chunk_id: str, text: str, meta: dict[str, Any] | None) -> IndexedChunk:
    """Tokenise one stored chunk (text put in search form, ``keyword_tokens.document_tokens``);
    a first chunk also gives its document's name terms.

    A Chinese document's first chunk is indexed without the English words of its name (its
    bilingual title line, ``gazetteer``): an English question naming the paper
    (``San Tin Technopole``) matched them, scored that chunk 1 and ranked it above the pair that
    answers (6 of the 25 R@1 misses of the unseen calibration half); the entity match counts
    the name."""
    meta = meta or {}
    names = document_name_terms(text or "") if meta.get("chunk_index", 0) == 0 else None
    tokens = document_tokens(normalize_for_search(text or ""))
    if names is not None and meta.get("lang") == "zh":
        tokens = [t for t in tokens if cjk_bigrams(t) or t not in names.terms]
    return IndexedChunk(chunk_id, meta, tokens, names)


class KeywordIndex:
    """BM25 over chunk texts, kept per document and updated document by document.

    Documents keep the order they arrived in (the order of Chroma's full scan at start, then of
    the events), so the index equals a full rebuild from Chroma. Writers (``load``, ``update``)
    are serialised; readers (``search``, ``metadata``) take the current snapshot without a lock.

    Args:
        lexicon: the bilingual lexicon (``lexicon.load_lexicon()``).
    """

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self._docs: dict[str, list[IndexedChunk]] = {}
        self._write = threading.Lock()
        self._snap = EMPTY

    # --- building ---------------------------------------------------------------------
    def load(self, records: Iterable[Record]) -> None:
        """Replace the whole index with ``records`` (a full scan, e.g. ``VectorStore.iter_chunks``)."""
        docs: dict[str, list[IndexedChunk]] = {}
        for rid, text, meta in records:
            c = index_chunk(rid, text, meta)
            docs.setdefault(str(c.meta.get("document_id", "")), []).append(c)
        with self._write:
            self._docs = docs
            self._refit()

    def update(self, documents: Mapping[str, Iterable[Record]] | None = None,
               removed_chunks: Iterable[str] = ()) -> None:
        """Apply one batch of changes, then re-fit BM25 once.

        Args:
            documents: document id → its chunks as now stored (tokenised here; only these
                documents are); an empty list removes the document. A known document keeps its
                place, a new one goes last (where Chroma puts its records).
            removed_chunks: chunk ids to drop (a chunk deleted from its document).
        """
        prepared = {doc_id: [index_chunk(*r) for r in recs] for doc_id, recs in (documents or {}).items()}
        gone = set(removed_chunks)
        with self._write:
            for doc_id, chunks in prepared.items():
                if chunks:
                    self._docs[doc_id] = chunks
                else:
                    self._docs.pop(doc_id, None)
            if gone:
                for doc_id in {cid.rpartition("_")[0] for cid in gone} & self._docs.keys():
                    kept = [c for c in self._docs[doc_id] if c.chunk_id not in gone]
                    if kept:
                        self._docs[doc_id] = kept
                    else:
                        del self._docs[doc_id]
            self._refit()

    def _refit(self) -> None:
        start = time.perf_counter()
        self._snap = fit_snapshot([c for chunks in self._docs.values() for c in chunks])
        log.info("keyword index: %d chunks of %d documents, re-fit in %.3f s", len(self._snap.ids),
                 len(self._docs), time.perf_counter() - start)

    @property
    def document_ids(self) -> list[str]:
        """Ids of the documents in the index, in index order."""
        return list(self._docs)

    # --- querying ---------------------------------------------------------------------
    @property
    def snapshot(self) -> Snapshot:
        """The current snapshot (replaced whole by every change)."""
        return self._snap

    def metadata(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """Stored metadata of those ``ids`` that are in the current index (id → metadata)."""
        snap = self._snap
        return {cid: snap.metas[snap.position[cid]] for cid in ids if cid in snap.position}

    def unknown_share(self, query: str, departments: Scope = None) -> float:
        """Share of ``query``'s content terms (keyword form) that no chunk of the caller's scope
        (``departments``, ``shared.scope``; ``None``: every department) contains
        (:func:`unknown_terms`; 0.0 for a query without content terms). Another department's
        papers never make a term known."""
        snap = self._snap
        vocab: Container[str] = snap.vocab
        if departments is not None:
            vocab = ScopedVocab(snap, _mask(snap.metas, None, None, None, departments))
        terms, unknown = unknown_terms(self.lexicon, query, vocab)
        return len(unknown) / len(terms) if terms else 0.0

    def query_terms(self, query: str, departments: Scope = None) -> list[QueryTerm]:
        """The content terms of ``query`` (keyword form) with their forms and weights — inverse
        document frequency among the chunks of the caller's scope (``departments``; ``None``:
        every department) — for the coverage decision's term share (``term_evidence``). As for
        :meth:`unknown_share`, another department's papers neither translate nor weigh a term."""
        snap = self._snap
        mask = _mask(snap.metas, None, None, None, departments)
        vocab: Container[str] = snap.vocab if departments is None else ScopedVocab(snap, mask)

        def document_frequency(forms: tuple[Form, ...]) -> int:
            present = np.zeros(len(snap.ids), dtype=bool)
            for form in forms:
                present |= chunks_containing(snap, form)
            return int((present & mask).sum())

        return weigh_terms(term_forms(self.lexicon, query, vocab), document_frequency, int(mask.sum()))

    def search(self, query: str, document_ids: list[str] | None = None, strategy: str | None = None,
               topic_section: str | None = None, departments: Scope = None) -> KeywordHits:
        """Keyword scores for ``query`` (search form) on the current snapshot; see
        :func:`keyword_scores`."""
        return keyword_scores(self._snap, self.lexicon, query, document_ids, strategy, topic_section, departments)


class ScopedVocab:
    """The terms of a snapshot's vocabulary that occur in at least one chunk of ``mask`` (a
    boolean array over the snapshot's chunks): ``term in ScopedVocab(...)``."""

    def __init__(self, snap: Snapshot, mask: np.ndarray) -> None:
        self._vocab = snap.vocab
        self._mask = mask
        self._csc = snap.bm25.scores if snap.bm25 is not None else None

    def __contains__(self, term: object) -> bool:
        tid = self._vocab.get(term) if isinstance(term, str) else None
        if tid is None or self._csc is None:
            return False
        docs = self._csc["indices"][self._csc["indptr"][tid]:self._csc["indptr"][tid + 1]]
        return bool(self._mask[docs].any())


def chunks_containing(snap: Snapshot, tokens: Form) -> np.ndarray:
    """Boolean array over the snapshot's chunks: which contain every one of ``tokens`` (all
    ``False`` for a token the index does not know, or no tokens)."""
    out = np.zeros(len(snap.ids), dtype=bool)
    if snap.bm25 is None or not tokens:
        return out
    csc = snap.bm25.scores
    out[:] = True
    for t in tokens:
        tid = snap.vocab.get(t)
        if tid is None:
            return np.zeros(len(snap.ids), dtype=bool)
        has = np.zeros(len(snap.ids), dtype=bool)
        has[csc["indices"][csc["indptr"][tid]:csc["indptr"][tid + 1]]] = True
        out &= has
    return out


def term_frequency(snap: Snapshot, target: str) -> int:
    """Number of chunks of ``snap`` holding a term set's ``target`` (a Chinese word: its rarest
    bigram; an English stem phrase: its rarest stem; 0 for a token the index does not know)."""
    if snap.bm25 is None:
        return 0
    indptr = snap.bm25.scores["indptr"]
    counts = [int(indptr[tid + 1] - indptr[tid]) if (tid := snap.vocab.get(t)) is not None else 0
              for t in _target_tokens(target)]
    return min(counts, default=0)


def fit_snapshot(chunks: list[IndexedChunk]) -> Snapshot:
    """A BM25 index of already tokenised chunks, in the given order."""
    if not chunks:
        return EMPTY
    bm25 = bm25s.BM25()
    bm25.index([c.tokens for c in chunks], show_progress=False)
    ids = [c.chunk_id for c in chunks]
    metas = [c.meta for c in chunks]
    langs = np.array([str(m.get("lang", "")) for m in metas], dtype=object)
    names: dict[str, DocumentName] = {}
    bodies: dict[str, set[str]] = defaultdict(set)
    for c in chunks:
        doc = str(c.meta.get("document_id", ""))
        bodies[doc].update(c.tokens)
        if c.name is not None:
            names.setdefault(doc, c.name)
    return Snapshot(ids, metas, langs, bm25, dict(bm25.vocab_dict), {cid: n for n, cid in enumerate(ids)},
                    Gazetteer(names, bodies))


def build_snapshot(records: Iterable[Record]) -> Snapshot:
    """A BM25 index of ``(chunk id, chunk text, metadata)`` records (text as stored; it is put
    in search form and tokenised with ``keyword_tokens.document_tokens``)."""
    return fit_snapshot([index_chunk(*r) for r in records])


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


def unknown_terms(lexicon: Lexicon, query: str, vocab: Container[str]) -> tuple[list[str], list[str]]:
    """``(terms, unknown)``: the query's content terms (keyword form, see
    :func:`keyword_tokens.query_search_form`) and those the index knows in neither language —
    a Chinese dictionary word (``lexicon.segment``) none of whose bigram sequence nor English
    translations is indexed, an English word whose stem and Chinese translations are not.
    ``中華白海豚…`` gives ``白海`` (no paper mentions dolphins); a question the papers answer
    has few. English questions use their English words, others their Chinese words."""
    if detect_language(query) == "en":
        terms = query_words(query)
        translated = {w for t in lexicon.english_to_chinese(query, vocab) if t.targets for w in t.source.split()}
        unknown = [w for w in terms if not all(stem(p) in vocab for p in w.split())
                   and not all(p in translated for p in w.split())]  # "ex gratia": translated as a phrase
        return terms, unknown
    sets = lexicon.chinese_to_english(query, vocab)
    return ([t.source for t in sets],
            [t.source for t in sets if not t.targets and not all(b in vocab for b in cjk_bigrams(t.source))])


def _stem_phrase(words: str) -> str:
    return " ".join(stem(w) for w in words.split())


def _target_tokens(target: str) -> list[str]:
    """Index tokens of a target: the bigrams of a Chinese word, the stems of an English phrase."""
    return cjk_bigrams(target) or target.split()


def keyword_scores(snap: Snapshot, lexicon: Lexicon, query: str, document_ids: list[str] | None = None,
                   strategy: str | None = None, topic_section: str | None = None,
                   departments: Scope = None) -> KeywordHits:
    """Keyword scores of the chunks of ``snap`` for ``query`` (keyword form), per language:

    ``score(d) = Σ_sets best(d) / max_d' Σ_sets best(d')`` where ``best`` is the highest BM25
    score of any target of the set that occurs whole in ``d`` (every bigram / stem of it), so
    each language's best keyword match scores 1. (Lucene's classic coordination factor —
    multiplying by the share of term sets matched — was tried against stray translations and
    cost calibration MRR 0.917 → 0.892.) In [0, 1]. Only
    chunks passing the filters (same meaning as the query API's; ``departments`` is the caller's
    scope, ``shared.scope``) are scored, and each language's best is taken among those, so a
    department's scores do not depend on another department's papers; chunks without a match
    are absent."""
    bm25 = snap.bm25
    if bm25 is None:
        return KeywordHits({}, {"zh": [], "en": []})
    sets = term_sets(lexicon, query, snap.vocab)
    keep = _mask(snap.metas, document_ids, strategy, topic_section, departments)
    scores: dict[str, float] = {}
    token_scores: dict[str, np.ndarray] = {}

    def token(t: str) -> np.ndarray:
        if t not in token_scores:
            token_scores[t] = bm25.get_scores([t]).astype(np.float64)
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
          topic_section: str | None, departments: Scope = None) -> np.ndarray:
    """Boolean array over ``metas``: which chunks pass the filters (and the scope)."""
    if not (document_ids or strategy or topic_section) and departments is None:
        return np.ones(len(metas), dtype=bool)
    docs = set(document_ids or [])
    return np.array([(not docs or m.get("document_id") in docs)
                     and (not strategy or m.get("strategy_type") == strategy)
                     and (not topic_section or m.get("topic_section") == topic_section)
                     and meta_in_scope(m, departments)
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

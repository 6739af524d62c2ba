"""The keyword side of retrieval: BM25 over every chunk's search text, and keyword scores for a
query in every indexed language — its own terms for chunks in its language, CC-CEDICT
translations (``lexicon``) for chunks in the other.

Scores are BM25 (Lucene variant, k1 = 1.5, b = 0.75) summed over the query's term sets, each
set scoring its best target (structured query, Pirkola 1998), then divided by the best score
among the chunks of the same language, so each language's best keyword match scores 1.0 and
the two languages are on one scale (an English question's keyword score for a Chinese chunk
comes from fewer, translated terms). Chunk language is the ``lang`` metadata.

The index is an inverted index in the query service's memory (``chunk_index``), changed chunk by
chunk: a document taken in or dropped costs its own terms, whatever the collection's size, and a
query reads only the postings of its own terms. It follows the ``documents.indexed`` /
``documents.deleted`` events (``follow.py``) document by document; a document's chunks are
tokenised once, when they arrive — a chunk whose text the index already holds (an event
delivered again, a rebuilt generation) takes the tokens it has. With a store
(``keyword_store``) every change is also written to disk, so a restart reads the tokens back
instead of tokenising the collection again. Nothing is fitted: BM25's statistics are the indexed
content's, and the scores equal those of ``bm25s`` fitted on the same chunks.
"""
from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from services.query.chunk_index import ChunkIndex, ChunkTokens, RowFilter
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
from services.query.postings import TermTable
from services.query.term_evidence import Form, QueryTerm, term_forms, weigh_terms
from shared.lang import detect_language
from shared.scope import Scope
from shared.textnorm import normalize_for_search

if TYPE_CHECKING:
    from services.query.keyword_store import KeywordStore

log = logging.getLogger("legco.query.keywords")

Record = tuple[str, str, dict[str, Any]]
"""A stored chunk: ``(chunk id, text as stored, flat metadata)``."""


class KeywordScores(Mapping[str, float]):
    """Chunk id → keyword score (0..1) of one query, for the chunks with a match, held as arrays
    over the index's rows, one part per language (a query matching half of 100,000 chunks builds
    no dict of them). Iteration follows the order a dict of the scores had: Chinese chunks, then
    English ones, each in index order; :meth:`top` gives the best ids with ties in that order."""

    def __init__(self, index: ChunkIndex | None, parts: Sequence[tuple[np.ndarray, np.ndarray]] = ()) -> None:
        self._index = index
        self._parts = [(rows, values) for rows, values in parts if len(rows)]  # rows ascending, per language

    @classmethod
    def empty(cls) -> KeywordScores:
        """No matches."""
        return cls(None)

    def _id(self, row: int) -> str | None:
        return self._index.id_at(row) if self._index is not None else None

    def __getitem__(self, chunk_id: str) -> float:
        row = self._index.row_of(chunk_id) if self._index is not None else None
        if row is not None:
            for rows, values in self._parts:
                at = int(np.searchsorted(rows, row))
                if at < len(rows) and rows[at] == row:
                    return float(values[at])
        raise KeyError(chunk_id)

    def __iter__(self) -> Iterator[str]:
        assert self._index is not None or not self._parts
        for rows, _ in self._parts:
            in_order = rows[np.argsort(self._index.order_of(rows), kind="stable")] if self._index else rows
            for row in in_order.tolist():
                if (cid := self._id(row)) is not None:
                    yield cid

    def __len__(self) -> int:
        return sum(len(rows) for rows, _ in self._parts)

    def top(self, n: int) -> list[str]:
        """The ids of the ``n`` best scores, best first (ties in iteration order)."""
        if n <= 0 or not self._parts or self._index is None:
            return []
        rows = np.concatenate([r for r, _ in self._parts])
        values = np.concatenate([v for _, v in self._parts])
        rank = np.concatenate([np.full(len(r), k) for k, (r, _) in enumerate(self._parts)])
        cand = np.arange(len(values))
        if len(values) > n:  # only what can reach the first n is sorted
            cand = np.flatnonzero(values >= np.partition(values, len(values) - n)[len(values) - n])
        best = cand[np.lexsort((self._index.order_of(rows[cand]), rank[cand], -values[cand]))]
        return [cid for row in rows[best[:n]].tolist() if (cid := self._id(row)) is not None]


@dataclass
class KeywordHits:
    """Keyword scores of one query: chunk id → score in [0, 1] (only chunks with a match), and
    the term sets used per chunk language (for ``matched_terms``)."""

    scores: Mapping[str, float]
    term_sets: dict[str, list[TermSet]]

    def top(self, n: int) -> list[str]:
        """The ids of the ``n`` best keyword matches, best first."""
        if isinstance(self.scores, KeywordScores):
            return self.scores.top(n)
        return [cid for cid, _ in sorted(self.scores.items(), key=lambda kv: -kv[1])[:n]]


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


def content_key(text: str, meta: Mapping[str, Any]) -> bytes:
    """What a chunk's tokens depend on, digested (16 bytes): its text as stored, its language and
    whether it is a document's first chunk (``index_chunk``)."""
    head = f"{meta.get('lang', '')}\x00{meta.get('chunk_index', 0) == 0}\x00".encode()
    return hashlib.blake2b(head + (text or "").encode("utf-8", "surrogatepass"), digest_size=16).digest()


def chunk_tokens(chunk: IndexedChunk, terms: TermTable, key: bytes = b"") -> ChunkTokens:
    """An ``IndexedChunk`` as the index takes it in: its tokens counted, as ids of ``terms``."""
    counts = Counter(chunk.tokens)
    ids = np.fromiter((terms.id(t) for t in counts), dtype=np.int32, count=len(counts))
    freq = np.fromiter(counts.values(), dtype=np.int32, count=len(counts))
    order = np.argsort(ids)
    return ChunkTokens(chunk.chunk_id, chunk.meta, ids[order], freq[order], len(chunk.tokens), chunk.name, key)


class Vocabulary(Container[str]):
    """The terms some live chunk of ``index`` holds: ``term in Vocabulary(index)``."""

    def __init__(self, index: ChunkIndex) -> None:
        self._index = index

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self._index.term_id(term) is not None


class ScopedVocab(Container[str]):
    """The terms that occur in at least one chunk passing ``keep`` (a ``chunk_index.RowFilter``;
    ``None``: any chunk): ``term in ScopedVocab(index, keep)``. Answers are remembered."""

    def __init__(self, index: ChunkIndex, keep: RowFilter | None) -> None:
        self._index = index
        self._keep = keep
        self._known: dict[str, bool] = {}

    def __contains__(self, term: object) -> bool:
        if not isinstance(term, str):
            return False
        known = self._known.get(term)
        if known is None:
            tid = self._index.term_id(term)
            known = tid is not None and (self._keep is None or self._held(self._index.rows_with(tid)))
            self._known[term] = known
        return known


    def _held(self, rows: np.ndarray) -> bool:
        """Whether a chunk of ``rows`` passes: its first rows are tried first (a common term is
        in the scope at once), then all."""
        assert self._keep is not None
        return bool(self._keep(rows[:64]).any() or (len(rows) > 64 and self._keep(rows[64:]).any()))


class Snapshot:
    """The keyword index as a query reads it: ``vocab``, ``gazetteer`` and, for tests and
    benches, the chunk ids and metadata in index order (``ids``, ``metas``: built on each
    call, O(chunks))."""

    def __init__(self, index: ChunkIndex) -> None:
        self.index = index

    @property
    def vocab(self) -> Vocabulary:
        """The terms some chunk holds."""
        return Vocabulary(self.index)

    @property
    def gazetteer(self) -> Gazetteer:
        """The documents' names (entity match)."""
        return self.index.gazetteer

    @property
    def ids(self) -> list[str]:
        """Chunk ids in index order."""
        with self.index.lock.reading():
            return [self.index.chunk_id(r) for r in self.index.ordered_rows().tolist()]

    @property
    def metas(self) -> list[dict[str, Any]]:
        """Chunk metadata in index order."""
        with self.index.lock.reading():
            return [self.index.meta(r) for r in self.index.ordered_rows().tolist()]


class KeywordIndex:
    """BM25 over chunk texts, kept per document and updated chunk by chunk.

    Documents keep the order they arrived in (the order of Chroma's full scan at start, then of
    the events), so the index equals a full build from Chroma. Writers (``load``, ``update``)
    are serialised; readers (``search``, ``metadata`` …) hold the index's read lock while they
    score, so a query never sees a document half taken in.

    Args:
        lexicon: the bilingual lexicon (``lexicon.load_lexicon()``).
        store: where every change is also written (``keyword_store``; ``None``: memory only).
    """

    def __init__(self, lexicon: Lexicon, store: KeywordStore | None = None) -> None:
        self.lexicon = lexicon
        self.store = store
        self.terms = TermTable()
        self._index = ChunkIndex(self.terms)
        self._write = threading.Lock()
        self.loaded_from: str | None = None  # "file" (restored) or "chroma" (scanned): /healthz

    # --- building ---------------------------------------------------------------------
    def _prepare(self, records: Iterable[Record]) -> Iterator[ChunkTokens]:
        """``records`` as the index takes them in: a chunk whose content the index holds takes
        its tokens from there, any other is tokenised (``index_chunk``)."""
        held = self._index
        for rid, text, meta in records:
            meta = meta or {}
            key = content_key(text, meta)
            cached = held.cached_tokens(key)
            if cached is not None:
                terms, counts, length, name = cached
                yield ChunkTokens(rid, meta, terms, counts, length, name, key)
            else:
                yield chunk_tokens(index_chunk(rid, text, meta), self.terms, key)

    def load(self, records: Iterable[Record]) -> None:
        """Replace the whole index with ``records`` (a full scan, e.g. ``VectorStore.iter_chunks``),
        in their order; saved to the store when there is one. Queries use the old index until the
        new one is complete."""
        start = time.perf_counter()
        with self._write:
            by_doc: dict[str, list[ChunkTokens]] = {}
            for c in self._prepare(records):
                by_doc.setdefault(str(c.meta.get("document_id", "")), []).append(c)
            fresh = ChunkIndex(self.terms)
            fresh.bulk((d, seq, list(enumerate(chunks))) for seq, (d, chunks) in enumerate(by_doc.items()))
            self._index = fresh
            self.loaded_from = "chroma"
            self._save(lambda store: store.save_all(fresh))
        log.info("keyword index: %d chunks of %d documents loaded in %.2f s", fresh.chunk_count,
                 fresh.document_count, time.perf_counter() - start)

    def restore(self) -> bool:
        """Load the index from the store, no tokenising (the store must be valid: the caller
        checked its generation and offsets, ``follow.py``). Returns whether there was one."""
        if self.store is None:
            return False
        start = time.perf_counter()
        with self._write:
            fresh = ChunkIndex(self.terms)
            try:
                if not self.store.load_into(fresh):
                    return False
            except Exception:
                log.exception("keyword index file %s cannot be read; loading from Chroma", self.store.path)
                return False
            self._index = fresh
            self.loaded_from = "file"
        log.info("keyword index: %d chunks of %d documents restored from %s in %.2f s", fresh.chunk_count,
                 fresh.document_count, self.store.path, time.perf_counter() - start)
        return True

    def update(self, documents: Mapping[str, Iterable[Record]] | None = None,
               removed_chunks: Iterable[str] = ()) -> None:
        """Apply one batch of changes, chunk by chunk.

        Args:
            documents: document id → its chunks as now stored (tokenised here unless their
                content is held already; only these documents are); an empty list removes the
                document. A known document keeps its place, a new one goes last (where Chroma
                puts its records); the same chunks again change nothing.
            removed_chunks: chunk ids to drop (a chunk deleted from its document).
        """
        start = time.perf_counter()
        with self._write:
            prepared = {doc_id: list(self._prepare(recs)) for doc_id, recs in (documents or {}).items()}
            changed = self._index.replace(prepared, removed_chunks)
            if changed:
                self._save(lambda store: store.save_documents(self._index, changed))
        log.info("keyword index: %d documents changed, now %d chunks of %d documents (%.3f s)", len(changed),
                 self._index.chunk_count, self._index.document_count, time.perf_counter() - start)

    def _save(self, write: Callable[[KeywordStore], None]) -> None:
        """Write a change to the store. A store that fails (disk full, file damaged) is given up
        with an error — the index goes on in memory, and the file keeps the last state whose
        offsets it saved, so a restart catches up from there."""
        if self.store is None:
            return
        try:
            write(self.store)
        except Exception:
            log.exception("keyword index file %s failed; the index is kept in memory only from now on",
                          self.store.path)
            self.store = None

    @property
    def document_ids(self) -> list[str]:
        """Ids of the documents in the index, in index order."""
        with self._index.lock.reading():
            return self._index.document_ids()

    @property
    def chunk_count(self) -> int:
        """Chunks in the index."""
        return self._index.chunk_count

    @property
    def document_count(self) -> int:
        """Documents in the index."""
        return self._index.document_count

    # --- querying ---------------------------------------------------------------------
    @property
    def snapshot(self) -> Snapshot:
        """The index as queries read it (replaced whole by a full load)."""
        return Snapshot(self._index)

    def scope_share(self, departments: Scope) -> float:
        """Share of the index's chunks in a caller's scope (``shared.scope``; ``None``: 1.0;
        0.0 for an empty index)."""
        index = self._index
        with index.lock.reading():
            total = index.chunk_count
            return index.scope_count(departments) / total if total else 0.0

    def in_scope(self, ids: Sequence[str], departments: Scope) -> list[bool | None]:
        """Whether each of ``ids`` is a chunk of the caller's scope (``shared.scope``) by the
        current index's codes; ``None`` for an id the index does not hold (yet)."""
        index = self._index
        with index.lock.reading():
            rows = [index.row_of(cid) for cid in ids]
            keep = index.row_filter(departments=departments)
            known = [r for r in rows if r is not None]
            if keep is None or not known:
                passed: list[bool] = [True] * len(known)
            else:
                passed = [bool(b) for b in keep(np.asarray(known, dtype=np.int64))]
            marks = iter(passed)
            return [None if r is None else next(marks) for r in rows]

    def metadata(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """Stored metadata of those ``ids`` that are in the current index (id → metadata)."""
        index = self._index
        with index.lock.reading():
            return {cid: index.meta(row) for cid in ids if (row := index.row_of(cid)) is not None}

    def unknown_share(self, query: str, departments: Scope = None) -> float:
        """Share of ``query``'s content terms (keyword form) that no chunk of the caller's scope
        (``departments``, ``shared.scope``; ``None``: every department) contains
        (:func:`unknown_terms`; 0.0 for a query without content terms). Another department's
        papers never make a term known."""
        index = self._index
        with index.lock.reading():
            vocab: Container[str] = Vocabulary(index)
            if departments is not None:
                vocab = ScopedVocab(index, index.row_filter(departments=departments))
            terms, unknown = unknown_terms(self.lexicon, query, vocab)
        return len(unknown) / len(terms) if terms else 0.0

    def query_terms(self, query: str, departments: Scope = None) -> list[QueryTerm]:
        """The content terms of ``query`` (keyword form) with their forms and weights — inverse
        document frequency among the chunks of the caller's scope (``departments``; ``None``:
        every department) — for the coverage decision's term share (``term_evidence``). As for
        :meth:`unknown_share`, another department's papers neither translate nor weigh a term."""
        index = self._index
        with index.lock.reading():
            keep = index.row_filter(departments=departments)
            vocab: Container[str] = Vocabulary(index) if departments is None else ScopedVocab(index, keep)

            def document_frequency(forms: tuple[Form, ...]) -> int:
                found = [r for form in forms if len(r := rows_containing(index, form))]
                if not found:
                    return 0
                if len(found) == 1:
                    rows = found[0]
                else:  # the union, marked on an array over the rows (sorting the forms' rows costs more)
                    marked = np.zeros(index.rows, dtype=bool)
                    for r in found:
                        marked[r] = True
                    rows = np.flatnonzero(marked)
                return int(keep(rows).sum()) if keep is not None else len(rows)

            return weigh_terms(term_forms(self.lexicon, query, vocab), document_frequency,
                               index.scope_count(departments))

    def search(self, query: str, document_ids: list[str] | None = None, strategy: str | None = None,
               topic_section: str | None = None, departments: Scope = None) -> KeywordHits:
        """Keyword scores for ``query`` (search form) on the current index; see
        :func:`keyword_scores`."""
        return keyword_scores(self.snapshot, self.lexicon, query, document_ids, strategy, topic_section, departments)


def rows_containing(index: ChunkIndex, tokens: Form) -> np.ndarray:
    """Live rows of ``index`` whose chunk contains every one of ``tokens`` (none for a token no
    chunk holds, or no tokens), ascending."""
    found: list[np.ndarray] = []
    for t in tokens:
        tid = index.term_id(t)
        if tid is None:
            return np.zeros(0, dtype=np.int32)
        found.append(index.rows_with(tid))
    if not found:
        return np.zeros(0, dtype=np.int32)
    found.sort(key=len)
    rows = found[0]
    for more in found[1:]:
        rows = rows[_present(rows, more)]
    return rows


def _present(rows: np.ndarray, among: np.ndarray) -> np.ndarray:
    """Which of ``rows`` are in ``among`` (both ascending): a binary search per row of the
    shorter list."""
    at = np.searchsorted(among, rows)
    ok = at < len(among)
    ok[ok] = among[at[ok]] == rows[ok]
    return ok


def term_frequency(snap: Snapshot, target: str) -> int:
    """Number of chunks of ``snap`` holding a term set's ``target`` (a Chinese word: its rarest
    bigram; an English stem phrase: its rarest stem; 0 for a token the index does not know)."""
    return min((snap.index.document_frequency(t) for t in _target_tokens(target)), default=0)


def build_snapshot(records: Iterable[Record]) -> Snapshot:
    """A keyword index of ``(chunk id, chunk text, metadata)`` records (text as stored; it is
    put in search form and tokenised with ``keyword_tokens.document_tokens``), in their order."""
    index = KeywordIndex(Lexicon({}, {}))
    index.load(records)
    return index.snapshot


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


def keyword_scores(snap: Snapshot, lexicon: Lexicon, query: str, document_ids: Sequence[str] | None = None,
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
    are absent.

    Only the postings of the query's terms are read: the work grows with how many chunks hold
    them, not with the collection. Sums run in the order the dense computation over every chunk
    ran them (term sets in order, a target's tokens in order), so the scores are the same
    floats."""
    index = snap.index
    with index.lock.reading():
        if index.chunk_count == 0:
            return KeywordHits(KeywordScores.empty(), {"zh": [], "en": []})
        vocab = Vocabulary(index)
        sets = term_sets(lexicon, query, vocab)
        keep = index.row_filter(document_ids, strategy, topic_section, departments)
        read: dict[str, tuple[np.ndarray, np.ndarray]] = {}

        def token(t: str) -> tuple[np.ndarray, np.ndarray]:
            if t not in read:
                tid = index.term_id(t)
                assert tid is not None
                rows, scores = index.token_scores(tid)
                if keep is not None:
                    ok = keep(rows)
                    rows, scores = rows[ok], scores[ok]
                read[t] = (rows, scores)
            return read[t]

        parts: list[tuple[np.ndarray, np.ndarray]] = []
        for lang, lang_sets in sets.items():
            code = index.lang_code(lang)
            if not lang_sets or code is None:
                continue
            total = _summed(index.rows, lang_sets, vocab, token)
            rows = np.flatnonzero(total)
            rows = rows[index.langs_of(rows) == code]
            if not len(rows):
                continue
            values = total[rows]
            parts.append((rows, values / float(values.max())))
        return KeywordHits(KeywordScores(index, parts) if parts else KeywordScores.empty(), sets)


def _summed(size: int, sets: list[TermSet], vocab: Container[str],
            token: Callable[[str], tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Over the rows (an array of ``size``): the sum over the sets of the set's best target score
    (``token``: a token's rows and BM25 scores). A target counts where all its tokens occur, as
    the sum of their scores in token order; sets are added in their order. One array over the
    rows per language (a memset: ~0.05 ms at 100,000 chunks) instead of merging the postings by
    sorting them."""
    total = np.zeros(size, dtype=np.float64)
    best = np.zeros(size, dtype=np.float64)
    for ts in sets:
        found: list[tuple[np.ndarray, np.ndarray]] = []
        for target in ts.targets:
            toks = _target_tokens(target)
            if not all(t in vocab for t in toks):
                continue
            scored = [token(t) for t in toks]
            rows = min((r for r, _ in scored), key=len)
            for r, _ in scored:
                if r is not rows:
                    rows = rows[_present(rows, r)]
            values = np.zeros(len(rows), dtype=np.float64)
            for r, v in scored:  # in token order, as the dense sum ran
                values = values + v[np.searchsorted(r, rows)]
            found.append((rows, values))
        if len(found) == 1:
            total[found[0][0]] += found[0][1]
        elif found:
            for rows, values in found:
                best[rows] = np.maximum(best[rows], values)
            touched = np.concatenate([r for r, _ in found])
            total[touched] += best[touched]  # a row repeated is added once (fancy indexing)
            best[touched] = 0.0
    return total


@lru_cache(maxsize=4096)
def _chunk_terms(text: str) -> tuple[str, frozenset[str], dict[str, str]]:
    """``(text with CJK line wraps joined, its keyword tokens, English stem → the chunk's first
    word with that stem)`` for :func:`matched_terms`; cached by text (the same chunks come back
    for many questions). The dict is shared: read it, never change it."""
    text = join_cjk_lines(text)
    surface: dict[str, str] = {}
    for w in english_words(text):
        surface.setdefault(stem(w), w)
    return text, frozenset(document_tokens(text)), surface


def matched_terms(query: str, text: str, lang: str, sets: dict[str, list[TermSet]], limit: int = 8) -> list[str]:
    """Query terms found in a chunk, for display: the query's own Chinese as it occurs in the
    chunk, the query's own English words, and translations as ``"特惠 (ex gratia)"``.

    Args:
        query: the query in keyword form; text: the chunk's search text; lang: its language;
        sets: ``KeywordHits.term_sets``; limit: most terms returned.
    """
    text, have, surface = _chunk_terms(text)
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

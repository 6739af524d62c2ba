"""The keyword index's data: an inverted index of tokenised chunks in memory, changed chunk by
chunk — adding or removing a chunk costs its own terms, never the collection's.

* **Rows.** Every chunk taken in gets a row number (never reused while the process lives): its
  id, metadata, term ids with their counts, length in tokens, and the codes the filters test
  (language, department, visibility, document, strategy, topic section). A removed chunk's row
  is only marked dead.
* **Postings.** Per term, the rows that hold it (ascending) and how often, in growable arrays; a
  term's document frequency counts its live rows. Dead rows are skipped when a term is read and
  dropped from a term's arrays once they are half of them.
* **Order.** Documents keep the order they arrived in (a document that is indexed again keeps
  its place), chunks the order they were given in: ``(document sequence, position)``. The
  order breaks ties between equal keyword scores, exactly as the order of a full build from
  Chroma's scan does.
* **BM25.** Lucene's variant (k1 1.5, b 0.75) as ``bm25s`` computes it: IDF rounded to
  float32, each posting's score rounded to float32; N and the mean length are the live
  chunks'. A term's scores are computed when a query reads it, from the current statistics.

Writers hold :attr:`ChunkIndex.lock` for writing while they change it (``replace``), readers
(``keyword_index``) hold it for reading while they score; a query therefore sees one
consistent state, never a document half taken in.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from services.query.gazetteer import DocumentName, Gazetteer
from services.query.postings import Growable, ReadWriteLock, TermTable
from shared.scope import DEFAULT_DEPARTMENT, SHARED, Scope

K1 = 1.5
B = 0.75
ORDER_SHIFT = 32  # order key = document sequence << 32 | position within the document
DEAD_SLACK = 16  # a term's dead postings are dropped once they outnumber its live ones by this many
_COLUMNS = ("_length", "_order", "_lang", "_dept", "_shared", "_doc", "_strategy", "_topic")
"""Per-row arrays, in the order of ``ChunkIndex._fields``."""


@dataclass(frozen=True)
class ChunkTokens:
    """A chunk as the index takes it in: id, metadata, its terms (sorted unique ids of a
    ``TermTable``, ``int32``) with their counts, its length (tokens, repeats counted: BM25's
    document length), for a document's first chunk the document's name (``gazetteer``), and
    ``key``: a digest of what the tokens were made from (text, language, first chunk or not),
    so a chunk seen before need not be tokenised again."""

    chunk_id: str
    meta: dict[str, Any]
    terms: np.ndarray
    counts: np.ndarray
    length: int
    name: DocumentName | None = None
    key: bytes = b""


@dataclass
class _Document:
    seq: int
    code: int
    rows: list[int] = field(default_factory=list)


class Interner:
    """Values (``None`` included) → small integer codes, in the order first seen."""

    def __init__(self) -> None:
        self._codes: dict[Any, int] = {}

    def code(self, value: Any) -> int:
        """The code of ``value``, assigned now if it has none."""
        got = self._codes.get(value)
        if got is None:
            got = self._codes[value] = len(self._codes)
        return got

    def get(self, value: Any) -> int | None:
        """The code of ``value``; ``None`` when it was never seen."""
        return self._codes.get(value)

    def __len__(self) -> int:
        return len(self._codes)


RowFilter = Callable[[np.ndarray], np.ndarray]
"""Rows (``int`` array) → which of them pass (``bool`` array of the same length)."""


class ChunkIndex:
    """Rows of tokenised chunks, postings per term, document order and the gazetteer.

    Args:
        terms: the term table (shared with the gazetteer; ids never change).
    """

    def __init__(self, terms: TermTable | None = None) -> None:
        self.terms = terms if terms is not None else TermTable()
        self.lock = ReadWriteLock()
        self.gazetteer = Gazetteer(terms=self.terms)
        self._reset()

    def _reset(self) -> None:
        self._ids: list[str | None] = []
        self._metas: list[dict[str, Any] | None] = []
        self._keys: list[bytes] = []
        self._row_terms: list[np.ndarray | None] = []
        self._row_counts: list[np.ndarray | None] = []
        self._names: dict[int, DocumentName] = {}
        self._alive = Growable(np.bool_)
        self._length = Growable(np.int32)
        self._order = Growable(np.int64)
        self._lang = Growable(np.int32)
        self._dept = Growable(np.int32)
        self._shared = Growable(np.bool_)
        self._doc = Growable(np.int32)
        self._strategy = Growable(np.int32)
        self._topic = Growable(np.int32)
        self._position: dict[str, int] = {}
        self._by_key: dict[bytes, int] = {}
        self._docs: dict[str, _Document] = {}
        self._doc_codes, self._langs, self._depts = Interner(), Interner(), Interner()
        self._strategies, self._topics = Interner(), Interner()
        self._next_seq = 0
        self._post_rows: list[np.ndarray] = []
        self._post_tf: list[np.ndarray] = []
        self._used = Growable(np.int32)
        self._df = Growable(np.int32)
        self.chunk_count = 0
        self.total_length = 0
        self._dept_counts: dict[int, int] = {}
        self._shared_count = 0

    # --- reading (hold ``lock`` for reading around these) ---------------------------------
    @property
    def document_count(self) -> int:
        """Documents with at least one chunk."""
        return len(self._docs)

    def document_ids(self) -> list[str]:
        """Document ids in index order."""
        return sorted(self._docs, key=lambda d: self._docs[d].seq)

    def ordered_rows(self) -> np.ndarray:
        """Live rows in index order (documents in arrival order, chunks in their order)."""
        rows = np.flatnonzero(self._alive.view())
        return rows[np.argsort(self._order.view()[rows], kind="stable")]

    @property
    def rows(self) -> int:
        """Rows ever taken in (live and dead): the length of an array over the rows."""
        return len(self._ids)

    def chunk_id(self, row: int) -> str:
        """The id of a live row."""
        cid = self._ids[row]
        assert cid is not None
        return cid

    def id_at(self, row: int) -> str | None:
        """The id of a row (``None``: removed since)."""
        return self._ids[row]

    def meta(self, row: int) -> dict[str, Any]:
        """The metadata of a live row."""
        meta = self._metas[row]
        assert meta is not None
        return meta

    def row_of(self, chunk_id: str) -> int | None:
        """The live row of ``chunk_id`` (``None``: not in the index)."""
        return self._position.get(chunk_id)

    def order_of(self, rows: np.ndarray) -> np.ndarray:
        """Order keys of ``rows`` (index order: ascending)."""
        return np.asarray(self._order.view()[rows])

    def lang_code(self, lang: str) -> int | None:
        """The code of a language (``lang`` metadata); ``None`` when no chunk ever had it."""
        return self._langs.get(lang)

    def langs_of(self, rows: np.ndarray) -> np.ndarray:
        """Language codes of ``rows``."""
        return np.asarray(self._lang.view()[rows])

    def term_id(self, term: str) -> int | None:
        """The id of a term some live chunk holds (``None`` otherwise)."""
        tid = self.terms.get(term)
        if tid is None or tid >= len(self._df) or self._df.view()[tid] <= 0:
            return None
        return tid

    def document_frequency(self, term: str) -> int:
        """Live chunks holding ``term`` (0 for a term no chunk holds)."""
        tid = self.terms.get(term)
        return int(self._df.view()[tid]) if tid is not None and tid < len(self._df) else 0

    def rows_with(self, tid: int) -> np.ndarray:
        """Live rows holding term ``tid``, ascending."""
        return self._postings(tid)[0]

    def _postings(self, tid: int) -> tuple[np.ndarray, np.ndarray]:
        used = int(self._used.view()[tid])
        rows, tf = self._post_rows[tid][:used], self._post_tf[tid][:used]
        if self._df.view()[tid] < used:
            live = self._alive.view()[rows]
            rows, tf = rows[live], tf[live]
        return rows, tf

    def token_scores(self, tid: int) -> tuple[np.ndarray, np.ndarray]:
        """BM25 scores of term ``tid`` in the live rows holding it: ``(rows ascending, float64
        scores)``, each score the float32 value ``bm25s`` stores for it (Lucene variant)."""
        rows, tf = self._postings(tid)
        df = int(self._df.view()[tid])
        n = self.chunk_count
        idf = np.float32(math.log(1 + (n - df + 0.5) / (df + 0.5)))
        avgdl = self.total_length / n
        tf64 = tf.astype(np.float64)
        tfc = tf64 / (K1 * ((1 - B) + B * self._length.view()[rows].astype(np.float64) / avgdl) + tf64)
        return rows, (np.float64(idf) * tfc).astype(np.float32).astype(np.float64)

    def row_filter(self, document_ids: Sequence[str] | None = None, strategy: str | None = None,
                   topic_section: str | None = None, departments: Scope = None) -> RowFilter | None:
        """Which rows pass the query filters (same meaning as the query API's: any of
        ``document_ids``, the chunk's ``strategy_type``, its exact ``topic_section``, the
        caller's scope — ``shared.scope``: the scope's departments or the shared library);
        ``None`` when nothing is filtered."""
        if not (document_ids or strategy or topic_section) and departments is None:
            return None
        tests: list[RowFilter] = []
        if document_ids:
            tests.append(_among(self._doc, self._doc_codes, document_ids))
        if strategy:
            tests.append(_among(self._strategy, self._strategies, [strategy]))
        if topic_section:
            tests.append(_among(self._topic, self._topics, [topic_section]))
        if departments is not None:
            in_scope = _among(self._dept, self._depts, departments)
            tests.append(lambda r: self._shared.view()[r] | in_scope(r))

        def passes(rows: np.ndarray) -> np.ndarray:
            ok = tests[0](rows)
            for test in tests[1:]:
                ok &= test(rows)
            return ok
        return passes

    def scope_count(self, departments: Scope) -> int:
        """Live chunks in a caller's scope (``shared.scope``: the departments' and the shared
        library's; ``None``: every chunk), from counts kept per department."""
        if departments is None:
            return self.chunk_count
        codes = {c for d in departments if (c := self._depts.get(d)) is not None}
        return self._shared_count + sum(self._dept_counts.get(c, 0) for c in codes)

    def cached_tokens(self, key: bytes) -> tuple[np.ndarray, np.ndarray, int, DocumentName | None] | None:
        """The terms, counts, length and name of a live chunk made from the same content
        (``ChunkTokens.key``), if any."""
        row = self._by_key.get(key)
        if row is None:
            return None
        terms, counts = self._row_terms[row], self._row_counts[row]
        assert terms is not None and counts is not None
        return terms, counts, int(self._length.view()[row]), self._names.get(row)

    def document_chunks(self, document_id: str) -> list[ChunkTokens]:
        """A document's chunks as taken in, in their order (empty when unknown)."""
        doc = self._docs.get(document_id)
        return [self._tokens_of(r) for r in doc.rows] if doc is not None else []

    def _tokens_of(self, row: int) -> ChunkTokens:
        terms, counts = self._row_terms[row], self._row_counts[row]
        assert terms is not None and counts is not None
        return ChunkTokens(self.chunk_id(row), self.meta(row), terms, counts, int(self._length.view()[row]),
                           self._names.get(row), self._keys[row])

    def document_seq(self, document_id: str) -> int | None:
        """A document's place in the index order (``None``: not held)."""
        doc = self._docs.get(document_id)
        return doc.seq if doc is not None else None

    def positions(self, document_id: str) -> list[int]:
        """The positions (order within the document) of a document's chunks, in their order."""
        doc = self._docs.get(document_id)
        mask = (1 << ORDER_SHIFT) - 1
        return [int(self._order.view()[r]) & mask for r in doc.rows] if doc is not None else []

    # --- writing (``replace`` and ``bulk`` take the lock themselves) ----------------------
    def replace(self, documents: Mapping[str, Sequence[ChunkTokens]] | None = None,
                removed_chunks: Iterable[str] = ()) -> set[str]:
        """Apply one batch under the write lock: each document of ``documents`` gets exactly the
        chunks given (none: it is removed; a known document keeps its place, a new one goes
        last; the same chunks again change nothing), then ``removed_chunks`` are dropped (a
        document left without chunks goes). Returns the ids of the documents that changed."""
        changed: set[str] = set()
        with self.lock.writing():
            for doc_id, chunks in (documents or {}).items():
                if self._set_document(doc_id, list(chunks)):
                    changed.add(doc_id)
            by_doc: dict[str, set[str]] = {}
            for cid in removed_chunks:
                row = self._position.get(cid)
                if row is not None:
                    by_doc.setdefault(str(self.meta(row).get("document_id", "")), set()).add(cid)
            for doc_id, gone in by_doc.items():
                doc = self._docs[doc_id]
                self._gazetteer_out(doc_id, doc)
                kept = []
                for row in doc.rows:
                    if self.chunk_id(row) in gone:
                        self._remove_row(row)
                    else:
                        kept.append(row)
                doc.rows = kept
                if kept:
                    self._gazetteer_in(doc_id, doc)
                else:
                    del self._docs[doc_id]
                changed.add(doc_id)
        return changed

    def _set_document(self, doc_id: str, chunks: list[ChunkTokens]) -> bool:
        doc = self._docs.get(doc_id)
        if doc is not None:
            same = len(doc.rows) == len(chunks) and all(
                self._ids[r] == c.chunk_id and self._keys[r] == c.key and c.key and self._metas[r] == c.meta
                for r, c in zip(doc.rows, chunks, strict=True))
            if same:
                return False
            self._gazetteer_out(doc_id, doc)
            for row in doc.rows:
                self._remove_row(row)
            doc.rows = []
        if not chunks:
            if doc is not None:
                del self._docs[doc_id]
            return doc is not None
        if doc is None:
            doc = self._docs[doc_id] = _Document(self._next_seq, self._doc_codes.code(doc_id))
            self._next_seq += 1
        self._grow_terms()
        for position, chunk in enumerate(chunks):
            doc.rows.append(self._add_row(chunk, doc, position))
        self._gazetteer_in(doc_id, doc)
        return True

    def _gazetteer_in(self, doc_id: str, doc: _Document) -> None:
        name = self._name_of(doc)
        if name is not None:
            self.gazetteer.add(doc_id, name, self._body(doc))

    def _gazetteer_out(self, doc_id: str, doc: _Document) -> None:
        if doc_id in self.gazetteer.names:
            self.gazetteer.remove(doc_id, self._body(doc))

    def _body(self, doc: _Document) -> np.ndarray:
        parts = [t for r in doc.rows if (t := self._row_terms[r]) is not None]
        return np.unique(np.concatenate(parts)).astype(np.int32) if parts else np.zeros(0, dtype=np.int32)

    def _grow_terms(self) -> None:
        missing = len(self.terms) - len(self._post_rows)
        if missing > 0:
            empty_rows, empty_tf = np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.uint16)
            self._post_rows.extend([empty_rows] * missing)
            self._post_tf.extend([empty_tf] * missing)
            self._used.extend(np.zeros(missing, dtype=np.int32))
            self._df.extend(np.zeros(missing, dtype=np.int32))

    def _fields(self, chunk: ChunkTokens, doc: _Document, position: int) -> tuple[int, ...]:
        """A row's values of :data:`_COLUMNS`."""
        m = chunk.meta
        return (chunk.length, (doc.seq << ORDER_SHIFT) | position, self._langs.code(str(m.get("lang", ""))),
                self._depts.code(m.get("department") or DEFAULT_DEPARTMENT),
                int((m.get("visibility") or "department") == SHARED), doc.code,
                self._strategies.code(m.get("strategy_type")), self._topics.code(m.get("topic_section")))

    def _row_values(self, chunk: ChunkTokens, fields: tuple[int, ...]) -> int:
        """Take in a row's id, metadata, terms and name and count it (not its columns); returns
        the row."""
        row = len(self._ids)
        self._ids.append(chunk.chunk_id)
        self._metas.append(chunk.meta)
        self._keys.append(chunk.key)
        self._row_terms.append(chunk.terms)
        self._row_counts.append(chunk.counts)
        self._position[chunk.chunk_id] = row
        if chunk.key:
            self._by_key[chunk.key] = row
        if chunk.name is not None:
            self._names[row] = chunk.name
        if fields[4]:
            self._shared_count += 1
        else:
            self._dept_counts[fields[3]] = self._dept_counts.get(fields[3], 0) + 1
        self.chunk_count += 1
        self.total_length += chunk.length
        return row

    def _add_row(self, chunk: ChunkTokens, doc: _Document, position: int) -> int:
        fields = self._fields(chunk, doc, position)
        row = self._row_values(chunk, fields)
        self._alive.append(True)
        for name, value in zip(_COLUMNS, fields, strict=True):
            getattr(self, name).append(value)
        used, df = self._used.view(), self._df.view()
        for tid, count in zip(chunk.terms.tolist(), chunk.counts.tolist(), strict=True):
            n = int(used[tid])
            rows, tf = self._post_rows[tid], self._post_tf[tid]
            if n == len(rows):
                cap = n + n // 2 + 4
                grown_rows, grown_tf = np.empty(cap, dtype=np.int32), np.empty(cap, dtype=np.uint16)
                grown_rows[:n], grown_tf[:n] = rows[:n], tf[:n]
                rows = self._post_rows[tid] = grown_rows
                tf = self._post_tf[tid] = grown_tf
            rows[n] = row
            tf[n] = min(count, 65535)
            used[tid] = n + 1
            df[tid] += 1
        return row

    def _remove_row(self, row: int) -> None:
        terms = self._row_terms[row]
        assert terms is not None
        self._alive.view()[row] = False
        self.chunk_count -= 1
        self.total_length -= int(self._length.view()[row])
        if self._shared.view()[row]:
            self._shared_count -= 1
        else:
            self._dept_counts[int(self._dept.view()[row])] -= 1
        df, used = self._df.view(), self._used.view()
        df[terms] -= 1
        alive = self._alive.view()
        for tid in terms[(used[terms] - df[terms]) - df[terms] > DEAD_SLACK].tolist():
            n = int(used[tid])
            live = alive[self._post_rows[tid][:n]]
            self._post_rows[tid] = self._post_rows[tid][:n][live].copy()
            self._post_tf[tid] = self._post_tf[tid][:n][live].copy()
            used[tid] = len(self._post_rows[tid])
        cid = self._ids[row]
        if cid is not None and self._position.get(cid) == row:
            del self._position[cid]
        key = self._keys[row]
        if key and self._by_key.get(key) == row:
            del self._by_key[key]
        self._names.pop(row, None)
        self._ids[row] = None
        self._metas[row] = None
        self._row_terms[row] = None
        self._row_counts[row] = None

    def bulk(self, documents: Iterable[tuple[str, int, Sequence[tuple[int, ChunkTokens]]]]) -> None:
        """Replace everything with ``documents`` — ``(document id, sequence, [(position, chunk)])``
        in index order — building the postings in one pass (a start from a saved index, a
        full load), under the write lock."""
        with self.lock.writing():
            self._reset()
            self.gazetteer = Gazetteer(terms=self.terms)
            self._grow_terms()
            term_parts: list[np.ndarray] = []
            count_parts: list[np.ndarray] = []
            columns: list[tuple[int, ...]] = []
            for doc_id, seq, chunks in documents:
                if not chunks:
                    continue
                doc = self._docs[doc_id] = _Document(seq, self._doc_codes.code(doc_id))
                self._next_seq = max(self._next_seq, seq + 1)
                for position, chunk in chunks:
                    fields = self._fields(chunk, doc, position)
                    doc.rows.append(self._row_values(chunk, fields))
                    columns.append(fields)
                    term_parts.append(chunk.terms)
                    count_parts.append(chunk.counts)
            if columns:
                table = np.array(columns, dtype=np.int64)
                self._alive.extend(np.ones(len(table), dtype=np.bool_))
                for n, name in enumerate(_COLUMNS):
                    getattr(self, name).extend(table[:, n])
            self._grow_terms()
            if term_parts:
                tids = np.concatenate(term_parts)
                rows = np.repeat(np.arange(len(term_parts), dtype=np.int32), [len(t) for t in term_parts])
                order = np.argsort(tids, kind="stable")
                rows = rows[order]
                tfs = np.minimum(np.concatenate(count_parts)[order], 65535).astype(np.uint16)
                counts = np.bincount(tids, minlength=len(self.terms)).astype(np.int32)
                bounds = np.concatenate([[0], np.cumsum(counts)]).tolist()
                self._post_rows = [rows[bounds[t]:bounds[t + 1]] for t in range(len(self.terms))]
                self._post_tf = [tfs[bounds[t]:bounds[t + 1]] for t in range(len(self.terms))]
                self._used.view()[:] = counts
                self._df.view()[:] = counts
            self.gazetteer.bulk([(doc_id, doc_name, self._body(doc)) for doc_id, doc in self._docs.items()
                                 if (doc_name := self._name_of(doc)) is not None])

    def _name_of(self, doc: _Document) -> DocumentName | None:
        return next((self._names[r] for r in doc.rows if r in self._names), None)


def _among(column: Growable, codes: Interner, values: Iterable[Any]) -> RowFilter:
    """A filter: the rows whose ``column`` holds the code of one of ``values`` (a look-up table
    over the codes, so testing a row costs two array reads)."""
    table = np.zeros(len(codes), dtype=bool)  # read under the read lock: no code is added meanwhile
    table[[c for v in values if (c := codes.get(v)) is not None]] = True
    return lambda rows: np.asarray(table[column.view()[rows]])

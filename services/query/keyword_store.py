"""The keyword index on disk: every chunk's tokens (term ids and counts), metadata and document
name in a SQLite file, with the index generation and the Kafka offsets up to which the file
reflects the index events — so a restarted query service reads its index back (seconds at
100,000 chunks) instead of scanning Chroma and tokenising every chunk again (~6 ms a chunk on
an idle core: ten minutes at 100,000).

The file is a copy of the in-memory index (``chunk_index``), written as it changes: each batch
of index events is one transaction (the documents it changed), then the offsets after the
batch (``save_positions``). The offsets are written only after the changes they cover, so the
file never claims more than it holds; a crash in between makes the next start apply a few
events again, which is harmless (``follow.py``). A full load writes everything and marks the
file incomplete until the generation and offsets of the load are written (``commit``); an
incomplete file is never restored from, but its tokens still spare the next full load the
tokenising of chunks it holds (``KeywordIndex.load`` takes them by content).

One file per replica (``keywords-<QUERY_INSTANCE>.sqlite3`` in ``QUERY_INDEX_DIR``), held with
an exclusive lock: a second process on the same file runs without one (``open_store``).
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import re
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from services.query.chunk_index import ORDER_SHIFT, ChunkIndex, ChunkTokens
from services.query.gazetteer import DocumentName

log = logging.getLogger("legco.query.store")

FORMAT = "1"
Offsets = dict[tuple[str, int], int]
"""``(topic, partition)`` → the next offset to apply."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS offsets (topic TEXT NOT NULL, partition INTEGER NOT NULL, next INTEGER NOT NULL,
                                    PRIMARY KEY (topic, partition));
CREATE TABLE IF NOT EXISTS terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (document_id TEXT PRIMARY KEY, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (chunk_id TEXT PRIMARY KEY, document_id TEXT NOT NULL, position INTEGER NOT NULL,
                                   meta TEXT NOT NULL, terms BLOB NOT NULL, counts BLOB NOT NULL,
                                   length INTEGER NOT NULL, key BLOB NOT NULL, name TEXT);
CREATE INDEX IF NOT EXISTS chunks_by_document ON chunks (document_id);
"""


@dataclass(frozen=True)
class StoreState:
    """What a store file says it holds: ``complete`` (a load finished and was committed), the
    index ``generation`` it was built from (``IndexGeneration.metadata()``; ``None``: not
    committed) and the offsets it reflects the events up to."""

    complete: bool
    generation: dict[str, Any] | None
    offsets: Offsets


def _name_json(name: DocumentName | None) -> str | None:
    if name is None:
        return None
    return json.dumps({"terms": sorted(name.terms), "parts": {k: sorted(v) for k, v in name.parts.items()}},
                      ensure_ascii=False)


def _name_of(text: str | None) -> DocumentName | None:
    if text is None:
        return None
    raw = json.loads(text)
    return DocumentName(frozenset(raw["terms"]), {k: frozenset(v) for k, v in raw["parts"].items()})


class KeywordStore:
    """A SQLite file holding a keyword index (module docstring).

    Args:
        path: the file (``":memory:"``: a store that lives as long as the object, for tests).

    Raises:
        sqlite3.Error: the file cannot be opened or is not a store.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            if self._get("format") not in (None, FORMAT):  # written by another version: start over
                self._db.executescript("DELETE FROM meta; DELETE FROM offsets; DELETE FROM terms; "
                                       "DELETE FROM documents; DELETE FROM chunks;")
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (FORMAT,))
            self._saved_terms = int(self._db.execute("SELECT COUNT(*) FROM terms").fetchone()[0])

    def close(self) -> None:
        """Close the file."""
        self._db.close()

    def _get(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # --- state -------------------------------------------------------------------------
    def state(self) -> StoreState:
        """Whether the file is complete, its generation and offsets."""
        with self._lock:
            generation = self._get("generation")
            complete = self._get("complete") == "1"
            offsets = {(str(t), int(p)): int(n) for t, p, n in
                       self._db.execute("SELECT topic, partition, next FROM offsets")}
        return StoreState(complete, json.loads(generation) if generation else None, offsets)

    def commit(self, generation: Mapping[str, Any], offsets: Offsets) -> None:
        """Mark a full load as complete: it is of ``generation`` and reflects every event below
        ``offsets``."""
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (json.dumps(dict(generation)),))
            self._write_offsets(db, offsets)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('complete', '1')")

    def save_positions(self, offsets: Offsets) -> None:
        """The offsets up to which the file now reflects the events (after the changes they
        cover were saved)."""
        with self._transaction() as db:
            self._write_offsets(db, offsets)

    @staticmethod
    def _write_offsets(db: sqlite3.Connection, offsets: Offsets) -> None:
        db.execute("DELETE FROM offsets")
        db.executemany("INSERT INTO offsets VALUES (?, ?, ?)", [(t, p, n) for (t, p), n in offsets.items()])

    # --- chunks ------------------------------------------------------------------------
    def _write_terms(self, db: sqlite3.Connection, index: ChunkIndex) -> None:
        terms = index.terms.terms
        if len(terms) > self._saved_terms:
            db.executemany("INSERT INTO terms VALUES (?, ?)",
                           [(n, terms[n]) for n in range(self._saved_terms, len(terms))])
            self._saved_terms = len(terms)

    @staticmethod
    def _write_document(db: sqlite3.Connection, index: ChunkIndex, document_id: str) -> None:
        db.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))
        seq = index.document_seq(document_id)
        if seq is None:
            db.execute("DELETE FROM documents WHERE document_id = ?", (document_id,))
            return
        db.execute("INSERT OR REPLACE INTO documents VALUES (?, ?)", (document_id, seq))
        db.executemany("INSERT OR REPLACE INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [
            (c.chunk_id, document_id, position, json.dumps(c.meta, ensure_ascii=False),
             c.terms.astype("<i4").tobytes(), np.minimum(c.counts, 65535).astype("<u2").tobytes(), c.length,
             c.key, _name_json(c.name))
            for position, c in zip(index.positions(document_id), index.document_chunks(document_id), strict=True)])

    def save_documents(self, index: ChunkIndex, document_ids: set[str]) -> None:
        """Write the current state of some documents of ``index`` (gone from it: deleted here),
        and any new terms, in one transaction."""
        with self._transaction() as db:
            self._write_terms(db, index)
            for doc_id in sorted(document_ids):
                self._write_document(db, index, doc_id)

    def save_all(self, index: ChunkIndex) -> None:
        """Replace the file's contents with ``index``, marked incomplete until :meth:`commit`."""
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('complete', '0')")
            db.execute("DELETE FROM meta WHERE key = 'generation'")
            db.execute("DELETE FROM chunks")
            db.execute("DELETE FROM documents")
            db.execute("DELETE FROM terms")
            self._saved_terms = 0
            self._write_terms(db, index)
            for doc_id in index.document_ids():
                self._write_document(db, index, doc_id)

    def load_into(self, index: ChunkIndex) -> bool:
        """Fill an empty ``index`` (and its term table) from the file, in index order. Returns
        ``False`` (nothing changed) when the file holds no term table."""
        with self._lock:
            terms = [str(t) for (t,) in self._db.execute("SELECT term FROM terms ORDER BY id")]
            if not terms and self._db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]:
                return False
            index.terms.restore(terms)
            documents: list[tuple[str, int, list[tuple[int, ChunkTokens]]]] = []
            for doc_id, seq, position, cid, meta, tids, counts, length, key, name in self._db.execute(
                    "SELECT d.document_id, d.seq, c.position, c.chunk_id, c.meta, c.terms, c.counts, c.length, c.key, "
                    "c.name FROM chunks c JOIN documents d ON d.document_id = c.document_id "
                    "ORDER BY d.seq, c.position"):  # streamed: the blobs are never all in memory twice
                if not documents or documents[-1][0] != doc_id:
                    documents.append((doc_id, int(seq), []))
                chunk = ChunkTokens(cid, json.loads(meta), np.frombuffer(tids, dtype="<i4").astype(np.int32),
                                    np.frombuffer(counts, dtype="<u2").astype(np.int32), int(length),
                                    _name_of(name), bytes(key))
                documents[-1][2].append((int(position), chunk))
        assert all(p < (1 << ORDER_SHIFT) for d in documents for p, _ in d[2])
        index.bulk(documents)
        return True


def store_path(directory: Path, instance: str) -> Path:
    """``<directory>/keywords-<instance>.sqlite3`` (characters other than letters, digits, ``-``,
    ``_`` and ``.`` of the instance replaced by ``_``)."""
    return directory / f"keywords-{re.sub(r'[^A-Za-z0-9_.-]', '_', instance)}.sqlite3"


_HELD: dict[str, IO[bytes]] = {}


def open_store(directory: Path | str | None, instance: str) -> KeywordStore | None:
    """The store of replica ``instance`` in ``directory`` (created if missing), locked for this
    process; ``None`` (memory only, with a warning) when no directory is set, the file is held
    by another process or cannot be opened."""
    if not directory:
        return None
    path = store_path(Path(directory), instance)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = path.with_suffix(".lock").open("ab")
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            log.warning("keyword index file %s is held by another process; this one keeps its index in memory "
                        "only (a restart scans Chroma)", path)
            return None
        _HELD[str(path)] = lock
        return KeywordStore(path)
    except (OSError, sqlite3.Error) as e:
        log.warning("keyword index file %s cannot be used (%s: %s); keeping the index in memory only", path,
                    type(e).__name__, e)
        return None

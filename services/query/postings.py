"""Building blocks of the in-memory keyword index (``chunk_index``): a growable numpy array, a
term table shared by the index and the gazetteer, and a readers-writer lock.

Nothing here knows about chunks or BM25; see ``chunk_index`` for how they are used.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import numpy as np

from services.query.keyword_tokens import HAN

_CJK_START = re.compile(f"[{HAN}]")


class Growable:
    """A 1-D numpy array with amortised O(1) appends (capacity grows by half when full).

    ``view()`` is the used part: a view, valid until the next append that grows the buffer (a
    grown buffer is a new array; views taken before keep the old one).

    Args:
        dtype: the element type; capacity: initial capacity (elements).
    """

    def __init__(self, dtype: type | np.dtype, capacity: int = 16) -> None:
        self._buf = np.zeros(max(capacity, 1), dtype=dtype)
        self.size = 0

    def _reserve(self, n: int) -> None:
        if n > len(self._buf):
            grown = np.zeros(max(n, len(self._buf) + len(self._buf) // 2 + 16), dtype=self._buf.dtype)
            grown[:self.size] = self._buf[:self.size]
            self._buf = grown

    def append(self, value: object) -> int:
        """Append one element; returns its index."""
        self._reserve(self.size + 1)
        self._buf[self.size] = value
        self.size += 1
        return self.size - 1

    def extend(self, values: np.ndarray) -> None:
        """Append every element of ``values`` (converted to the array's type)."""
        self._reserve(self.size + len(values))
        self._buf[self.size:self.size + len(values)] = values
        self.size += len(values)

    def view(self) -> np.ndarray:
        """The used elements (a view of the buffer)."""
        return self._buf[:self.size]

    def __len__(self) -> int:
        return self.size


class TermTable:
    """Terms (index tokens, gazetteer name terms) ↔ dense integer ids, never reused; and for each
    id whether the term is Chinese (it starts with a CJK ideograph: the gazetteer weighs terms per
    script). Ids are assigned in the order terms are first seen."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self.terms: list[str] = []
        self.cjk = Growable(np.bool_, 1024)

    def id(self, term: str) -> int:
        """The id of ``term``, assigned now if it has none."""
        tid = self._ids.get(term)
        if tid is None:
            tid = self._ids[term] = len(self.terms)
            self.terms.append(term)
            self.cjk.append(bool(_CJK_START.match(term)))
        return tid

    def get(self, term: str) -> int | None:
        """The id of ``term`` (``None``: never seen)."""
        return self._ids.get(term)

    def ids(self, terms: Iterable[str]) -> np.ndarray:
        """Sorted unique ids of ``terms`` (assigned where missing), ``int32``."""
        return np.unique(np.fromiter((self.id(t) for t in terms), dtype=np.int32))

    def restore(self, terms: list[str]) -> None:
        """Replace the table with ``terms`` (id = position), as a store saved them."""
        self._ids = {t: n for n, t in enumerate(terms)}
        self.terms = list(terms)
        self.cjk = Growable(np.bool_, len(terms) + 1024)
        self.cjk.extend(np.fromiter((bool(_CJK_START.match(t)) for t in terms), dtype=np.bool_, count=len(terms)))

    def __len__(self) -> int:
        return len(self.terms)


class ReadWriteLock:
    """Many readers at once, or one writer; a waiting writer stops new readers (so a stream of
    queries cannot starve an index update)."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0

    def __reduce__(self) -> tuple[type[ReadWriteLock], tuple[()]]:
        """Pickled as a new, unheld lock (``bench/retrieval_fit.py --cache`` saves a gazetteer)."""
        return (ReadWriteLock, ())

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Hold the lock for reading."""
        with self._cond:
            while self._writing or self._writers_waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the lock for writing (alone)."""
        with self._cond:
            self._writers_waiting += 1
            while self._writing or self._readers:
                self._cond.wait()
            self._writers_waiting -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()

"""A bounded in-memory cache of stored vectors, so candidate searches need not pull 384 floats
per candidate from Chroma on every query.

Keys are ``(collection kind, record id, vector_sha)``: ``vector_sha`` (metadata written by the
embedder) is a hash of the exact text that was embedded, so a re-embedded record with new
content never hits a stale entry. Least recently used entries are dropped beyond ``max_items``.
"""
from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

Key = tuple[str, str, str]


class VectorCache:
    """LRU map ``Key`` → vector (``np.float32``, shape ``(d,)``); thread-safe.

    Args:
        max_items: most vectors kept (384-dim float32: 1.5 KB each, 100 000 ≈ 150 MB).
    """

    def __init__(self, max_items: int = 100_000) -> None:
        self.max_items = max_items
        self._data: OrderedDict[Key, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Key) -> np.ndarray | None:
        """The cached vector for ``key`` or ``None``."""
        with self._lock:
            v = self._data.get(key)
            if v is not None:
                self._data.move_to_end(key)
            return v

    def put(self, key: Key, vector: object) -> np.ndarray:
        """Store ``vector`` under ``key``; returns it as a float32 array."""
        arr = np.asarray(vector, dtype=np.float32)
        with self._lock:
            self._data[key] = arr
            self._data.move_to_end(key)
            while len(self._data) > self.max_items:
                self._data.popitem(last=False)
        return arr

    def __len__(self) -> int:
        return len(self._data)

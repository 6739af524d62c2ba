"""Whole answers of repeated questions, valid until the index changes.

An answer depends on everything the query service holds (the keyword index, the language means,
the generation it searches, whether the keyword side is ready) and on Chroma; all of that
changes only through the index events ``follow.py`` applies (and the warm-up). So the cache is
dropped on every change, and — the race this guards against — an answer computed while a change
was being applied is never stored:

* the cache has a *generation*, a counter raised by :meth:`AnswerCache.invalidate`, which the
  follower calls after it has applied a batch of events (after the keyword index and the means
  hold it), after a switch or a full load, and the warm-up calls when the keyword side becomes
  ready;
* a request notes the generation before it reads any state (:meth:`AnswerCache.generation`)
  and stores its answer under it (:meth:`AnswerCache.put`): stored only if no change came in
  between, and a stored answer is served only while its generation is current.

Without the guard, a question asked while a new document's event was being applied could read
the old keyword index, finish after the cache was dropped and store its stale "not found" for
good (``tests/e2e/test_keyword_events_e2e.py`` polls exactly that way).

Values are the response's JSON bytes, so a hit costs neither scoring nor serialisation. Keys are
the whole request (question as typed, ``top_k``, filters, the caller's departments), so one
department never gets another's answer.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import NamedTuple


class CachedAnswer(NamedTuple):
    """A stored response: its ``answer_mode`` (for the metrics) and its JSON bytes."""

    mode: str
    body: bytes


class AnswerCache:
    """LRU map request key → ``CachedAnswer``, for one index generation at a time; thread-safe
    (the follower invalidates from a worker thread).

    Args:
        max_items: most answers kept (a response is 5-30 KB); 0 turns the cache off.
    """

    def __init__(self, max_items: int = 1024) -> None:
        self.max_items = max(0, max_items)
        self.hits = 0
        self.misses = 0
        self._generation = 0
        self._items: OrderedDict[str, tuple[int, CachedAnswer]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def generation(self) -> int:
        """The current generation (note it before reading the state an answer comes from)."""
        return self._generation

    def invalidate(self) -> None:
        """The index changed: drop every answer, and refuse those computed before now."""
        with self._lock:
            self._generation += 1
            self._items.clear()

    def get(self, key: str) -> CachedAnswer | None:
        """The stored answer for ``key`` in the current generation, or ``None``."""
        with self._lock:
            item = self._items.get(key)
            if item is None or item[0] != self._generation:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return item[1]

    def put(self, key: str, generation: int, answer: CachedAnswer) -> bool:
        """Store ``answer``, computed from the state of ``generation``; refused (``False``) when
        the index changed since."""
        if self.max_items <= 0:
            return False
        with self._lock:
            if generation != self._generation:
                return False
            self._items[key] = (generation, answer)
            self._items.move_to_end(key)
            while len(self._items) > self.max_items:
                self._items.popitem(last=False)
            return True

    def __len__(self) -> int:
        return len(self._items)

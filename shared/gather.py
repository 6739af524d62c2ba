"""What a gatherer keeps in memory: the parts done of each document in flight.

A stage that fans a document out in parts (the table stage: pages; the embedder: chunk ranges)
keys the parts' done events by document, so one gatherer sees all parts of a document and can
keep their set in memory, seeded from the stored part results for a document it does not know
(its first part, or the first event after a restart or a rebalance).
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from aiokafka import ConsumerRebalanceListener, TopicPartition


class GatherState:
    """Parts done (1-based numbers: a PDF's pages, a big document's chunk ranges) per document
    in flight on one gatherer, in memory.

    Bounded (``max_documents``, least recently used dropped first): a dropped or unknown
    document is simply seeded again from the stored part results.
    """

    def __init__(self, max_documents: int = 1000) -> None:
        self.max_documents = max_documents
        self._done: OrderedDict[str, set[int]] = OrderedDict()

    def pages(self, document_id: str) -> set[int] | None:
        """The parts known done, or ``None`` for a document this gatherer does not know."""
        done = self._done.get(document_id)
        if done is not None:
            self._done.move_to_end(document_id)
        return done

    def seed(self, document_id: str, pages: set[int]) -> set[int]:
        """Start tracking a document with the parts found stored; returns its set."""
        self._done[document_id] = pages
        while len(self._done) > self.max_documents:
            self._done.popitem(last=False)
        return pages

    def forget(self, document_id: str) -> None:
        """Stop tracking a document (gathered)."""
        self._done.pop(document_id, None)

    def forget_all(self) -> None:
        """Drop every document (after a rebalance the sets may be stale: another gatherer may
        have seen some of their parts meanwhile)."""
        self._done.clear()


class ForgetOnRebalance(ConsumerRebalanceListener):  # type: ignore[misc]  # aiokafka has no type hints
    """Kafka rebalance listener of a gatherer's subscription: any change in the partitions
    this process owns clears its :class:`GatherState` (documents are re-seeded by listing).

    Args:
        state: returns the state to clear (looked up when the rebalance happens).
    """

    def __init__(self, state: Callable[[], GatherState]) -> None:
        self._state = state

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        self._state().forget_all()

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self._state().forget_all()

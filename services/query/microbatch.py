"""Micro-batching without a timer: concurrent callers' items go to a slow dependency together.

The first item that finds no call in flight is sent at once, alone; items that arrive while a
call is in flight wait for it to return and then go together in the next call (at most
``max_batch`` a call, in arrival order). So a lone caller is never held back, and under load
the calls grow with the load instead of queueing one behind the other at the dependency. An
item equal (by ``key``) to one already waiting or in flight shares that one's result.

Used for question embeddings (``question_vectors.py``) and the Chroma candidate searches of
concurrent questions (``retrieve.CandidateSearch``).
"""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class MicroBatcher(Generic[T, R]):
    """Sends items through ``send`` (a list of items → their results, in order), batched as above.

    Args:
        send: the call to the dependency; its exception is raised to every caller of the batch.
        max_batch: most items per call (at least 1).
        key: identifies equal items (default: the item itself; it must be hashable then).

    ``calls`` counts the calls made and ``items`` the items sent.
    """

    def __init__(self, send: Callable[[list[T]], Awaitable[Sequence[R]]], max_batch: int,
                 key: Callable[[T], Hashable] | None = None) -> None:
        self.send = send
        self.max_batch = max(1, max_batch)
        self.key: Callable[[T], Hashable] = key or (lambda item: item)
        self.calls = 0
        self.items = 0
        self._waiting: dict[Hashable, tuple[T, asyncio.Future[R]]] = {}
        self._flying: dict[Hashable, tuple[T, asyncio.Future[R]]] = {}
        self._flight: asyncio.Task[None] | None = None

    async def submit(self, items: Sequence[T]) -> list[R]:
        """The results of ``items``, in order; items given together go in one call (when they
        fit in ``max_batch``)."""
        loop = asyncio.get_running_loop()
        futures: list[asyncio.Future[R]] = []
        for item in items:
            k = self.key(item)
            entry = self._flying.get(k) or self._waiting.get(k)
            if entry is None:
                entry = self._waiting[k] = (item, loop.create_future())
            futures.append(entry[1])
        if self._flight is None:
            self._flight = asyncio.create_task(self._fly(), name="micro-batch")
        # shielded: a caller that goes away (its client disconnected) does not cancel the
        # result another caller waits for
        return [await asyncio.shield(f) for f in futures]

    async def _fly(self) -> None:
        """Send the waiting items, ``max_batch`` at a time, until none wait."""
        try:
            while self._waiting:
                keys = list(self._waiting)[:self.max_batch]
                self._flying = {k: self._waiting.pop(k) for k in keys}
                self.calls += 1
                self.items += len(keys)
                try:
                    results = await self.send([item for item, _ in self._flying.values()])
                except Exception as e:  # noqa: BLE001 - handed to every caller of the batch
                    for _, f in self._flying.values():
                        if not f.done():
                            f.set_exception(e)
                            f.exception()  # marked retrieved: a caller that went away is no error
                else:
                    for (_, f), result in zip(self._flying.values(), results, strict=True):
                        if not f.done():
                            f.set_result(result)
                self._flying = {}
        except asyncio.CancelledError:  # the service stops: nobody waits for good
            for _, f in [*self._flying.values(), *self._waiting.values()]:
                if not f.done():
                    f.cancel()
            self._flying, self._waiting = {}, {}
            raise
        finally:
            self._flight = None

    @property
    def idle(self) -> bool:
        """No call in flight and nothing waiting."""
        return self._flight is None and not self._waiting

    async def close(self) -> None:
        """Cancel the call in flight and every waiting item (the service stops)."""
        flight = self._flight
        if flight is not None:
            flight.cancel()
            await asyncio.gather(flight, return_exceptions=True)

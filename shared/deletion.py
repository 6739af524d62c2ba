"""Noticing, while a stage works on a document, that the document was deleted.

The gateway writes a delete tombstone (``storage.tombstone_key``) before it deletes anything, and
removes the manifest; ``ObjectStore.document_live`` is false from then on. A stage asks before
each write and between batches or pages — through a :class:`DeletionCheck`, which asks MinIO at
most once per ``interval_s`` (two small requests), so a 300-page document costs a few checks,
not 600 — and stops with ``DocumentGone`` within about ``interval_s`` of the delete.
``shared.stage.Stage.run`` turns that into a quiet ``None``: no failure, nothing dead-lettered.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol, TypeVar

from shared.errors import DocumentGone

log = logging.getLogger("legco.deletion")
T = TypeVar("T")


class Check(Protocol):
    """``await check()``: raises ``DocumentGone`` when the document was deleted (``force``: ask
    now, not only when the last answer is older than the interval)."""

    async def __call__(self, force: bool = False) -> None: ...


async def never_gone(force: bool = False) -> None:
    """The :class:`Check` of callers outside a stage (the in-process pipeline, tests): nothing is
    ever deleted under them."""


class DeletionCheck:
    """A throttled liveness check of one document.

    Args:
        document_id: the document.
        live: asks the store whether the document is live (``Stage.document_exists``); its
            errors (MinIO down) propagate, so an outage is waited out like any other.
        interval_s: at most one question per this many seconds, unless forced.
    """

    def __init__(self, document_id: str, live: Callable[[str], Awaitable[bool]], interval_s: float) -> None:
        self.document_id = document_id
        self._live = live
        self.interval_s = interval_s
        self._asked = float("-inf")

    async def alive(self, force: bool = False) -> bool:
        """False once the document is gone (asked at most once per interval unless ``force``)."""
        now = time.monotonic()
        if not force and now - self._asked < self.interval_s:
            return True
        self._asked = now
        return await self._live(self.document_id)

    async def __call__(self, force: bool = False) -> None:
        """Raises ``DocumentGone`` once the document is gone."""
        if not await self.alive(force):
            raise DocumentGone(self.document_id)

    async def guard(self, work: Awaitable[T]) -> T:
        """Await ``work`` (a long call: an embeddings request) while asking every ``interval_s``;
        once the document is gone, ``work`` is cancelled and ``DocumentGone`` raised, so the
        stage does not wait for a request whose answer nobody needs. A failed question (MinIO
        down) is skipped, as in :meth:`watching`.

        Raises:
            DocumentGone: the document was deleted meanwhile; whatever ``work`` raises.
        """
        task = asyncio.ensure_future(work)
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=self.interval_s)
                if done:
                    return task.result()
                try:
                    live = await self.alive(force=True)
                except Exception as e:  # noqa: BLE001 - a store outage: the check is asked again
                    log.debug("deletion check of %s failed: %s", self.document_id, e)
                    continue
                if not live:
                    raise DocumentGone(self.document_id)
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    @contextlib.asynccontextmanager
    async def watching(self) -> AsyncIterator[threading.Event]:
        """While the block runs, ask every ``interval_s`` in the background; the yielded event is
        set once the document is gone, for blocking work (a thread, a child process) to poll.
        A failed question (MinIO down) is skipped: the work goes on, and its own writes meet
        the outage."""
        gone = threading.Event()

        async def poll() -> None:
            while True:
                await asyncio.sleep(self.interval_s)
                try:
                    if not await self.alive(force=True):
                        gone.set()
                        return
                except Exception as e:  # noqa: BLE001 - a store outage: the check is asked again
                    log.debug("deletion check of %s failed: %s", self.document_id, e)

        task = asyncio.create_task(poll())
        try:
            yield gone
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def guarded(check: Check, work: Awaitable[T]) -> T:
    """``work`` under ``check``: cancelled once the document is gone when ``check`` is a
    :class:`DeletionCheck` (:meth:`DeletionCheck.guard`), else simply awaited."""
    if isinstance(check, DeletionCheck):
        return await check.guard(work)
    return await work

"""A document's batches asked for ahead, so the embeddings endpoint never waits for the embedder.

Embedding one batch and writing it (Chroma upserts, a progress event) one after the other leaves
the e5 server idle while the batch is written, and between documents while the next one's chunk
set is read. :func:`embed_ahead` keeps up to ``ahead`` of a document's batches asked for at once
(their texts wait in the shared request stream, ``FairBatcher``, which sends ``in_flight``
requests at a time), and writes each batch as soon as its vectors are back — while the next ones
are being computed.

Failure: after the first batch that fails (embedding or writing), no new batch is started; the
batches already asked for are awaited and written when they succeed (their requests are at the
endpoint or queued for it, and a vector computed is worth keeping: an attempt that resumes
then redoes only the failed batch), and the first error is raised. A cancelled caller cancels
every batch still running.
"""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

B = TypeVar("B")
R = TypeVar("R")


async def embed_ahead(batches: Sequence[B], embed: Callable[[B], Awaitable[R]],
                      write: Callable[[B, R], Awaitable[None]], ahead: int) -> None:
    """Run ``embed(batch)`` for every batch, at most ``ahead`` at once, started in order, and
    ``write(batch, result)`` for each as soon as its ``embed`` returned (one write at a time,
    in the order the results come back); the next batch is asked for before a finished one is
    written, so even ``ahead=1`` embeds while it writes.

    Raises:
        the first exception of an ``embed`` or a ``write``, after every batch started has
        finished (see the module doc).
    """
    ahead = max(1, ahead)
    next_index = 0
    running: dict[asyncio.Task[R], int] = {}
    error: BaseException | None = None

    def top_up() -> None:
        nonlocal next_index
        while error is None and next_index < len(batches) and len(running) < ahead:
            running[asyncio.ensure_future(embed(batches[next_index]))] = next_index
            next_index += 1

    try:
        top_up()
        while running:
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in sorted(done, key=running.__getitem__):
                batch = batches[running.pop(task)]
                if task.cancelled():
                    error = error or asyncio.CancelledError()
                    continue
                if task.exception() is not None:
                    error = error or task.exception()
                    continue
                top_up()  # the next batch is asked for before this one is written
                try:
                    await write(batch, task.result())
                except Exception as e:  # noqa: BLE001 - raised after the batches started finish
                    error = error or e
    finally:  # only when the caller is cancelled (or a write raised BaseException): stop the rest
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)
    if error is not None:
        raise error

"""embed_ahead: a document's batches asked for ahead (at most ``ahead`` at once), each written as
soon as it is embedded while the next are computed; after a failure no new batch starts, the
batches started are finished and written, and the first error is raised."""
from __future__ import annotations

import asyncio

import pytest

from services.embedder.lookahead import embed_ahead


class Run:
    """Embeds batch n after ``delays[n]`` s (default 0.02), failing those in ``fail``; records
    the batches running at once, what was written, and whether a write overlapped an embed."""

    def __init__(self, delays: dict[int, float] | None = None, fail: set[int] | None = None,
                 fail_write: set[int] | None = None) -> None:
        self.delays = delays or {}
        self.fail = fail or set()
        self.fail_write = fail_write or set()
        self.running: set[int] = set()
        self.most = 0
        self.started: list[int] = []
        self.written: list[int] = []
        self.embedding_while_writing = 0

    async def embed(self, n: int) -> str:
        self.started.append(n)
        self.running.add(n)
        self.most = max(self.most, len(self.running))
        try:
            await asyncio.sleep(self.delays.get(n, 0.02))
            if n in self.fail:
                raise ConnectionError(f"batch {n}")
            return f"v{n}"
        finally:
            self.running.discard(n)

    async def write(self, n: int, result: str) -> None:
        assert result == f"v{n}"
        await asyncio.sleep(0.01)               # the write takes a while (a Chroma upsert)
        if self.running:                        # and a batch was being embedded meanwhile
            self.embedding_while_writing += 1
        if n in self.fail_write:
            raise OSError(f"write {n}")
        self.written.append(n)


async def test_every_batch_written_once_with_the_next_ones_computed_meanwhile():
    run = Run()
    await embed_ahead(list(range(8)), run.embed, run.write, ahead=3)
    assert sorted(run.written) == list(range(8)) and run.started == list(range(8))
    assert run.most == 3
    # batch n + 3 is asked for before batch n is written: the writes of batches 0-4 never leave
    # the endpoint without work
    assert run.embedding_while_writing >= 5


async def test_one_ahead_embeds_one_batch_at_a_time_while_the_last_is_written():
    run = Run()
    await embed_ahead(list(range(4)), run.embed, run.write, ahead=1)
    assert run.written == [0, 1, 2, 3] and run.most == 1 and run.embedding_while_writing == 3


async def test_a_batch_is_written_as_soon_as_it_is_back():
    run = Run(delays={0: 0.2})                   # batch 0 is slow: 1 and 2 do not wait for it
    await embed_ahead([0, 1, 2], run.embed, run.write, ahead=3)
    assert run.written == [1, 2, 0]


async def test_after_a_failure_the_started_batches_finish_and_no_new_one_starts():
    run = Run(delays={2: 0.1}, fail={1})
    with pytest.raises(ConnectionError, match="batch 1"):
        await embed_ahead(list(range(10)), run.embed, run.write, ahead=3)
    assert run.started == [0, 1, 2, 3]            # 3 started when 0 was written, before 1 failed
    assert sorted(run.written) == [0, 2, 3]       # computed work is kept: a retry redoes batch 1 only


async def test_a_failed_write_stops_new_batches_and_is_raised():
    run = Run(fail_write={0})
    with pytest.raises(OSError, match="write 0"):
        await embed_ahead(list(range(6)), run.embed, run.write, ahead=2)
    # batch 2 was asked for before batch 0's write failed; 1 and 2 finish and are written
    assert run.started == [0, 1, 2] and sorted(run.written) == [1, 2]


async def test_a_cancelled_caller_cancels_the_batches_running():
    run = Run(delays=dict.fromkeys(range(4), 5.0))
    task = asyncio.create_task(embed_ahead(list(range(4)), run.embed, run.write, ahead=2))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert run.running == set() and run.written == []


async def test_no_batches():
    run = Run()
    await embed_ahead([], run.embed, run.write, ahead=3)
    assert run.started == []

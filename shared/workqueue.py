"""Pull-ahead, department-fair dispatch of one subscriber's records, with offsets committed
only up to the first record not yet done in each partition.

Kafka delivers each partition first-in, first-out, so one department's bulk upload of 80
papers sits in front of another department's single paper at every stage. A stage that runs
its work through a ``WorkQueue`` instead reads ahead (the records are small events: MinIO keys,
never page texts), keeps the records it has read in one queue per *fair key* (the department),
and starts the next piece of work from the keys in turn (round-robin), first-in, first-out
within a key. A department with nothing running may start beside the running work (up to
``lanes`` departments at once), so a department's first paper does not even wait for the
paper another department's bulk upload has running: the two share the stage's CPU.

Committing stays at-least-once: records finish out of order, so the offset committed for a
partition is the offset of its earliest record still queued or running (``OffsetTracker``). A
worker killed mid-way gets every unfinished record again; handlers are idempotent.

While ``max_buffered`` records are held, the consumer's partitions are paused (the consumer
keeps polling, so it is not evicted from its consumer group for exceeding its poll interval)
and resumed when the backlog is below half of it. When the group takes partitions away, their
queued records are dropped (their new owner reads them from the committed offset) and their
running work may finish but commits nothing.

Each job runs in the context (``contextvars``) of the code that created it — the consumer, while
it handled that record — so what the record's work logs names the record's document
(``shared.logs``); the dispatch loop itself runs in an empty context, as it serves every record.
"""
from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Protocol

log = logging.getLogger("legco.workqueue")

Partition = tuple[str, int]
"""(topic, partition)."""


class Committer(Protocol):
    """What the queue needs of a consumer: commit offsets, pause and resume partitions."""

    async def commit(self, offsets: dict[Partition, int]) -> None: ...

    def pause(self, partitions: list[Partition]) -> None: ...

    def resume(self, partitions: list[Partition]) -> None: ...


class OffsetTracker:
    """Per partition: the offsets registered and not yet done, and the offset safe to commit.

    The safe offset (Kafka's "next offset to read") is the smallest offset still open, or one
    past the highest offset seen when none is open.
    """

    def __init__(self) -> None:
        self._open: dict[Partition, set[int]] = {}
        self._next: dict[Partition, int] = {}
        self._committed: dict[Partition, int] = {}

    def register(self, tp: Partition, offset: int) -> None:
        """A record at ``offset`` was read and is not done yet."""
        self._open.setdefault(tp, set()).add(offset)
        self._next[tp] = max(self._next.get(tp, 0), offset + 1)
        self._committed.setdefault(tp, offset)  # reading started here: nothing before it to commit

    def done(self, tp: Partition, offset: int) -> int | None:
        """The record at ``offset`` is done; returns the new safe offset to commit for ``tp``, or
        ``None`` when it did not move (or ``tp`` is no longer tracked)."""
        open_ = self._open.get(tp)
        if open_ is None or offset not in open_:
            return None
        open_.discard(offset)
        safe = min(open_) if open_ else self._next[tp]
        if safe > self._committed.get(tp, -1):
            self._committed[tp] = safe
            return safe
        return None

    def forget(self, tp: Partition) -> None:
        """Stop tracking a partition (it was revoked)."""
        self._open.pop(tp, None)
        self._next.pop(tp, None)
        self._committed.pop(tp, None)

    def open_count(self) -> int:
        """Records registered and not done, over all partitions."""
        return sum(len(v) for v in self._open.values())


@dataclass
class Job:
    """One record's work: where it came from, its fair key and the coroutine factory to run
    (in ``context``: by default a copy of the context it was created in)."""

    tp: Partition
    offset: int
    key: Hashable
    run: Callable[[], Awaitable[Any]]
    serial: Hashable | None = None
    context: contextvars.Context = field(default_factory=contextvars.copy_context, repr=False, compare=False)


@dataclass
class _Lanes:
    """Queued jobs per fair key, and the round-robin order of the keys that have any."""

    queues: dict[Hashable, deque[Job]] = field(default_factory=dict)
    order: deque[Hashable] = field(default_factory=deque)

    def push(self, job: Job) -> None:
        if job.key not in self.queues:
            self.queues[job.key] = deque()
            self.order.append(job.key)
        self.queues[job.key].append(job)

    def pop(self, busy: set[Hashable], may_start: Callable[[Hashable], bool] = lambda key: True) -> Job | None:
        """The head job of the next key in turn that ``may_start`` and whose head is not
        serialised behind a running job (``busy`` holds the running jobs' serial keys); rotates
        the turn."""
        for _ in range(len(self.order)):
            key = self.order[0]
            self.order.rotate(-1)
            if not may_start(key):
                continue
            q = self.queues[key]
            for i, job in enumerate(q):
                if job.serial is None or job.serial not in busy:
                    del q[i]
                    if not q:
                        del self.queues[key]
                        self.order.remove(key)
                    return job
        return None

    def drop(self, tps: set[Partition]) -> int:
        """Remove the queued jobs of partitions ``tps``; returns how many."""
        dropped = 0
        for key in list(self.queues):
            q = self.queues[key]
            keep = deque(j for j in q if j.tp not in tps)
            dropped += len(q) - len(keep)
            if keep:
                self.queues[key] = keep
            else:
                del self.queues[key]
                self.order.remove(key)
        return dropped

    def __len__(self) -> int:
        return sum(len(q) for q in self.queues.values())


class WorkQueue:
    """Fair, pull-ahead dispatch of one subscriber's records (see the module doc).

    Args:
        name: for logs.
        concurrency: pieces of work running at once (each is one record's handler).
        lanes: fair keys served at once. A key with nothing running may start one piece of
            work even when ``concurrency`` pieces run, while fewer than ``lanes`` keys run: a
            department's paper starts at once beside another department's long one, instead
            of waiting for it to end (the two share the stage's CPU). A key never runs more
            than ``concurrency`` at once; one key alone runs exactly as without lanes.
        max_buffered: records held (queued + running) before the partitions are paused.
        gate: new work starts only while it is set (the stage's "no outage" event); work that is
            running goes on.
    """

    def __init__(self, name: str, *, concurrency: int = 1, lanes: int = 2, max_buffered: int = 10_000,
                 gate: asyncio.Event | None = None) -> None:
        self.name = name
        self.concurrency = max(1, concurrency)
        self.lanes = max(1, lanes)
        self.max_buffered = max(1, max_buffered)
        self._lanes = _Lanes()
        self._tracker = OffsetTracker()
        self._running: dict[asyncio.Task[Any], Job] = {}
        self._committer: Committer | None = None
        self._paused: set[Partition] = set()
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._closed = False
        self._gate = gate

    # --- feeding ------------------------------------------------------------------------
    def attach(self, committer: Committer) -> None:
        """The consumer to commit on and to pause (set once, from the first record)."""
        self._committer = committer

    async def submit(self, job: Job) -> None:
        """Queue one record's work and return at once; pauses the consumer when full."""
        self._tracker.register(job.tp, job.offset)
        self._lanes.push(job)
        self._ensure_loop()
        self._wake.set()
        if self.held() >= self.max_buffered and self._committer is not None:
            tps = sorted({j.tp for j in self._all_jobs()} - self._paused)
            if tps:
                self._committer.pause(tps)
                self._paused.update(tps)
                log.info("%s: %d records held, paused %d partitions", self.name, self.held(), len(tps))

    def revoke(self, tps: set[Partition]) -> None:
        """The consumer group took ``tps`` away: drop their queued jobs and stop tracking them."""
        dropped = self._lanes.drop(tps)
        for tp in tps:
            self._tracker.forget(tp)
            self._paused.discard(tp)
        if dropped:
            log.info("%s: partitions revoked, %d queued records dropped", self.name, dropped)

    def held(self) -> int:
        """Records queued or running."""
        return len(self._lanes) + len(self._running)

    def queued_by_key(self) -> dict[Hashable, int]:
        """Queued (not running) records per fair key."""
        return {k: len(q) for k, q in self._lanes.queues.items()}

    # --- running ------------------------------------------------------------------------
    def _all_jobs(self) -> list[Job]:
        return [j for q in self._lanes.queues.values() for j in q] + list(self._running.values())

    def _ensure_loop(self) -> None:
        if self._loop_task is None or self._loop_task.done():
            self._loop_task = asyncio.get_running_loop().create_task(self._dispatch(), name=f"workqueue-{self.name}",
                                                                     context=contextvars.Context())

    async def _dispatch(self) -> None:
        while not self._closed:
            if self._gate is not None and not self._gate.is_set():
                await self._gate.wait()  # a dependency is down: start nothing new until it is back
                continue
            started = False
            while True:
                busy = {j.serial for j in self._running.values() if j.serial is not None}
                job = self._lanes.pop(busy, self._may_start)
                if job is None:
                    break
                task = asyncio.get_running_loop().create_task(self._run(job), context=job.context)
                self._running[task] = job
                started = True
            if not started:
                self._wake.clear()
                await self._wake.wait()

    def _may_start(self, key: Hashable) -> bool:
        """Whether a job of ``key`` may start now (``concurrency`` and ``lanes``, see the class)."""
        per_key: dict[Hashable, int] = {}
        for j in self._running.values():
            per_key[j.key] = per_key.get(j.key, 0) + 1
        if per_key.get(key, 0) >= self.concurrency:
            return False
        if len(self._running) < self.concurrency:
            return True
        return key not in per_key and len(per_key) < self.lanes

    async def _run(self, job: Job) -> None:
        try:
            await job.run()
        except Exception:  # the stage contract catches everything; this is a last guard
            log.exception("%s: work on %s@%d raised", self.name, job.tp, job.offset)
        finally:
            task = asyncio.current_task()  # this job's task, never None inside it
            if task is not None:
                self._running.pop(task, None)
            await self._finished(job)
            self._wake.set()

    async def _finished(self, job: Job) -> None:
        safe = self._tracker.done(job.tp, job.offset)
        if safe is not None and self._committer is not None:
            try:
                await self._committer.commit({job.tp: safe})
            except Exception as e:  # noqa: BLE001 - e.g. the partition was reassigned: its new owner redoes it
                log.warning("%s: commit of %s at %d failed (%s)", self.name, job.tp, safe, e)
        if self._paused and self.held() < self.max_buffered // 2 and self._committer is not None:
            tps = sorted(self._paused)
            self._paused.clear()
            self._committer.resume(tps)

    async def drain(self) -> None:
        """Wait until nothing is queued or running (tests, shutdown)."""
        # A 10 ms poll, for tests and shutdown only: an event would have to be kept in step with
        # every place that queues, drops or finishes a record.
        while self.held():  # noqa: ASYNC110 - a short poll, see above
            await asyncio.sleep(0.01)

    async def close(self) -> None:
        """Stop dispatching; running work is cancelled (its records are redelivered)."""
        self._closed = True
        self._wake.set()
        for task in list(self._running):
            task.cancel()
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._loop_task

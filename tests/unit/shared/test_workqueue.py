"""WorkQueue: department-fair order, offsets committed only past finished records, pause and
resume at the buffer bound, revoked partitions dropped."""
from __future__ import annotations

import asyncio

from shared.workqueue import Job, OffsetTracker, WorkQueue


class FakeConsumer:
    def __init__(self) -> None:
        self.commits: list[dict] = []
        self.paused: list[list] = []
        self.resumed: list[list] = []

    async def commit(self, offsets):
        self.commits.append(dict(offsets))

    def pause(self, partitions):
        self.paused.append(list(partitions))

    def resume(self, partitions):
        self.resumed.append(list(partitions))


def test_tracker_commits_only_contiguous_prefix():
    t = OffsetTracker()
    tp = ("t", 0)
    for o in (5, 6, 7):
        t.register(tp, o)
    assert t.done(tp, 6) is None          # 5 still open
    assert t.done(tp, 5) == 7             # 5 and 6 done: next to read is 7
    assert t.done(tp, 7) == 8
    assert t.done(tp, 7) is None          # twice: no move


async def test_round_robin_between_departments_fifo_within():
    order: list[str] = []
    q = WorkQueue("t", concurrency=1)
    q.attach(FakeConsumer())

    def work(name):
        async def run():
            order.append(name)
            await asyncio.sleep(0)
        return run

    for i in range(5):
        await q.submit(Job(("t", 0), i, "A", work(f"A{i}")))
    await q.submit(Job(("t", 1), 0, "B", work("B0")))
    await q.drain()
    # A0 may already have started when B0 arrived; B0 must come right after at most one more A
    assert order.index("B0") <= 2
    assert [x for x in order if x.startswith("A")] == [f"A{i}" for i in range(5)]


async def test_out_of_order_finish_commits_after_the_earliest():
    c = FakeConsumer()
    q = WorkQueue("t", concurrency=2)
    q.attach(c)
    gate = asyncio.Event()

    async def slow():
        await gate.wait()

    async def fast():
        return None

    await q.submit(Job(("t", 0), 10, "A", slow))
    await q.submit(Job(("t", 0), 11, "B", fast))
    await asyncio.sleep(0.05)
    assert c.commits == []                # 11 is done but 10 is not
    gate.set()
    await q.drain()
    assert c.commits[-1] == {("t", 0): 12}


async def test_pause_when_full_and_resume_below_half():
    c = FakeConsumer()
    q = WorkQueue("t", concurrency=1, max_buffered=4)
    q.attach(c)
    gate = asyncio.Event()

    async def blocked():
        await gate.wait()

    for i in range(4):
        await q.submit(Job(("t", 0), i, "A", blocked))
    assert c.paused == [[("t", 0)]]
    gate.set()
    await q.drain()
    assert c.resumed == [[("t", 0)]]


async def test_revoked_partitions_are_dropped_and_not_committed():
    c = FakeConsumer()
    q = WorkQueue("t", concurrency=1)
    q.attach(c)
    gate = asyncio.Event()
    ran: list[int] = []

    def work(i):
        async def run():
            ran.append(i)
            await gate.wait()
        return run

    for i in range(3):
        await q.submit(Job(("t", 0), i, "A", work(i)))
    await asyncio.sleep(0.02)             # 0 is running
    q.revoke({("t", 0)})
    gate.set()
    await q.drain()
    assert ran == [0] and c.commits == []


async def test_serial_key_never_runs_two_jobs_of_one_document_at_once():
    q = WorkQueue("t", concurrency=4)
    q.attach(FakeConsumer())
    running: set[str] = set()
    overlap: list[str] = []

    def work(doc):
        async def run():
            if doc in running:
                overlap.append(doc)
            running.add(doc)
            await asyncio.sleep(0.01)
            running.discard(doc)
        return run

    for i, doc in enumerate(["d1", "d1", "d2", "d1", "d2"]):
        await q.submit(Job(("t", 0), i, "A", work(doc), serial=doc))
    await q.drain()
    assert overlap == []


async def test_another_department_starts_beside_a_long_job_and_one_department_keeps_its_limit():
    q = WorkQueue("t", concurrency=1, lanes=2)
    q.attach(FakeConsumer())
    release = asyncio.Event()
    running: set[str] = set()
    most: list[int] = []
    started: list[str] = []

    def work(name):
        async def run():
            started.append(name)
            running.add(name)
            most.append(sum(1 for r in running if r[0] == name[0]))
            if name == "A0":
                await release.wait()          # a long paper of department A
            else:
                await asyncio.sleep(0.01)
            running.discard(name)
        return run

    for i in range(3):
        await q.submit(Job(("t", 0), i, "A", work(f"A{i}")))
    await asyncio.sleep(0.02)
    await q.submit(Job(("t", 1), 0, "B", work("B0")))
    await q.submit(Job(("t", 2), 0, "C", work("C0")))
    await asyncio.sleep(0.1)
    # B starts at once beside A0 (a second lane), C once B is done (two lanes); A1 waits for A0
    assert started == ["A0", "B0", "C0"] and "A1" not in started
    release.set()
    await q.drain()
    assert max(most) == 1                     # no department ever ran two at once
    assert [s for s in started if s[0] == "A"] == ["A0", "A1", "A2"]


async def test_one_lane_is_the_plain_concurrency_limit():
    q = WorkQueue("t", concurrency=1, lanes=1)
    q.attach(FakeConsumer())
    release = asyncio.Event()
    started: list[str] = []

    def work(name):
        async def run():
            started.append(name)
            if name == "A0":
                await release.wait()
        return run

    await q.submit(Job(("t", 0), 0, "A", work("A0")))
    await asyncio.sleep(0.02)
    await q.submit(Job(("t", 1), 0, "B", work("B0")))
    await asyncio.sleep(0.05)
    assert started == ["A0"]
    release.set()
    await q.drain()
    assert started == ["A0", "B0"]

"""Noticing a delete mid-work: the throttled check, the stage contract (a delete noticed mid-way
is no failure; what was written is swept when a tombstone says it was deleted), the parser's
child killed on cancel, and the parser stopping between page writes."""
from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from faststream.kafka import TestKafkaBroker

from services.parser.handle import parse_and_store
from services.parser.isolation import Cancelled, run_isolated
from shared import storage
from shared.deletion import DeletionCheck
from shared.errors import DocumentGone
from shared.events import DocumentUploaded
from shared.settings import Settings
from shared.stage import Stage
from tests.conftest import REAL

DOC = "0" * 32


class Store:
    """An in-memory object store (the part the stages use)."""

    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}
        self.puts = 0

    def exists(self, key: str) -> bool:
        return key in self.objects

    def document_live(self, document_id: str) -> bool:
        return (self.exists(storage.manifest_key(document_id))
                and not self.exists(storage.tombstone_key(document_id)))

    def put_bytes(self, key: str, data: bytes, content_type: str = "") -> None:
        self.objects[key] = data
        self.puts += 1

    def put_json(self, key: str, obj: Any) -> None:
        self.put_bytes(key, b"{}")

    def get_bytes(self, key: str) -> bytes:
        return self.objects[key]

    def delete_document(self, document_id: str) -> int:
        gone = [k for k in self.objects if k.startswith(storage.document_prefix(document_id))]
        for k in gone:
            del self.objects[k]
        return len(gone)


async def test_the_check_is_throttled_and_forced_on_demand() -> None:
    asked = 0

    async def live(_: str) -> bool:
        nonlocal asked
        asked += 1
        return asked < 3

    check = DeletionCheck(DOC, live, interval_s=60)
    await check()
    await check()                      # within the interval: not asked
    assert asked == 1
    await check(force=True)
    with pytest.raises(DocumentGone):
        await check(force=True)
    assert asked == 3


async def test_a_long_call_is_abandoned_once_the_document_is_gone() -> None:
    gone_at = time.monotonic() + 0.3
    cancelled = asyncio.Event()

    async def live(_: str) -> bool:
        return time.monotonic() < gone_at

    async def slow_request() -> list[float]:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return [1.0]

    check = DeletionCheck(DOC, live, interval_s=0.1)
    assert await check.guard(asyncio.sleep(0, result=[2.0])) == [2.0]
    start = time.monotonic()
    with pytest.raises(DocumentGone):
        await check.guard(slow_request())
    assert time.monotonic() - start < 1.5 and cancelled.is_set()


def _stage(store: Store) -> Stage:
    stage = Stage("test-delete", progress_stage="parsing", settings=Settings(handler_retry_base_s=0.001))
    stage.provide(store=store)
    return stage


EVENT = DocumentUploaded(document_id=DOC, filename="a.pdf", strategy="token", object_key="k",
                         size_bytes=1, sha256="x", upload_date="2026-12-01")


async def test_a_delete_noticed_mid_way_is_no_failure_and_its_writes_are_swept() -> None:
    store = Store()
    store.objects[storage.manifest_key(DOC)] = b"{}"
    stage = _stage(store)
    swept: list[str] = []
    stage.gone_hooks.append(swept.append)

    async def work() -> str:
        store.put_bytes(storage.page_pdf_key(DOC, 1), b"%PDF")
        store.objects[storage.tombstone_key(DOC)] = b"{}"      # the gateway deletes meanwhile
        del store.objects[storage.manifest_key(DOC)]
        await stage.deletion_check(EVENT)(force=True)
        return "never"

    async with TestKafkaBroker(stage.broker):
        assert await stage.run(EVENT, "t", work) is None
        stage.pubs.dead_letter.mock.assert_not_called()
        assert stage.pubs.progress.mock.call_count == 0             # not failed, nothing reported
        assert await stage.run(EVENT, "t", work) is None          # its next event: dropped unasked
    assert [k for k in store.objects if k.startswith("documents/")] == [] and swept == [DOC]


def test_a_cancelled_isolated_run_kills_the_child_within_a_second() -> None:
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    start = time.monotonic()
    with pytest.raises(Cancelled):
        run_isolated(time.sleep, (30,), timeout_s=60, memory_limit_bytes=None, cancel=cancel)
    assert time.monotonic() - start < 2.5


def test_a_cancellable_isolated_run_takes_a_request_larger_than_a_pipe() -> None:
    big = b"x" * 5_000_000  # a pipe holds 64 KiB: the request must not depend on one
    assert run_isolated(len, (big,), timeout_s=60, memory_limit_bytes=None, cancel=threading.Event()) == len(big)


async def test_the_parser_stops_between_page_writes() -> None:
    store = Store()
    data = (REAL / "hk_policy_address_2019_zh.pdf").read_bytes()
    store.objects["k"] = data
    event = EVENT.model_copy(update={"filename": "hk_policy_address_2019_zh.pdf", "size_bytes": len(data)})
    writes_before_gone = 3

    async def check(force: bool = False) -> None:
        if store.puts >= writes_before_gone:
            raise DocumentGone(DOC)

    async def report(**_: Any) -> None:
        pass

    with pytest.raises(DocumentGone):
        await parse_and_store(event, store, Settings(), report, check)  # type: ignore[arg-type]
    pages = [k for k in store.objects if k.startswith(storage.page_pdf_prefix(DOC))]
    assert len(pages) == writes_before_gone and not store.exists(storage.pages_key(DOC))  # of 24 pages


async def test_the_parse_child_is_killed_when_the_document_is_deleted() -> None:
    store = Store()
    data = (REAL / "hk_ld_ec_ordinance_guide_faq_en.pdf").read_bytes()
    store.objects["k"] = data
    event = EVENT.model_copy(update={"filename": "guide.pdf", "size_bytes": len(data)})
    gone_at = time.monotonic() + 0.3

    async def live(_: str) -> bool:
        return time.monotonic() < gone_at

    async def report(**_: Any) -> None:
        pass

    start = time.monotonic()
    with pytest.raises(DocumentGone):
        await parse_and_store(event, store, Settings(), report, DeletionCheck(DOC, live, 0.2))  # type: ignore[arg-type]
    assert time.monotonic() - start < 3 and store.puts == 0
    await asyncio.sleep(0)

"""What makes N gateway replicas one registry: every change of the document registry and of the
API keys goes through one Kafka topic, ``legco.gateway.registry.v1``, and every replica folds it.

MinIO stays the source of truth (a document's manifest, a key's record); the topic says what
changed, in order. A writer — any replica: the one that took an upload, a delete, a replay or a
key change, or the one Kafka gave the document's progress partition (``settings.gateway_group``)
— writes MinIO first, then publishes a ``RegistryChange`` and waits until its own replica has
folded it (so it reads its own writes). Every replica, the writer included, folds every change
into its memory and its SSE clients (``Registry.apply_change``), so a browser sees the same
stream whichever replica it is connected to.

A replica reads the topic outside any consumer group: at start it takes the end offsets,
*then* loads the manifests, then folds from those offsets, so no change made while it loaded is
missed (one made just before may be folded again: a change carries the whole record, folding it
twice is harmless). The topic has one partition: every replica folds every change in the same
order, the order Kafka acknowledged them in.

**Reads see every write acknowledged before them** (:meth:`Changelog.sync`): a request asks
Kafka for the topic's end offsets (a second client, so the answer never waits behind the
folding consumer's long poll) and waits until its replica has folded up to them — usually at
once. So a document uploaded through one replica is listed, ``queued``, by the next request to
any other, and a key revoked on one is refused by the next request to any other. With Kafka down
(or not answering within ``registry_sync_timeout_s``) the request is served from what the
replica has, and the next ``registry_sync_backoff_s`` of requests do not wait.

A replica that fell behind the topic's retention (one day) reloads every manifest.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.errors import OffsetOutOfRangeError
from pydantic import ValidationError

from shared import topics
from shared.registry_change import RegistryChange
from shared.settings import Settings
from shared.topic_reader import partitions

log = logging.getLogger("legco.gateway.changelog")

CLOCK_SKEW_S = 1.0
"""How far apart two hosts' clocks may be, for ``Changelog.sync(since=...)``."""
RECENT_CHANGES = 4096
"""How many change ids a replica remembers, so a change it applied itself (Kafka not answering)
is not applied again when it arrives."""


class ChangelogUnavailable(Exception):
    """Kafka did not take a registry change within ``publish_timeout_s`` (no replica applied it)."""


Publish = Callable[[RegistryChange], Awaitable[Any]]
Apply = Callable[[RegistryChange], Awaitable[None]]
Reload = Callable[[], Awaitable[Any]]


class Changelog:
    """One replica's end of the registry topic: publishing changes, folding them, and the read
    barrier (see the module docstring).

    Args:
        settings: ``kafka_bootstrap``, ``gateway_instance``, ``publish_timeout_s`` (seconds a
            publish may take), ``registry_sync_timeout_s``, ``registry_sync_backoff_s``.
        publish: sends one change to ``legco.gateway.registry.v1`` with its key (the gateway's
            broker).
        apply: the fold of one change (``GatewayState.apply_change``); its errors are logged and
            the fold goes on.
        reload: reloads the whole registry from MinIO (after changes were lost to retention).
    """

    def __init__(self, settings: Settings, publish: Publish, apply: Apply, reload: Reload) -> None:
        self.settings = settings
        self.instance = settings.gateway_instance
        self._publish, self._apply, self._reload = publish, apply, reload
        self._consumer: AIOKafkaConsumer | None = None
        self._offsets: AIOKafkaConsumer | None = None  # end offsets only: never behind a long poll
        self._tps: list[TopicPartition] = []
        self._next: dict[TopicPartition, int] = {}  # next offset to fold, per partition
        self._advanced = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._waiting: dict[str, asyncio.Event] = {}
        self._recent: deque[str] = deque(maxlen=RECENT_CHANGES)
        self._recent_set: set[str] = set()
        self._failed_at = float("-inf")
        self.synced_at = float("-inf")  # every change acknowledged before this time is folded here
        self._queued: asyncio.Future[dict[TopicPartition, int]] | None = None
        self._asking: asyncio.Future[dict[TopicPartition, int]] | None = None

    # --- life -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Assign every partition of the topic at its end offset (call it before loading the
        manifests). Raises ``RuntimeError`` when the topic does not exist (``python -m
        shared.admin`` creates it), aiokafka errors when Kafka is unreachable."""
        self._tps = await partitions(self.settings, topics.GATEWAY_REGISTRY)
        if not self._tps:
            raise RuntimeError(f"Kafka topic {topics.GATEWAY_REGISTRY} does not exist; run `python -m shared.admin`")
        client_id = f"legco-gateway-{self.instance}-registry"
        self._consumer = AIOKafkaConsumer(bootstrap_servers=self.settings.kafka_bootstrap, enable_auto_commit=False,
                                          auto_offset_reset="none", client_id=client_id)
        self._offsets = AIOKafkaConsumer(bootstrap_servers=self.settings.kafka_bootstrap, enable_auto_commit=False,
                                         client_id=f"{client_id}-offsets")
        await self._consumer.start()
        await self._offsets.start()
        self._consumer.assign(self._tps)
        await self._seek_to_end()

    def run(self) -> None:
        """Start folding (after the manifests were loaded)."""
        self._task = asyncio.create_task(self._fold_forever(), name="registry-changelog")

    async def stop(self) -> None:
        """Stop folding and close both clients."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for c in (self._consumer, self._offsets):
            if c is not None:
                await c.stop()

    async def _seek_to_end(self) -> None:
        assert self._consumer is not None
        end = await self._consumer.end_offsets(self._tps)
        for tp in self._tps:
            self._consumer.seek(tp, end[tp])
            self._next[tp] = end[tp]

    # --- writing ----------------------------------------------------------------------------
    async def write(self, change: RegistryChange) -> None:
        """Publish ``change`` and wait until this replica has folded it (at most
        ``registry_sync_timeout_s``; then it is applied here directly, and folded once only).

        Raises:
            ChangelogUnavailable: Kafka did not take it within ``publish_timeout_s`` (nothing
            was applied anywhere; a send still buffered may reach the topic later).
        """
        change.origin = self.instance
        folded = self._waiting[change.change_id] = asyncio.Event()
        try:
            try:
                await asyncio.wait_for(self._publish(change), timeout=self.settings.publish_timeout_s)
            except Exception as e:  # a timeout or a broker error
                raise ChangelogUnavailable(f"{type(e).__name__}: {e}") from e
            try:
                await asyncio.wait_for(folded.wait(), timeout=self.settings.registry_sync_timeout_s)
            except TimeoutError:
                log.warning("registry change %s not folded back within %.1f s; applied here", change.change_id,
                            self.settings.registry_sync_timeout_s)
                await self._fold(change)
        finally:
            self._waiting.pop(change.change_id, None)

    # --- folding ----------------------------------------------------------------------------
    async def _fold(self, change: RegistryChange) -> None:
        """Apply one change unless it was applied already."""
        if change.change_id in self._recent_set:
            return
        if len(self._recent) == self._recent.maxlen:
            self._recent_set.discard(self._recent[0])
        self._recent.append(change.change_id)
        self._recent_set.add(change.change_id)
        try:
            await self._apply(change)
        except Exception:  # one bad change (or MinIO down for a key's record) must not stop the fold
            log.exception("registry change %s (%s %s) not applied", change.change_id, change.kind,
                          change.document_id or change.key_prefix)
        waiter = self._waiting.get(change.change_id)
        if waiter is not None:
            waiter.set()

    async def _fold_forever(self) -> None:
        assert self._consumer is not None
        while True:
            try:
                batch = await self._consumer.getmany(timeout_ms=1000, max_records=500)
            except OffsetOutOfRangeError:
                log.error("registry changes were lost (this replica fell behind the topic's retention); "
                          "reloading every manifest")
                await self._resync()
                continue
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("reading %s failed; trying again", topics.GATEWAY_REGISTRY)
                await asyncio.sleep(1.0)
                continue
            for tp, records in batch.items():
                for r in records:
                    try:
                        change = RegistryChange.model_validate_json(r.value or b"")
                    except ValidationError:
                        log.warning("skipping an invalid registry change at %d@%d", r.partition, r.offset)
                    else:
                        await self._fold(change)
                    self._next[tp] = r.offset + 1
            self._advanced.set()
            self._advanced = asyncio.Event()

    async def _resync(self) -> None:
        try:
            await self._seek_to_end()
            await self._reload()
        except Exception:
            log.exception("reloading the registry failed; trying again")
            await asyncio.sleep(1.0)

    # --- reading ----------------------------------------------------------------------------
    async def sync(self, since: float | None = None) -> bool:
        """Wait until this replica has folded every change acknowledged before the call; ``False``
        (served from what it has) when Kafka did not answer within ``registry_sync_timeout_s``
        or failed less than ``registry_sync_backoff_s`` ago.

        ``since`` (seconds since the epoch): only the changes acknowledged before then are
        needed — nothing is asked when a sync already covered them (with ``CLOCK_SKEW_S`` to
        spare between hosts' clocks)."""
        s = self.settings
        if self._offsets is None:
            return True
        if since is not None and since + CLOCK_SKEW_S < self.synced_at:
            return True
        if time.monotonic() - self._failed_at < s.registry_sync_backoff_s:
            return False
        asked, deadline = time.time(), time.monotonic() + s.registry_sync_timeout_s
        try:
            end = await asyncio.wait_for(self._end_offsets(), timeout=s.registry_sync_timeout_s)
            while any(self._next.get(tp, 0) < offset for tp, offset in end.items()):
                advanced = self._advanced
                await asyncio.wait_for(advanced.wait(), timeout=max(0.0, deadline - time.monotonic()))
            self.synced_at = max(self.synced_at, asked)  # the offsets were asked for after ``asked``
            return True
        except Exception as e:  # noqa: BLE001 - Kafka down or slow: served from memory
            self._failed_at = time.monotonic()
            log.warning("registry not synced (%s: %s); serving what this replica has", type(e).__name__, e)
            return False

    def _end_offsets(self) -> asyncio.Future[dict[TopicPartition, int]]:
        """End offsets asked of Kafka after this call: concurrent callers share one request
        (those arriving while one is on its way wait for the next)."""
        if self._queued is None:
            self._queued = asyncio.ensure_future(self._ask_end_offsets())
        return asyncio.shield(self._queued)

    async def _ask_end_offsets(self) -> dict[TopicPartition, int]:
        assert self._offsets is not None
        if self._asking is not None:
            with contextlib.suppress(Exception):
                await self._asking
        self._queued = None  # callers from here on need a request sent after they came
        asking: asyncio.Future[dict[TopicPartition, int]]
        asking = self._asking = asyncio.ensure_future(self._offsets.end_offsets(self._tps))
        try:
            return await asking
        finally:
            if self._asking is asking:
                self._asking = None

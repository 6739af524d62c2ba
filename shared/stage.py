"""The scaffold every FastStream worker service is built on: one ``Stage`` per service.

A ``Stage`` owns, for one service:

* the broker (``shared.kafka.make_broker``) and the stage's publishers (output topic, progress,
  dead letters);
* the clients the handlers need (MinIO, Chroma, the embeddings endpoint ...), opened once in the
  app's lifespan by the service's ``clients`` factory and put into FastStream's context, from which
  handlers receive them as parameters (``store: StoreDep``) — tests hand in fakes or real clients
  with :meth:`Stage.provide` instead of patching module globals;
* the consumer contract (:meth:`Stage.run`): skip documents deleted or replaced meanwhile (their
  manifest is gone or a delete tombstone exists), stop quietly when a handler notices a delete
  mid-way (``DocumentGone``, from :meth:`Stage.deletion_check`) and remove what it wrote,
  bounded retries, dead-letter topic, ``failed`` with a human-readable reason;
* progress events (:meth:`Stage.progress`).

A service's ``main.py`` is then only wiring::

    stage = Stage("parser", progress_stage="parsing", output_topic=topics.PARSED, clients=open_clients)

    @stage.subscriber(topics.UPLOADED)
    async def on_uploaded(event: DocumentUploaded, store: StoreDep) -> None:
        parsed = await stage.run(event, topics.UPLOADED, lambda: parse_and_store(event, store, stage))
        if parsed is not None:
            await stage.emit(parsed)

    app = stage.app
"""
from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Annotated, Any, TypeVar

from aiokafka import ConsumerRebalanceListener
from faststream import AckPolicy, Context
from faststream.asgi import AsgiFastStream
from faststream.kafka import KafkaBroker

from shared import logs, storage, topics
from shared.deletion import DeletionCheck
from shared.dispatch import QueueRebalance, fair_handler
from shared.errors import DocumentError, DocumentGone
from shared.events import DeadLetter, EventBase, ProgressEvent, Stage as StageName, Status
from shared.kafka import StagePublishers, make_broker, stage_publishers
from shared.metrics import DEADLETTERS, DEPENDENCY_WAITS, DOCUMENTS, FAILURES, RETRIES, STAGE_LATENCY
from shared.outage import Outages, dependency_of
from shared.settings import Settings, get_settings
from shared.storage import ObjectStore, open_store
from shared.worker import make_app
from shared.workqueue import WorkQueue

log = logging.getLogger("legco.stage")
T = TypeVar("T")

ClientFactory = Callable[[Settings], AbstractAsyncContextManager[dict[str, Any]]]
"""Opens a service's clients for the lifetime of the process: ``settings → {name: client}``."""

StoreDep = Annotated[ObjectStore, Context("store")]
"""Handler parameter: the MinIO object store opened in the lifespan."""

SettingsDep = Annotated[Settings, Context("settings")]
"""Handler parameter: the service's settings."""

GoneHook = Callable[[str], None]
"""Blocking clean-up of a deleted document's leftovers, ``document_id → None`` (run in a thread)."""

_REMEMBERED = 10_000  # deleted document ids a stage remembers (ids are never reused)


@asynccontextmanager
async def store_only(settings: Settings) -> AsyncIterator[dict[str, Any]]:
    """The default client factory: the MinIO object store (bucket ensured) as ``store``."""
    yield {"store": await open_store(settings)}


class Stage:
    """One worker service's broker, publishers, clients and consumer contract.

    Args:
        service: service name (Kafka client id, default consumer group, metrics app name).
        progress_stage: the stage name users see in progress events and failure reasons
            (``"parsing"``, ``"tables"``, ``"splitting"``, ``"embedding"``).
        output_topic: the topic :meth:`emit` publishes to (``None``: the stage emits nothing).
        clients: opens the handlers' clients in the lifespan (default: the object store only).
        settings: defaults to the process settings (``get_settings()``).
        group: consumer group of :meth:`subscriber` (default ``service``).
    """

    def __init__(self, service: str, *, progress_stage: StageName, output_topic: str | None = None,
                 clients: ClientFactory = store_only, settings: Settings | None = None,
                 group: str | None = None) -> None:
        self.service = service
        self.progress_stage: StageName = progress_stage
        # the series exist at 0 from the start, so rate() and increase() see the first document too
        DEADLETTERS.labels(progress_stage)
        STAGE_LATENCY.labels(progress_stage)
        self.group = group or service
        self._settings = settings or get_settings()
        self._clients = clients
        self.broker: KafkaBroker = make_broker(self._settings, service, stage=progress_stage)
        self.pubs: StagePublishers = stage_publishers(self.broker, output_topic)
        self.app: AsgiFastStream = make_app(self.broker, lifespan=self._lifespan)
        self.queues: list[WorkQueue] = []
        self.outages = Outages()
        self.gone_hooks: list[GoneHook] = []
        self._gone: OrderedDict[str, None] = OrderedDict()
        self._swept: OrderedDict[str, None] = OrderedDict()
        self.provide(settings=self._settings)

    # --- clients ------------------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        """The settings handed to the handlers (see :meth:`provide`)."""
        settings: Settings = self.client("settings")
        return settings

    def provide(self, **clients: Any) -> None:
        """Put clients into the broker's context, where handlers receive them by name (the
        lifespan does this with the ``clients`` factory's result; tests call it directly)."""
        for name, value in clients.items():
            self.broker.context.set_global(name, value)
        if "settings" in clients:
            self._settings = clients["settings"]

    def client(self, name: str) -> Any:
        """A client put into the context by :meth:`provide`. Raises ``KeyError`` if none."""
        value = self.broker.context.get(name)
        if value is None:
            raise KeyError(f"{self.service}: no client {name!r} was provided")
        return value

    @asynccontextmanager
    async def _lifespan(self) -> AsyncIterator[None]:
        async with self._clients(self._settings) as clients:
            self.provide(**clients)
            try:
                yield
            finally:  # unfinished work is not committed: its records come again after a restart
                for queue in self.queues:
                    await queue.close()

    # --- subscriptions ------------------------------------------------------------------
    def subscriber(self, topic: str, *, group: str | None = None, concurrency: int = 1,
                   serial: Callable[[Any], Hashable | None] | None = None,
                   listener: ConsumerRebalanceListener | None = None,
                   **kwargs: Any) -> Callable[[Callable[..., Awaitable[None]]], Any]:
        """Subscribe a handler under the contract, with department-fair dispatch.

        The handler (first parameter the event, further parameters clients from the context)
        runs through a ``WorkQueue``: the consumer reads ahead, the queue starts the work of the
        departments in turn (first-in, first-out within one), ``concurrency`` at a time per
        department and up to ``stage_lanes`` departments at once, and
        commits each partition's offset once every record before it is done (at-least-once,
        as the handlers are idempotent). ``serial(event)`` names events that must not run at
        once (default: those of one document, so a redelivered event never races its first
        copy); ``listener`` is called on rebalances after the queue dropped the revoked
        partitions' records. Every line the handler logs names the event's document, its
        department and this stage (``shared.logs``).
        """
        queue = WorkQueue(f"{self.service}:{topic}", concurrency=concurrency, lanes=self._settings.stage_lanes,
                          max_buffered=self._settings.stage_max_buffered, gate=self.outages.clear)
        self.queues.append(queue)
        kwargs.setdefault("max_poll_records", 50)
        # A partition without a committed offset (its first records were read by a worker that
        # was killed before it committed) is read from its start: "latest", the default, would
        # skip those records for good (tests/e2e/test_faults_e2e.py found three documents lost).
        kwargs.setdefault("auto_offset_reset", "earliest")
        sub = self.broker.subscriber(topic, group_id=group or self.group, ack_policy=AckPolicy.MANUAL,
                                     listener=QueueRebalance(queue, listener), **kwargs)

        def decorate(fn: Callable[..., Awaitable[None]]) -> Any:
            @functools.wraps(fn)  # fair_handler reads fn's signature through __wrapped__
            async def in_log_context(event: Any, *args: Any, **kwargs: Any) -> None:
                with logs.document(getattr(event, "document_id", None), getattr(event, "department", None),
                                   self.progress_stage):
                    await fn(event, *args, **kwargs)

            return sub(fair_handler(in_log_context, queue, key=lambda e: e.department,
                                    serial=serial or (lambda e: e.document_id)))

        return decorate

    async def emit(self, event: EventBase) -> None:
        """Publish ``event`` to the stage's output topic, keyed by document id."""
        await self.pubs.emit(event)

    async def progress(self, event: EventBase, *, stage: StageName | None = None,
                       status: Status = "processing", **fields: Any) -> None:
        """Publish a ``ProgressEvent`` for ``event``'s document (``stage`` defaults to this
        stage; ``fields`` are further ``ProgressEvent`` fields, e.g. ``pages_done``)."""
        fields.setdefault("filename", getattr(event, "filename", "") or "")
        await self.pubs.report(ProgressEvent(document_id=event.document_id, department=event.department,
                                             visibility=event.visibility, stage=stage or self.progress_stage,
                                             status=status, **fields))

    # --- the consumer contract ------------------------------------------------------------
    async def document_exists(self, document_id: str) -> bool:
        """True while the document may be worked on: its manifest is in MinIO and it has no
        delete tombstone (``ObjectStore.document_live``). A document found gone is remembered
        (ids are never reused), so its later events cost no request."""
        if document_id in self._gone:
            return False
        store: ObjectStore = self.client("store")
        live = await asyncio.to_thread(store.document_live, document_id)
        if not live:
            _remember(self._gone, document_id)
        return live

    def deletion_check(self, event: EventBase) -> DeletionCheck:
        """The throttled check a handler calls before its writes and between pages or batches
        (``await check()`` raises ``DocumentGone``; ``deletion_check_interval_s``)."""
        return DeletionCheck(event.document_id, self.document_exists, self.settings.deletion_check_interval_s)

    async def sweep_gone(self, document_id: str) -> None:
        """Remove what this stage (or another, racing the delete) wrote for a deleted document:
        once per document and process, and only when it has a tombstone (a document whose
        manifest is merely missing is the reconciler's, after its grace period). The objects
        under ``documents/{id}/`` go, then each ``gone_hooks`` entry runs (the embedder removes
        vectors). Failures are logged: the gateway's reconciler sweeps what is left."""
        if document_id in self._swept:
            return
        _remember(self._swept, document_id)
        store: ObjectStore = self.client("store")

        def sweep() -> int:
            if not store.exists(storage.tombstone_key(document_id)):
                return -1
            removed = store.delete_document(document_id)
            for hook in self.gone_hooks:
                hook(document_id)
            return removed

        try:
            removed = await asyncio.to_thread(sweep)
        except Exception:
            log.exception("%s: could not sweep the leftovers of deleted document %s", self.service, document_id)
            return
        if removed >= 0:
            log.info("%s: document %s was deleted; removed %d objects written meanwhile", self.service,
                     document_id, removed)

    async def run(self, event: EventBase, topic: str, work: Callable[[], Awaitable[T]], *,
                  check_exists: bool = True,
                  on_failure: Callable[[str], Awaitable[None]] | None = None) -> T | None:
        """Run one handler's ``work`` under the consumer contract.

        * ``None`` without calling ``work`` when the document was deleted or replaced
          (``check_exists``), and ``None`` when ``work`` noticed a delete mid-way (it raised
          ``DocumentGone``): not a failure; what was written for it is swept (:meth:`sweep_gone`);
        * a ``DocumentError`` fails the document at once with its reason;
        * an outage of a dependency (``shared.outage``: MinIO, Chroma, the embeddings endpoint or
          Kafka refusing, timing out, answering 5xx) uses no attempt: the stage holds new work
          (its queue's gate), reports ``waiting for <dependency>``, waits with capped exponential
          backoff and jitter and tries again, until the dependency is back; only after
          ``outage_limit_s`` seconds of one outage is the event dead-lettered, with a reason
          naming the dependency;
        * any other exception (a bug) is retried ``handler_max_attempts`` times with exponential
          backoff (``handler_retry_base_s`` seconds, doubling), then dead-lettered and the
          document failed with a reason. Nothing propagates: the consume loop never dies on a
          handler error.

        Args:
            event: the consumed event; topic: the topic it came from (for the dead letter).
            work: the handler body; its result is returned.
            on_failure: work that is not the document's own pipeline (a rebuild into a new index
                generation) hands its failure reason here instead: the document is not failed
                and nothing is dead-lettered.

        Returns:
            ``work()``'s result, or ``None`` when the document is gone or was failed.
        """
        settings = self.settings
        start = time.perf_counter()
        attempts = settings.handler_max_attempts
        attempt = waits = 0
        while True:
            try:
                if check_exists and not await self.document_exists(event.document_id):
                    await self.sweep_gone(event.document_id)
                    return None
                result = await work()
            except DocumentGone:
                log.info("%s: %s was deleted while it was worked on; stopped", self.progress_stage,
                         event.document_id)
                _remember(self._gone, event.document_id)
                await self.sweep_gone(event.document_id)
                return None
            except DocumentError as e:
                await (on_failure(e.reason) if on_failure else self.fail(event, e.reason, e.code))
                return None
            except Exception as e:
                dependency = dependency_of(e, settings)
                if dependency is not None:
                    if await self._outage_wait(event, topic, e, dependency, waits, on_failure):
                        waits += 1
                        continue
                    return None
                attempt += 1
                log.exception("%s failed on %s (attempt %d/%d)", self.progress_stage, event.document_id,
                              attempt, attempts)
                if attempt < attempts:
                    RETRIES.labels(self.progress_stage).inc()
                    await asyncio.sleep(settings.handler_retry_base_s * 2 ** (attempt - 1))
                    continue
                if on_failure:
                    await on_failure(f"{type(e).__name__}: {str(e)[:200]}")
                else:
                    await self.dead_letter(event, topic, e, attempts)
                return None
            self.outages.recovered()
            took = time.perf_counter() - start
            log.info("%s done in %.2f s (%s)", self.progress_stage, took, type(event).__name__)
            STAGE_LATENCY.labels(self.progress_stage).observe(took)
            DOCUMENTS.labels(self.progress_stage, "ok", event.department).inc()
            return result

    async def _outage_wait(self, event: EventBase, topic: str, error: Exception, dependency: str,
                           waits: int, on_failure: Callable[[str], Awaitable[None]] | None = None) -> bool:
        """One wait of an outage: ``True`` after waiting (try again), ``False`` when the outage has
        lasted ``outage_limit_s`` and the event was dead-lettered."""
        s = self.settings
        lasted = self.outages.down(dependency)
        if lasted >= s.outage_limit_s:
            took = f"{lasted / 60:.0f} minutes" if lasted >= 120 else f"{lasted:.0f} seconds"
            reason = (f"{dependency} could not be reached for {took} while the {self.progress_stage} "
                      "stage worked on this document; the event was moved to the dead-letter topic "
                      "and can be replayed once it is back.")
            if on_failure:
                await on_failure(f"{dependency} could not be reached for {took}")
            else:
                await self.dead_letter(event, topic, error, 0, reason=reason)
            self.outages.gave_up()
            return False
        if waits == 0:
            DEPENDENCY_WAITS.labels(self.progress_stage, dependency).inc()
            log.warning("%s: %s is down (%s: %s); waiting", self.progress_stage, dependency,
                        type(error).__name__, str(error)[:200])
            with contextlib.suppress(Exception):  # Kafka itself may be what is down
                await self.progress(event, waiting_for=dependency)
        delay = min(s.outage_retry_max_s, s.outage_retry_base_s * 2 ** min(waits, 20))
        await asyncio.sleep(delay * (0.5 + random.random() / 2))
        return True

    async def dead_letter(self, event: EventBase, topic: str, error: Exception, attempts: int,
                          reason: str | None = None) -> None:
        """Move ``event`` to the dead-letter topic and fail its document with a reason (default:
        the stage failed ``attempts`` times with ``error``)."""
        detail = reason or str(error)  # an outage's reason names the dependency and how long it was down
        reason = reason or (f"The {self.progress_stage} stage failed {attempts} times ({type(error).__name__}: "
                            f"{str(error)[:200]}); the event was moved to the dead-letter topic.")
        DEADLETTERS.labels(self.progress_stage).inc()
        await self.pubs.dead_letter.publish(
            DeadLetter(document_id=event.document_id, department=event.department, visibility=event.visibility,
                       source_topic=topic, consumer_group=self.group, reason=detail[:2000],
                       error_type=type(error).__name__, attempts=attempts, payload=event.model_dump(mode="json")),
            key=event.document_id.encode())
        await self.fail(event, reason, "internal")

    async def fail(self, event: EventBase, reason: str, code: str) -> None:
        """Mark a document failed: count it and publish a terminal progress event with ``reason``."""
        FAILURES.labels(self.progress_stage, code, event.department).inc()
        DOCUMENTS.labels(self.progress_stage, "failed", event.department).inc()
        await self.progress(event, stage="failed", status="failed", error=reason)


def _remember(seen: OrderedDict[str, None], document_id: str) -> None:
    seen[document_id] = None
    seen.move_to_end(document_id)
    while len(seen) > _REMEMBERED:
        seen.popitem(last=False)


__all__ = ["ClientFactory", "SettingsDep", "Stage", "StoreDep", "store_only", "topics"]

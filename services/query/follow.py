"""How the query service keeps its in-memory state — the keyword index and the language means —
in step with Chroma: one full scan at start, then the ``documents.indexed`` and
``documents.deleted`` events (no polling).

Catch-up after a (re)start (ARCHITECTURE.md, "How the query service catches up"):

1. record the first and the end offset of every partition of the topics (:func:`partition_offsets`);
2. load the language means from ``_stats``; then the keyword index — from the replica's saved
   index (``keyword_store``) when it is of the current generation and every event after its
   offsets is still in Kafka (:func:`resume_offsets`), else by scanning Chroma once (a chunk
   whose content the saved index holds is not tokenised again);
3. consume the topics from the saved index's offsets, or after a scan from the offsets of step
   1 (:class:`ResumeAt` seeks there whenever the consumer is assigned a partition, then on from
   what was applied).

An event below a recorded offset was published before step 1, and its producer had written
Chroma before publishing it, so the scan of step 2 reflects it; a saved index reflects every
event below its offsets. Events from those offsets on may be reflected already too; applying
them again is harmless, because applying an event re-reads its document from Chroma (the state
*now*) rather than replaying a change.

A third topic, ``index.switched``, says a rebuild made another index generation current
(``shared.generation``). Applying it re-reads the generation pointer (again the state now): if it
names another generation, the keyword index and the language means are loaded from that
generation's collections — while queries go on using the old ones, under the apply lock so no
index event slips between — and then the store follows it (:meth:`Follower.switch`).
"""
from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from faststream import AckPolicy
from faststream.kafka import KafkaBroker
from faststream.kafka.annotations import KafkaMessage
from pydantic import ValidationError

from services.query.keyword_index import KeywordIndex, Record
from services.query.keyword_store import Offsets
from services.query.langbias import LanguageMeans
from shared import topics
from shared.events import DocumentDeleted, DocumentIndexed, IndexSwitched
from shared.generation import IndexGeneration
from shared.settings import Settings
from shared.vectorstore import LanguageSums, VectorStore

log = logging.getLogger("legco.query.follow")
FOLLOWED = (topics.INDEXED, topics.DELETED, topics.INDEX_SWITCHED)
PAGE = 2000  # chunks per Chroma ``get`` in the full scan

IndexEvent = DocumentIndexed | DocumentDeleted
SwitchHook = Callable[[IndexGeneration], None]
"""Called (under the apply lock) with the generation the store now follows: the query service
takes that generation's embedding model."""
ChangeHook = Callable[[], None]
"""Called (under the apply lock) after every change to the state has been made: the query
service drops its cached answers (``answer_cache``)."""


def parse_event(topic: str, body: dict[str, Any]) -> IndexEvent | IndexSwitched:
    """The event model of a record of one of the :data:`FOLLOWED` topics.

    Raises:
        pydantic.ValidationError: the record is not a valid event of that topic.
    """
    if topic == topics.INDEX_SWITCHED:
        return IndexSwitched.model_validate(body)
    return (DocumentIndexed if topic == topics.INDEXED else DocumentDeleted).model_validate(body)


async def end_offsets(settings: Settings, topic_names: Sequence[str] = FOLLOWED) -> dict[TopicPartition, int]:
    """The end offset (next offset to be written) of every partition of ``topic_names``; a
    topic that does not exist yet has no entry.

    Raises:
        aiokafka errors when Kafka is unreachable.
    """
    return (await partition_offsets(settings, topic_names))[1]


async def partition_offsets(settings: Settings, topic_names: Sequence[str] = FOLLOWED
                            ) -> tuple[dict[TopicPartition, int], dict[TopicPartition, int]]:
    """``(first, end)``: the first offset still held and the end offset (next to be written) of
    every partition of ``topic_names``; a topic that does not exist yet has no entry.

    Raises:
        aiokafka errors when Kafka is unreachable.
    """
    admin = AIOKafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap, client_id="legco-query-offsets")
    await admin.start()
    try:
        described = await admin.describe_topics(list(topic_names))
    finally:
        await admin.close()
    tps = [TopicPartition(t["topic"], p["partition"]) for t in described if t["error_code"] == 0
           for p in t["partitions"]]
    if not tps:
        return {}, {}
    consumer = AIOKafkaConsumer(bootstrap_servers=settings.kafka_bootstrap, client_id="legco-query-offsets",
                                enable_auto_commit=False)
    await consumer.start()
    try:
        return dict(await consumer.beginning_offsets(tps)), dict(await consumer.end_offsets(tps))
    finally:
        await consumer.stop()


def resume_offsets(saved: Offsets, first: Mapping[TopicPartition, int],
                   end: Mapping[TopicPartition, int]) -> dict[TopicPartition, int] | None:
    """Where to consume from after restoring a saved index that reflects the events below
    ``saved``: its offset for every partition that exists now (``end``), and the first offset
    of a partition it does not know (created after it was saved: every event in it came
    later). ``None`` when the saved index cannot be caught up: an event after it is no longer
    held (its offset is below the partition's ``first``) or an offset is past the end (the
    topics were recreated)."""
    out: dict[TopicPartition, int] = {}
    for tp, stop in end.items():
        offset = saved.get((tp.topic, tp.partition))
        start = first.get(tp, 0)
        if offset is None:
            if start > 0:
                return None
            offset = start
        if not start <= offset <= stop:
            return None
        out[tp] = offset
    return out


class Follower:
    """Applies index events to a ``KeywordIndex`` and ``LanguageMeans``, reading the documents
    they name from Chroma; remembers, per partition, the next offset to apply.

    Args:
        vectors: the Chroma store (chunks and ``_stats``).
        keywords, means: the in-memory state kept in step.
        on_switch: told the generation followed after a load or a switch.
        on_change: called after each load, switch or applied batch, once the state holds it.
    """

    def __init__(self, vectors: VectorStore, keywords: KeywordIndex, means: LanguageMeans,
                 on_switch: SwitchHook | None = None, on_change: ChangeHook | None = None) -> None:
        self.vectors = vectors
        self.keywords = keywords
        self.means = means
        self.on_switch = on_switch
        self.on_change = on_change or (lambda: None)
        self.positions: dict[TopicPartition, int] = {}
        self.first: dict[TopicPartition, int] = {}
        self._apply = threading.Lock()  # a read of Chroma and its update go together

    # --- start --------------------------------------------------------------------------
    async def catch_up(self, settings: Settings, retry_s: float = 1.0) -> None:
        """Steps 1 and 2 of the module docstring, in one go (tests; the service uses
        :func:`warm_up`)."""
        await retry_until_done(lambda: self.record_positions(settings), "recording offsets", retry_s)
        await retry_until_done(lambda: asyncio.to_thread(self.load), "loading from Chroma", retry_s)

    async def record_positions(self, settings: Settings) -> None:
        """Step 1: the first and end offsets of the followed topics. Raises aiokafka errors."""
        self.first, self.positions = await partition_offsets(settings)

    def load(self) -> None:
        """Full scan of Chroma into the language means and the keyword index.

        Raises:
            chromadb errors when Chroma is down.
        """
        self.load_means()
        self.load_keywords()

    def load_means(self) -> None:
        """Every ``_stats`` record into the language means (fast: one record per document and
        language). Raises chromadb errors when Chroma is down."""
        with self._apply:
            self.means.load(self.vectors.stats_records(), self.vectors.stats_scopes())
            self.on_change()

    def load_keywords(self) -> None:
        """The keyword index: restored from the saved index when it can be caught up
        (:meth:`restore`), else every chunk from Chroma (tokenising them is most of a start's
        work; chunks the saved index holds are not tokenised again) — then saved with the
        offsets of step 1. Raises chromadb errors when Chroma is down."""
        start = time.perf_counter()
        with self._apply:
            generation = self.vectors.refresh()
            restored = self.restore(generation)
            if not restored:
                self.keywords.load(self.vectors.iter_chunks(PAGE))
                self._commit(generation)
            self.means.load(self.vectors.stats_records(), self.vectors.stats_scopes())
            if self.on_switch is not None:
                self.on_switch(generation)
            self.on_change()
        log.info("%s %d chunks of %d documents (generation %d) in %.2f s",
                 "restored" if restored else "loaded from Chroma", self.keywords.chunk_count,
                 self.keywords.document_count, generation.generation, time.perf_counter() - start)

    def restore(self, generation: IndexGeneration) -> bool:
        """Restore the keyword index from the store when it is complete, of ``generation`` and
        every event after its offsets is still in Kafka; the positions then become its offsets
        (the events since are applied again). An unusable store is still read, so a full load
        takes the tokens of the chunks it holds."""
        store = self.keywords.store
        if store is None:
            return False
        try:
            state = store.state()
        except Exception:
            log.exception("keyword index file %s cannot be read", store.path)
            return False
        resume = resume_offsets(state.offsets, self.first, self.positions) if state.complete else None
        if state.generation != generation.metadata() or resume is None:
            log.info("saved keyword index not used (complete %s, generation %s, current %s, offsets %s)",
                     state.complete, state.generation, generation.metadata(),
                     "usable" if resume is not None else "not usable")
            self.keywords.restore()  # its tokens serve the full load
            return False
        if not self.keywords.restore():
            return False
        self.positions = resume
        return True

    def _commit(self, generation: IndexGeneration) -> None:
        """Mark the saved index as a complete load of ``generation`` reflecting the events
        below the current positions."""
        if self.keywords.store is not None:
            self.keywords.store.commit(generation.metadata(), offsets_of(self.positions))

    def switch(self) -> bool:
        """Follow the generation pointer: if it names another generation, load the keyword index
        and language means from it (the old ones answer queries meanwhile; the load replaces
        them whole), then move the store to it. Returns whether it switched.

        Raises:
            chromadb errors when Chroma is down (nothing is changed then).
        """
        with self._apply:
            generation = self.vectors.read_pointer()
            if generation == self.vectors.generation:
                return False
            start = time.perf_counter()
            target = self.vectors.at(generation)
            records = list(target.iter_chunks(PAGE))
            stats, scopes = target.stats_records(), target.stats_scopes()
            self.keywords.load(records)
            self._commit(generation)
            self.means.load(stats, scopes)
            self.vectors.use(generation)
            if self.on_switch is not None:
                self.on_switch(generation)
            self.on_change()
        log.info("switched to index generation %d (%s, %s): %d chunks in %.2f s", generation.generation,
                 generation.collection, generation.model, len(records), time.perf_counter() - start)
        return True

    # --- events -------------------------------------------------------------------------
    def apply(self, events: Iterable[IndexEvent]) -> float:
        """Apply one batch of events; returns the seconds it took.

        * ``DocumentIndexed``: the document's chunks and statistics are read from Chroma and
          replace what the index held for it (nothing stored: it is dropped);
        * ``DocumentDeleted`` of a whole document: dropped from memory (no Chroma read);
        * ``DocumentDeleted`` of chunks: those chunks dropped, the document's (recomputed)
          statistics re-read.

        A whole-document deletion wins over anything else in the batch for that document
        (document ids are never reused). Only the documents named are tokenised; BM25 is
        re-fit once per batch. New documents are added in the order they were indexed.

        Raises:
            chromadb errors when Chroma is down (nothing is changed then).
        """
        start = time.perf_counter()
        batch = sorted(events, key=lambda e: e.ts)
        if not batch:
            return 0.0
        gone = {e.document_id for e in batch if isinstance(e, DocumentDeleted) and e.chunk_ids is None}
        reread = list(dict.fromkeys(e.document_id for e in batch if e.document_id not in gone
                                    and isinstance(e, DocumentIndexed)))
        restat = list(dict.fromkeys(e.document_id for e in batch if e.document_id not in gone
                                    and isinstance(e, DocumentDeleted)))
        removed = [cid for e in batch if isinstance(e, DocumentDeleted) and e.document_id not in gone
                   for cid in e.chunk_ids or []]
        with self._apply:
            chunks: dict[str, list[Record]] = {d: self.vectors.document_chunks(d) for d in reread}
            stats: dict[str, LanguageSums] = {d: self.vectors.document_stats(d)
                                              for d in dict.fromkeys(reread + restat)}
            scopes = self.vectors.stats_scopes({"document_id": {"$in": list(stats)}}) if stats else {}
            chunks.update((d, []) for d in gone)
            stats.update((d, {}) for d in gone)
            self.keywords.update(chunks, removed)
            self.means.update(stats, scopes)
            self.on_change()
        took = time.perf_counter() - start
        log.info("applied %d events (%d documents read, %d dropped, %d chunks dropped) in %.3f s",
                 len(batch), len(reread), len(gone), len(removed), took)
        return took

    def applied(self, records: Iterable[Any]) -> None:
        """Remember that ``records`` (Kafka ``ConsumerRecord``s) are applied: their partitions
        resume after them on a reassignment."""
        for r in records:
            tp = TopicPartition(r.topic, r.partition)
            self.positions[tp] = max(self.positions.get(tp, 0), r.offset + 1)
        store = self.keywords.store
        if store is not None:
            store.save_positions(offsets_of(self.positions))

    async def apply_with_retry(self, events: list[IndexEvent | IndexSwitched], retry_s: float = 0.5) -> None:
        """:meth:`apply` in a worker thread, retried with backoff (doubling up to 30 s) until
        Chroma answers: an event is never skipped, the index only lags while Chroma is down. A
        generation switch in the batch is followed first (:meth:`switch`): the batch's other
        events re-read their documents from the generation that is current then."""
        switches = any(isinstance(e, IndexSwitched) for e in events)
        documents = [e for e in events if not isinstance(e, IndexSwitched)]
        while True:
            try:
                if switches:
                    await asyncio.to_thread(self.switch)
                    switches = False
                await asyncio.to_thread(self.apply, documents)
                return
            except Exception as e:  # noqa: BLE001 - Chroma down: retried, an event is never skipped
                log.warning("applying %d events failed (%s: %s); retrying in %.1f s", len(events),
                            type(e).__name__, e, retry_s)
                await asyncio.sleep(retry_s)
                retry_s = min(retry_s * 2, 30.0)


def offsets_of(positions: Mapping[TopicPartition, int]) -> Offsets:
    """Positions as the store keeps them: ``(topic, partition)`` → next offset."""
    return {(tp.topic, tp.partition): n for tp, n in positions.items()}


async def retry_until_done(step: Callable[[], Awaitable[Any]], what: str, retry_s: float = 1.0) -> None:
    """Await ``step()`` until it succeeds, retrying every ``retry_s`` seconds (doubling up to
    30 s): Kafka or Chroma may not be up yet."""
    while True:
        try:
            await step()
            return
        except Exception as e:  # noqa: BLE001 - a dependency not up yet: retried until it answers
            log.warning("%s failed (%s: %s); retrying in %.0f s", what, type(e).__name__, e, retry_s)
            await asyncio.sleep(retry_s)
            retry_s = min(retry_s * 2, 30.0)


class ResumeAt(ConsumerRebalanceListener):  # type: ignore[misc]  # aiokafka has no type hints
    """Seeks every partition the consumer is assigned to the follower's next offset for it
    (the end offset recorded before the scan, then the offset after the last applied event),
    so neither the consumer group's committed offsets nor ``auto_offset_reset`` decide where a
    replica starts. A partition the follower does not know (a topic created later) starts
    from the group's committed offset, else the earliest one.

    ``subscriber`` (the FastStream subscriber whose consumer to seek) is set after it is made.
    """

    def __init__(self, follower: Follower) -> None:
        self.follower = follower
        self.subscriber: Any = None

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        """Nothing to do: positions are kept by the follower."""

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        """Seek each assigned partition known to the follower to its next offset."""
        consumer = self.subscriber.consumer
        seeks: dict[str, dict[int, int]] = {}
        for tp in sorted(assigned):
            offset = self.follower.positions.get(TopicPartition(tp.topic, tp.partition))
            if offset is not None:
                consumer.seek(tp, offset)
                seeks.setdefault(tp.topic, {})[tp.partition] = offset
        log.info("assigned %d partitions; resuming at (partition: offset) %s", len(assigned), seeks)


def subscribe(broker: KafkaBroker, follower: Follower, settings: Settings) -> Any:
    """Subscribe ``follower`` to both topics on ``broker`` (before the broker starts): consumer
    group ``query-<query_instance>`` — one per replica, as every replica keeps its own index and
    needs every event — in batches (events fetched together are applied together, one BM25
    re-fit), positioned by :class:`ResumeAt`; offsets are committed after a batch is applied.
    Returns the subscriber."""
    resume = ResumeAt(follower)
    sub = broker.subscriber(*FOLLOWED, group_id=f"query-{settings.query_instance}", batch=True,
                            max_records=500, auto_offset_reset="earliest", ack_policy=AckPolicy.ACK,
                            listener=resume)
    resume.subscriber = sub

    @sub
    async def on_index_events(body: list[Any], msg: KafkaMessage) -> None:
        records = msg.raw_message if isinstance(msg.raw_message, tuple) else (msg.raw_message,)
        events: list[IndexEvent | IndexSwitched] = []
        for record, value in zip(records, body, strict=True):
            try:
                events.append(parse_event(record.topic, value))
            except ValidationError as e:  # nothing to apply; the others still are
                log.error("skipping an invalid event at %s[%d]@%d: %s", record.topic, record.partition,
                          record.offset, e)
        await follower.apply_with_retry(events)
        follower.applied(records)

    return sub

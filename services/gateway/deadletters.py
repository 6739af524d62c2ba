"""Dead letters an operator can act on: the dead-letter topic read back, and replays.

A stage that gives up on an event (a bug past its bounded attempts, or a dependency down past
``OUTAGE_LIMIT_S``) publishes a ``DeadLetter`` — the event's payload, its source topic, the
reason — and fails the document (``shared.stage.Stage.dead_letter``). Here the gateway reads
the topic from its beginning to its end offsets (``shared.topic_reader``: no consumer group,
reading commits nothing and every gateway sees the same), and a replay republishes the payload to its source topic with
its key, after setting the document back to ``queued`` (``Registry.requeue``, the only way out
of ``failed``). The stage then runs the event again as if it had just arrived: every handler is
idempotent, and the status machine moves the document forward to ``indexed`` once.

What is replayed per document: its latest dead letter (matching ``stage`` when given); for a
page of the table stage or a chunk range of the embedder, the latest dead letter of every page
(range) of the document (each is one event, keyed ``{document_id}:{n}``, and the gatherer waits
for all of them). Documents that are deleted, or not ``failed``
(already replayed, or indexed since), are skipped with the reason.
"""
from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from services.gateway.state import GatewayState
from shared import topics
from shared.api import DeadLetterEntry, ReplayedDocument, ReplayRequest, ReplayResponse
from shared.events import DeadLetter
from shared.metrics import REPLAYS
from shared.settings import Settings
from shared.topic_reader import read_topic

log = logging.getLogger("legco.gateway.deadletters")

STAGE_OF_GROUP = {"parser": "parsing", "tables-fanout": "tables", "tables": "tables", "tables-gather": "tables",
                  "splitter": "splitting", "embedder": "embedding", "embedder-ranges": "embedding",
                  "embedder-gather": "embedding", "embedder-rebuild": "reindex"}
STAGE_OF_TOPIC = {topics.UPLOADED: "parsing", topics.PARSED: "tables", topics.TABLE_PAGES: "tables",
                  topics.TABLE_PAGE_DONE: "tables", topics.TABLES: "splitting", topics.CHUNKED: "embedding",
                  topics.CHUNK_RANGES: "embedding", topics.CHUNK_RANGE_DONE: "embedding",
                  topics.INDEX_REBUILD: "reindex"}
PART_OF_TOPIC = {topics.TABLE_PAGES: "page_number", topics.CHUNK_RANGES: "range_number"}
"""Topics whose events are parts of a document (a page, a chunk range), each its own event keyed
``{document_id}:{part}``: the field of the payload that numbers the part."""
READ_TIMEOUT_S = 15.0  # longest a read of the topic may take before what was read is returned


@dataclass
class Letter:
    """One record of the dead-letter topic: the event and where it is."""

    event: DeadLetter
    partition: int
    offset: int

    @property
    def stage(self) -> str:
        """The stage users see (``parsing`` … ``embedding``), from the consumer group or topic."""
        e = self.event
        return STAGE_OF_GROUP.get(e.consumer_group) or STAGE_OF_TOPIC.get(e.source_topic, e.consumer_group)

    @property
    def part(self) -> int | None:
        """The part a part event numbers (a table-stage page, an embedder chunk range;
        ``PART_OF_TOPIC``), ``None`` for document events."""
        field = PART_OF_TOPIC.get(self.event.source_topic)
        part = self.event.payload.get(field) if field else None
        return int(part) if isinstance(part, int) else None

    @property
    def page_number(self) -> int | None:
        """The page of a table-stage page event (``None`` for other events)."""
        return self.part if self.event.source_topic == topics.TABLE_PAGES else None

    def matches(self, stage: str | None) -> bool:
        """True for ``stage`` ``None``, or naming this letter's stage, consumer group or source topic."""
        return stage is None or stage in (self.stage, self.event.consumer_group, self.event.source_topic)

    @property
    def key(self) -> bytes:
        """The Kafka key its event had on the source topic."""
        part = self.part
        doc = self.event.document_id
        return (f"{doc}:{part}" if part is not None else doc).encode()


async def read_letters(settings: Settings, timeout_s: float = READ_TIMEOUT_S) -> list[Letter]:
    """Every record of the dead-letter topic, oldest first per partition (what can be read in
    ``timeout_s`` seconds; records that are not valid dead letters are skipped).

    Raises:
        aiokafka errors when Kafka is unreachable.
    """
    out: list[Letter] = []
    for r in await read_topic(settings, topics.DEAD_LETTER, timeout_s):
        try:
            out.append(Letter(DeadLetter.model_validate_json(r.value or b""), r.partition, r.offset))
        except ValidationError:
            log.warning("skipping an invalid dead letter at %d@%d", r.partition, r.offset)
    return out


def newest_first(letters: list[Letter]) -> list[Letter]:
    """Letters by time, newest first (then by partition and offset, for a stable order)."""
    return sorted(letters, key=lambda x: (x.event.ts, x.partition, x.offset), reverse=True)


def entries(state: GatewayState, letters: list[Letter], every: bool = False,
            department: str | None = None) -> list[DeadLetterEntry]:
    """The listing: newest first, the latest per document unless ``every``, one department's
    documents when ``department`` is given; with the document's filename and status now."""
    seen: set[str] = set()
    out = []
    for x in newest_first(letters):
        e = x.event
        if department is not None and e.department != department:
            continue
        if not every and e.document_id in seen:
            continue
        seen.add(e.document_id)
        rec = state.registry.get(e.document_id)
        out.append(DeadLetterEntry(document_id=e.document_id, department=e.department,
                                   filename=rec.filename if rec else e.payload.get("filename"),
                                   status=rec.status if rec else None, stage=x.stage, source_topic=e.source_topic,
                                   consumer_group=e.consumer_group, reason=e.reason, error_type=e.error_type,
                                   attempts=e.attempts, ts=e.ts, page_number=x.page_number, partition=x.partition,
                                   offset=x.offset))
    return out


def to_replay(letters: list[Letter], stage: str | None) -> list[Letter]:
    """The letters one document's replay republishes (its letters, oldest first): the latest
    (of ``stage``), and for a part event (a table-stage page, an embedder chunk range) the latest
    of each of its parts on that topic (the gatherer waits for all of them)."""
    mine = [x for x in letters if x.matches(stage)]
    if not mine:
        return []
    latest = mine[-1]
    topic = latest.event.source_topic
    if topic not in PART_OF_TOPIC:
        return [latest]
    parts: dict[int | None, Letter] = {}
    for x in mine:
        if x.event.source_topic == topic:
            parts[x.part] = x
    return sorted(parts.values(), key=lambda x: (x.event.ts, x.offset))


async def replay(state: GatewayState, request: ReplayRequest) -> ReplayResponse:
    """Republish dead letters (see the module docstring); per document, what was done.

    Raises:
        aiokafka errors when the dead-letter topic cannot be read (Kafka down).
    """
    letters = await read_letters(state.settings)
    by_doc: dict[str, list[Letter]] = defaultdict(list)
    for x in sorted(letters, key=lambda x: (x.event.ts, x.partition, x.offset)):
        by_doc[x.event.document_id].append(x)
    wanted = list(by_doc) if request.all else list(dict.fromkeys(request.document_ids or []))
    return ReplayResponse(documents=[await _replay_one(state, doc_id, by_doc.get(doc_id, []), request.stage)
                                     for doc_id in wanted])


async def _replay_one(state: GatewayState, doc_id: str, letters: list[Letter], stage: str | None) -> ReplayedDocument:
    chosen = to_replay(letters, stage)
    rec = state.registry.get(doc_id)
    out = ReplayedDocument(document_id=doc_id, filename=rec.filename if rec else None,
                           stage=chosen[-1].stage if chosen else None)
    if not chosen:
        out.skipped = "no dead letter" + (f" of stage {stage}" if stage else "")
    elif rec is None:
        out.skipped = "the document was deleted"
    elif chosen[-1].stage == "reindex":
        out.skipped = "a reindex event; run the reindex again"
    elif rec.status != "failed":
        out.skipped = f"the document is {rec.status}, not failed"
    if out.skipped or rec is None:
        return out
    await state.registry.requeue(doc_id)  # before the events: their progress must find it queued
    try:
        for x in chosen:
            await state.broker.publish(_payload(x), topic=x.event.source_topic, key=x.key)
            out.replayed += 1
    except Exception as e:  # noqa: BLE001 - Kafka refused: the document is failed again, as it was
        log.warning("replay of %s not published (%s: %s)", doc_id, type(e).__name__, e,
                    extra={"document_id": doc_id, "department": rec.department})
        if out.replayed == 0:
            await state.registry.put(rec)
        out.skipped = f"Kafka did not take the event ({type(e).__name__})"
    if out.replayed:
        REPLAYS.labels(chosen[-1].stage).inc(out.replayed)
        log.info("replayed %d dead-lettered events of %s to %s", out.replayed, doc_id, chosen[-1].event.source_topic,
                 extra={"document_id": doc_id, "department": rec.department, "stage": chosen[-1].stage})
    return out


def _payload(letter: Letter) -> dict[str, Any]:
    """The event as it was, with a new ``event_id`` (it is a new delivery) and time."""
    payload = dict(letter.event.payload)
    payload.pop("event_id", None)
    payload.pop("ts", None)
    return payload


async def read_entries(state: GatewayState, every: bool, department: str | None) -> list[DeadLetterEntry]:
    """The listing of ``GET /api/v1/deadletters``."""
    return entries(state, await read_letters(state.settings), every, department)

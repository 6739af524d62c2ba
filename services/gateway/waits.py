"""Honest waits: each unfinished document's place in line and an estimate of when it is indexed.

Measured by the gateway from the progress events it already folds (``progress.py``); nothing is
asked of the stages. Units: positions are 1-based (1 = the next document the stage starts),
times are seconds, rates are chunks per second.

**Where a document waits.** A document whose current stage has finished its part waits for the
next stage: ``uploaded`` for the parser, a finished parse (``page_count`` known) for the table
stage, all pages of ``tables`` for the splitter, a finished split (its ``chunk_count`` event)
for the embedder. A document a stage is working on (and a stage waiting for a dependency,
``waiting_for``) has no place in line. The embedder reports a document first after its first
batch, so a document the embedder has started but not yet reported still counts as waiting.

**Place in line** (:func:`positions`). Every stage starts work from the departments in turn,
first-in, first-out within one (``shared/workqueue.py``, ARCHITECTURE.md "Fair share between
departments"). So a document with ``k`` documents of its own department ahead of it (by
``upload_seq``) starts after those ``k`` and after at most ``k`` of every other department's
waiting documents: position ``1 + k + sum_j min(n_j, k)``. The estimate assumes it goes first
within its round and that a stage's free lanes are taken in that order; it counts other
departments' documents without naming them.

**Estimated time** (:func:`estimate`), until the document is indexed. The embedder is the
bottleneck and serves departments fairly (``FairBatcher``, least-attained service), which we
model as processor sharing between departments at the measured rate ``R`` (chunks/s): by the
time the document's department has been given ``W`` chunks (its own and those of its
department's documents ahead of it), every other department ``j`` with ``B_j`` chunks left has
been given ``min(B_j, W)``, so the embedding ends at ``(W + sum_j min(B_j, W)) / R``. A document
that has not reached the embedder cannot be embedded before the stages before it are done: at
least its remaining upstream time (the measured mean time from upload to a finished split,
minus its age) plus its own chunks at ``R``. The estimate is the larger of the two. Chunks not
yet known (before the split) are estimated from the measured chunks per page, or per document.
What the model leaves out: least-attained service remembers the last minutes (a department
just served a lot waits longer, ARCHITECTURE.md), and the upstream stages are taken as never the
bottleneck. Without a measured rate there is no estimate (``None``), never a made-up one.

**The rate** (:class:`RateMeter`): an exponentially time-weighted mean of the embedder's
throughput, chunks embedded over seconds busy, from the ``embedding`` progress events of every
document. Time counts as busy only while some document was at the embedder (its split finished,
not yet indexed), so an idle embedder does not lower the rate.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from shared.api import DocumentRecord
from shared.events import ProgressEvent

TERMINAL = frozenset({"indexed", "failed"})
STAGES = ("parsing", "tables", "splitting", "embedding")
"""The stages a document can wait for, in pipeline order."""


def seconds(iso: str | None) -> float | None:
    """An ISO-8601 time as seconds since the epoch (``None`` for none or an unreadable one)."""
    if not iso:
        return None
    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return None


def waiting_for_stage(record: DocumentRecord) -> str | None:
    """The stage ``record`` waits to be started by (one of :data:`STAGES`), or ``None`` when a
    stage is working on it or it has finished."""
    if record.status in TERMINAL or record.waiting_for:
        return None
    finished = record.pages_total > 0 and record.pages_done >= record.pages_total
    if record.stage == "uploaded":
        return "parsing"
    if record.stage == "parsing" and record.page_count is not None:
        return "tables"
    if record.stage == "tables" and finished:
        return "splitting"
    if record.stage == "splitting" and finished:
        return "embedding"
    return None


def at_embedder(record: DocumentRecord) -> bool:
    """True when the embedder has ``record`` to do: split, not yet indexed (waiting or embedding)."""
    return record.status not in TERMINAL and (
        record.stage == "embedding" or waiting_for_stage(record) == "embedding")


def upload_order(record: DocumentRecord) -> tuple[int, str, str]:
    """Sort key of the line: upload sequence, then upload time, then id (ties broken stably)."""
    return record.upload_seq, record.upload_date, record.document_id


def positions(records: Iterable[DocumentRecord]) -> dict[str, int]:
    """The 1-based place in line of every waiting document (see the module docstring), by id;
    documents not waiting are left out."""
    lines: dict[str, dict[str, list[DocumentRecord]]] = {}
    for r in records:
        stage = waiting_for_stage(r)
        if stage is not None:
            lines.setdefault(stage, {}).setdefault(r.department, []).append(r)
    out: dict[str, int] = {}
    for by_dept in lines.values():
        sizes = {d: len(docs) for d, docs in by_dept.items()}
        for dept, docs in by_dept.items():
            for k, r in enumerate(sorted(docs, key=upload_order)):
                out[r.document_id] = 1 + k + sum(min(n, k) for d, n in sizes.items() if d != dept)
    return out


@dataclass
class RateMeter:
    """The embedder's throughput, chunks/s, as ``chunks / busy_s``: both sums exponentially
    time-weighted with half-life ``half_life_s`` seconds of busy time.

    Args:
        half_life_s: after this many busy seconds a sample counts half.
        min_busy_s: no rate until this many (weighted) busy seconds were measured.
    """

    half_life_s: float = 120.0
    min_busy_s: float = 5.0
    chunks: float = 0.0
    busy_s: float = 0.0
    mark: float | None = None  # time of the last event the meter saw (epoch seconds)

    def add(self, ts: float, chunks: float, busy: bool) -> None:
        """Count ``chunks`` embedded by time ``ts``; ``busy``: the embedder had work since the
        previous event (else the time since then was idle and is not counted)."""
        if busy and self.mark is not None:
            dt = max(0.0, ts - self.mark)
            decay = 0.5 ** (dt / self.half_life_s)
            self.chunks = self.chunks * decay + chunks
            self.busy_s = self.busy_s * decay + dt
            self.mark = max(self.mark, ts)  # an event from another partition may come late
        else:
            self.mark = ts  # a busy period starts here

    @property
    def rate(self) -> float | None:
        """Chunks per second, or ``None`` before ``min_busy_s`` of work was seen."""
        if self.busy_s < self.min_busy_s or self.chunks <= 0:
            return None
        return self.chunks / self.busy_s


@dataclass
class Mean:
    """An exponentially weighted mean of samples (``weight``: of the newest); ``None`` before one."""

    weight: float = 0.3
    value: float | None = None

    def add(self, sample: float) -> None:
        """Take one sample into the mean."""
        self.value = sample if self.value is None else self.value + self.weight * (sample - self.value)


@dataclass
class Wait:
    """A document's wait: ``position`` 1-based in the line of ``stage`` (``None``: not waiting),
    ``eta_s`` seconds until it is indexed (``None``: no estimate)."""

    stage: str | None
    position: int | None
    eta_s: float | None


@dataclass
class Waits:
    """What the gateway measured (rate, chunks per page and per document, upstream time, the
    chunk count of each split document) and the estimates it gives (:meth:`estimate`).
    In memory: a restarted gateway measures again (no estimate until it has)."""

    meter: RateMeter = field(default_factory=RateMeter)
    chunks_per_page: Mean = field(default_factory=Mean)
    chunks_per_doc: Mean = field(default_factory=Mean)
    upstream_s: Mean = field(default_factory=Mean)
    split_chunks: dict[str, int] = field(default_factory=dict)
    _done: dict[str, int] = field(default_factory=dict)
    _sent: dict[str, tuple[int | None, float | None]] = field(default_factory=dict)

    # --- measuring --------------------------------------------------------------------------
    def observe(self, before: DocumentRecord | None, event: ProgressEvent, busy: bool) -> None:
        """Learn from one progress event that moved ``before`` (the record before the fold)
        forward; ``busy``: some document was at the embedder before it (:func:`at_embedder`)."""
        ts = seconds(event.ts)
        if before is None or ts is None:
            return
        doc = event.document_id
        if event.stage == "splitting" and event.chunk_count is not None:  # the split is done
            self.split_chunks[doc] = event.chunk_count
            self.chunks_per_doc.add(event.chunk_count)
            pages = before.page_count
            if pages:
                self.chunks_per_page.add(event.chunk_count / pages)
            uploaded = seconds(before.upload_date)
            if uploaded is not None and ts >= uploaded:
                self.upstream_s.add(ts - uploaded)
            self.meter.add(ts, 0, busy)  # the embedder is busy from here on
            return
        if event.stage in ("embedding", "indexed") and event.unit == "chunks" and event.waiting_for is None:
            prev = self._done.get(doc, before.pages_done if before.stage == "embedding" else 0)
            self._done[doc] = max(prev, event.pages_done)
            self.meter.add(ts, max(0, event.pages_done - prev), busy)
        if event.status in TERMINAL:
            self.forget(doc)

    def forget(self, document_id: str) -> None:
        """Drop what is kept for one document (finished or deleted)."""
        self.split_chunks.pop(document_id, None)
        self._done.pop(document_id, None)
        self._sent.pop(document_id, None)

    # --- estimating -------------------------------------------------------------------------
    def chunks_left(self, record: DocumentRecord) -> float | None:
        """Chunks the embedder still has to do for ``record``: counted when known, else
        estimated from its pages or the mean document; ``None`` without any measurement."""
        if record.stage == "embedding" and record.unit == "chunks" and record.pages_total > 0:
            return max(0, record.pages_total - record.pages_done)
        if record.document_id in self.split_chunks:
            return self.split_chunks[record.document_id]
        if record.page_count and self.chunks_per_page.value is not None:
            return record.page_count * self.chunks_per_page.value
        return self.chunks_per_doc.value

    def estimate(self, records: Iterable[DocumentRecord], now: float) -> dict[str, Wait]:
        """The :class:`Wait` of every unfinished document of ``records`` (all departments: the
        line is shared) at time ``now`` (epoch seconds), by id."""
        live = [r for r in records if r.status not in TERMINAL]
        place = positions(live)
        rate = self.meter.rate
        left = {r.document_id: self.chunks_left(r) for r in live}
        backlog: dict[str, float] = {}
        for r in live:
            backlog[r.department] = backlog.get(r.department, 0.0) + (left[r.document_id] or 0.0)
        out: dict[str, Wait] = {}
        for r in live:
            stage = waiting_for_stage(r)
            out[r.document_id] = Wait(stage, place.get(r.document_id),
                                      self._eta(r, live, left, backlog, rate, now))
        return out

    def _eta(self, r: DocumentRecord, live: list[DocumentRecord], left: dict[str, float | None],
             backlog: dict[str, float], rate: float | None, now: float) -> float | None:
        """Seconds until ``r`` is indexed (module docstring), or ``None``."""
        own = left[r.document_id]
        if rate is None or own is None:
            return None
        mine = upload_order(r)
        work = sum(left[o.document_id] or 0.0 for o in live
                   if o.department == r.department and upload_order(o) <= mine)
        shared = work + sum(min(b, work) for d, b in backlog.items() if d != r.department)
        eta = shared / rate
        if not at_embedder(r):
            uploaded = seconds(r.upload_date)
            upstream = self.upstream_s.value or 0.0
            age = now - uploaded if uploaded is not None else 0.0
            eta = max(eta, max(0.0, upstream - age) + own / rate)
        return round(eta, 1)

    def annotate(self, records: Iterable[DocumentRecord], now: float) -> list[DocumentRecord]:
        """``records`` with ``queue_position`` and ``eta_s`` filled in (copies; the stored records
        keep ``None``), in their order; finished documents as they are. ``records`` must be the
        whole registry: the line counts every department's documents."""
        recs = list(records)
        waits = self.estimate(recs, now)
        return [with_wait(r, waits.get(r.document_id)) for r in recs]

    def announce(self, record: DocumentRecord, records: Iterable[DocumentRecord], now: float) -> DocumentRecord:
        """``record`` (new or changed, about to be sent over SSE) annotated among ``records``;
        remembers what is sent, so :meth:`changed` does not send it again."""
        if record.status in TERMINAL:
            self.forget(record.document_id)
            return record
        others = [r for r in records if r.document_id != record.document_id]
        w = self.estimate([*others, record], now).get(record.document_id)
        if w is not None:
            self._sent[record.document_id] = (w.position, w.eta_s)
        return with_wait(record, w)

    def changed(self, records: Iterable[DocumentRecord], now: float) -> list[DocumentRecord]:
        """The unfinished records whose wait changed enough to be sent again (their place in
        line, or the estimate by more than ``max(10 s, 20 %)``, or it appeared or went),
        annotated; remembers what it returned."""
        recs = list(records)
        known = {r.document_id for r in recs}
        for kept in (self.split_chunks, self._done, self._sent):
            for doc in [d for d in kept if d not in known]:  # deleted meanwhile
                del kept[doc]
        waits = self.estimate(recs, now)
        out = []
        for r in recs:
            w = waits.get(r.document_id)
            if w is None:
                continue
            if self.worth_sending(r.document_id, w):
                out.append(with_wait(r, w))
        return out

    def worth_sending(self, document_id: str, w: Wait) -> bool:
        """True (and remembered) when ``w`` differs enough from what was last sent for the document."""
        sent = self._sent.get(document_id)
        now = (w.position, w.eta_s)
        if sent is not None:
            pos, eta = sent
            same_eta = (eta is None) == (w.eta_s is None) and (
                eta is None or w.eta_s is None or abs(eta - w.eta_s) <= max(10.0, 0.2 * eta))
            if pos == w.position and same_eta:
                return False
        self._sent[document_id] = now
        return True


def with_wait(record: DocumentRecord, w: Wait | None) -> DocumentRecord:
    """A copy of ``record`` carrying ``w`` (``None``: no wait)."""
    if w is None:
        return record
    eta = w.eta_s if w.eta_s is None or math.isfinite(w.eta_s) else None
    return record.model_copy(update={"queue_position": w.position, "eta_s": eta})

"""Follow uploaded documents until each is ``indexed`` or ``failed``: the gateway's document
records from the SSE stream (``document`` events), with a poll of ``GET /api/v1/documents/{id}``
every ``poll_interval_s`` seconds as a fallback.

The gateway folds the pipeline's progress into the record; this module only keeps the newest
record of each document.
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx

from cli import api
from cli.sse import DocumentStream, Received
from shared.settings import ClientSettings

TERMINAL = ("indexed", "failed")
GONE = "The document was deleted or replaced while indexing."


def _when(record: dict[str, Any]) -> datetime | None:
    """The record's ``updated_at`` (ISO-8601 with a UTC offset), or ``None`` when absent,
    unreadable or without an offset (not comparable)."""
    try:
        when = datetime.fromisoformat(record["updated_at"])
    except (KeyError, TypeError, ValueError):
        return None
    return when if when.tzinfo is not None else None


@dataclass
class DocProgress:
    """The newest known record of one document, as the progress bars read it.

    ``events`` are the document's SSE events in arrival order (``bench/ingest.py`` reads the
    stage timings from their records' ``updated_at``); ``chunk_count`` is ``None`` until the
    document is indexed.
    """

    document_id: str
    filename: str
    stage: str = "uploaded"
    status: str = "queued"
    pages_done: int = 0
    pages_total: int = 0
    unit: str = "pages"
    step: str | None = None
    step_done: int = 0
    step_total: int = 0
    error: str | None = None
    chunk_count: int | None = None
    warnings: list[str] = field(default_factory=list)
    events: list[Received] = field(default_factory=list)
    updated_at: datetime | None = None

    @property
    def stage_label(self) -> str:
        """The stage and the step under way with its counts: ``splitting · verifying 3/7``
        (the splitter's LLM verification pass, in Q&A pairs), else the stage alone."""
        if not self.step:
            return self.stage
        counts = f" {self.step_done}/{self.step_total}" if self.step_total else ""
        return f"{self.stage} · {self.step}{counts}"

    @property
    def done(self) -> bool:
        """True once the document is ``indexed`` or ``failed``."""
        return self.status in TERMINAL

    def take(self, record: dict[str, Any]) -> bool:
        """Adopt a document record (``DocumentRecord`` JSON) unless it is older than the one
        held (``updated_at``; a poll answer can arrive after a newer SSE record) or the
        document is already terminal. Returns True when the state changed."""
        when = _when(record)
        if self.done or (when is not None and self.updated_at is not None and when < self.updated_at):
            return False
        before = self._view()
        self.stage = record.get("stage") or self.stage
        self.status = record.get("status") or self.status
        self.pages_done = record.get("pages_done") or 0
        self.pages_total = record.get("pages_total") or 0
        self.unit = record.get("unit") or self.unit
        self.step = record.get("step")
        self.step_done = record.get("step_done") or 0
        self.step_total = record.get("step_total") or 0
        self.error = record.get("error")
        if self.status == "indexed":
            self.chunk_count = record.get("chunk_count")
        self.warnings = list(record.get("warnings") or [])
        self.updated_at = when or self.updated_at
        return self._view() != before

    def gone(self) -> bool:
        """The document was deleted (or replaced) before it finished: mark it failed. Returns
        True when the state changed."""
        if self.done:
            return False
        self.stage, self.status, self.error = "failed", "failed", GONE
        return True

    def _view(self) -> tuple[Any, ...]:
        return (self.stage, self.status, self.pages_done, self.pages_total, self.unit, self.step, self.step_done,
                self.step_total, self.error,
                self.chunk_count, tuple(self.warnings))


class Tracker:
    """Tracks documents registered with ``add`` until all are terminal.

    Args:
        client: gateway client (``base_url`` = gateway root).
        stream: a started ``DocumentStream`` (subscribe before uploading, so nothing is missed).
        on_update: called with a ``DocProgress`` whenever its state changed.
        poll_s: seconds between fallback polls of unfinished documents; default
            ``ClientSettings().poll_interval_s``.
    """

    def __init__(self, client: httpx.AsyncClient, stream: DocumentStream,
                 on_update: Callable[[DocProgress], None] | None = None, poll_s: float | None = None) -> None:
        self.client, self.stream = client, stream
        self.poll_s = ClientSettings().poll_interval_s if poll_s is None else poll_s
        self.on_update = on_update or (lambda d: None)
        self.docs: dict[str, DocProgress] = {}
        self.pending: dict[str, list[Received]] = {}
        self.uploads_done = asyncio.Event()

    def add(self, document_id: str, filename: str) -> DocProgress:
        """Start tracking a document (its events that arrived before are applied now)."""
        doc = self.docs[document_id] = DocProgress(document_id, filename)
        for rec in self.pending.pop(document_id, []):
            self._apply_event(doc, rec)
        self.on_update(doc)
        return doc

    @staticmethod
    def _apply_event(doc: DocProgress, rec: Received) -> bool:
        doc.events.append(rec)
        return doc.gone() if rec.event == "deleted" else doc.take(rec.data)

    def _all_done(self) -> bool:
        return self.uploads_done.is_set() and all(d.done for d in self.docs.values())

    async def _poll(self) -> None:
        for doc in [d for d in self.docs.values() if not d.done]:
            try:
                rec = await api.get_document(self.client, doc.document_id)
            except api.ApiError as e:
                if e.status == 404 and doc.gone():
                    self.on_update(doc)
                continue
            if doc.take(rec):
                self.on_update(doc)

    async def run(self, timeout_s: float | None = None) -> bool:
        """Consume events until ``uploads_done`` is set and every tracked document is terminal,
        or ``timeout_s`` seconds passed. Returns True when all finished."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        next_poll = time.monotonic() + self.poll_s
        while not self._all_done():
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return False
            wait = next_poll - now
            if deadline is not None:
                wait = min(wait, deadline - now)
            try:
                rec = await asyncio.wait_for(self.stream.queue.get(), max(wait, 0.01))
            except TimeoutError:
                rec = None
            if rec is not None:
                doc_id = str(rec.data.get("document_id", ""))
                doc = self.docs.get(doc_id)
                if doc is None:
                    self.pending.setdefault(doc_id, []).append(rec)
                elif self._apply_event(doc, rec):
                    self.on_update(doc)
            if time.monotonic() >= next_poll:
                await self._poll()
                next_poll = time.monotonic() + self.poll_s
        return True

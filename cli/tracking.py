"""Follow uploaded documents until each is ``indexed`` or ``failed``: progress events from the
SSE stream, with a poll of ``GET /api/v1/documents/{id}`` every few seconds as a fallback."""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from cli import api
from cli.sse import ProgressStream, Received

TERMINAL = ("indexed", "failed")
FIELDS = ("stage", "status", "pages_done", "pages_total", "unit", "error")


@dataclass
class DocProgress:
    """What is known about one document; ``events`` are its progress events in arrival order."""

    document_id: str
    filename: str
    stage: str = "uploaded"
    status: str = "queued"
    pages_done: int = 0
    pages_total: int = 0
    unit: str = "pages"
    error: str | None = None
    chunk_count: int | None = None
    warnings: list[str] = field(default_factory=list)
    events: list[Received] = field(default_factory=list)

    @property
    def done(self) -> bool:
        """True once the document is ``indexed`` or ``failed``."""
        return self.status in TERMINAL

    def apply(self, data: dict[str, Any]) -> None:
        """Fold a progress event or a document record (same field names) into this state.
        A terminal state is never left again."""
        if self.done:
            return
        for k in FIELDS:
            if k in data and data[k] is not None:
                setattr(self, k, data[k])
        if data.get("chunk_count") is not None and data.get("status") == "indexed":
            self.chunk_count = data["chunk_count"]
        for w in data.get("warnings") or []:
            if w not in self.warnings:
                self.warnings.append(w)


class Tracker:
    """Tracks documents registered with ``add`` until all are terminal.

    Args:
        client: gateway client (``base_url`` = gateway root).
        stream: a started ``ProgressStream`` (subscribe before uploading, so nothing is missed).
        on_update: called with a ``DocProgress`` whenever its state changed.
        poll_s: seconds between fallback polls of unfinished documents.
    """

    def __init__(self, client: httpx.AsyncClient, stream: ProgressStream,
                 on_update: Callable[[DocProgress], None] | None = None, poll_s: float = 3.0) -> None:
        self.client, self.stream, self.poll_s = client, stream, poll_s
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

    def _apply_event(self, doc: DocProgress, rec: Received) -> None:
        doc.events.append(rec)
        doc.apply(rec.data)

    def _all_done(self) -> bool:
        return self.uploads_done.is_set() and all(d.done for d in self.docs.values())

    async def _poll(self) -> None:
        for doc in [d for d in self.docs.values() if not d.done]:
            try:
                rec = await api.get_document(self.client, doc.document_id)
            except api.ApiError as e:
                if e.status == 404:
                    doc.apply({"status": "failed", "stage": "failed",
                               "error": "The document was deleted or replaced while indexing."})
                    self.on_update(doc)
                continue
            before = (doc.stage, doc.status, doc.pages_done, doc.pages_total)
            doc.apply(rec)
            if (doc.stage, doc.status, doc.pages_done, doc.pages_total) != before:
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
                else:
                    self._apply_event(doc, rec)
                    self.on_update(doc)
            if time.monotonic() >= next_poll:
                await self._poll()
                next_poll = time.monotonic() + self.poll_s
        return True

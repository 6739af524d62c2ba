"""Long-lived clients of one gateway replica, created once in the app's lifespan."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from faststream.kafka import KafkaBroker

from services.gateway.audit import AuditLog
from services.gateway.auth.keys import KeyStore
from services.gateway.registry import Registry
from services.gateway.sse import DocumentHub
from services.gateway.waits import Waits, at_embedder
from shared.api import SSE_DOCUMENT, DocumentRecord
from shared.events import ProgressEvent
from shared.registry_change import RegistryChange
from shared.settings import Settings
from shared.storage import ObjectStore
from shared.vectorstore import VectorStore


@dataclass
class GatewayState:
    """Everything a route needs; see ``api/deps.py`` for the ``Annotated`` aliases."""

    settings: Settings
    broker: KafkaBroker
    uploads: Any  # publisher of documents.uploaded
    deletions: Any  # publisher of documents.deleted
    store: ObjectStore
    vectors: VectorStore
    registry: Registry
    hub: DocumentHub
    keys: KeyStore
    http: httpx.AsyncClient
    audit: AuditLog | None = None  # None: nothing is audited (tests without Kafka)
    reindexer: Any = None  # services.gateway.reindex.Reindexer, set in the lifespan
    waits: Waits = field(default_factory=Waits)  # measured rates, places in line, estimates

    def __post_init__(self) -> None:
        # What the registry sends over SSE carries the document's place in line and estimate;
        # every replica's estimates learn from every progress step it folds.
        self.registry.announce = lambda r: self.waits.announce(r, self.registry.records.values(), time.time())
        self.registry.observe = self.observe
        self.registry.busy = lambda: any(at_embedder(r) for r in self.registry.records.values())

    def observe(self, before: DocumentRecord | None, after: DocumentRecord, cause: ProgressEvent | None,
                busy: bool) -> None:
        """Feed a progress step the registry folded in to the wait estimates (``waits.py``) and
        send the SSE clients the documents whose place in line or estimate moved enough
        (``Waits.changed``), each to the connections whose scope holds it."""
        if cause is None or before is None:
            return
        self.waits.observe(before, cause, busy)
        for rec in self.waits.changed(self.registry.records.values(), time.time()):
            self.hub.broadcast(SSE_DOCUMENT, rec.model_dump(mode="json"), rec.department, rec.visibility)

    async def apply_change(self, change: RegistryChange) -> None:
        """Fold one change of the registry topic (``changelog.py``): a document's record or its
        deletion into the registry, a key's record read again from MinIO."""
        if change.kind == "key":
            await self.keys.refresh(change.key_prefix)
        else:
            await self.registry.apply_change(change)

    async def announce_key(self, prefix: str) -> None:
        """Tell every replica that the key record of ``prefix`` changed in MinIO (nothing without
        a changelog). Raises what ``Changelog.write`` raises."""
        if self.registry.changelog is not None:
            await self.registry.changelog.write(RegistryChange(kind="key", key_prefix=prefix))

    def annotated(self, records: list[DocumentRecord]) -> list[DocumentRecord]:
        """``records`` with their wait estimates (``waits.py``), computed against the whole
        registry: the line counts every department's documents, the answer names only these."""
        every = self.waits.annotate(self.registry.records.values(), time.time())
        by_id = {r.document_id: r for r in every}
        return [by_id.get(r.document_id, r) for r in records]

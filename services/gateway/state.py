"""Long-lived clients of the gateway process, created once in the app's lifespan."""
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
from services.gateway.waits import Waits
from shared.api import DocumentRecord
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
        # What the registry sends over SSE carries the document's place in line and estimate.
        self.registry.announce = lambda r: self.waits.announce(r, self.registry.records.values(), time.time())

    def annotated(self, records: list[DocumentRecord]) -> list[DocumentRecord]:
        """``records`` with their wait estimates (``waits.py``), computed against the whole
        registry: the line counts every department's documents, the answer names only these."""
        every = self.waits.annotate(self.registry.records.values(), time.time())
        by_id = {r.document_id: r for r in every}
        return [by_id.get(r.document_id, r) for r in records]

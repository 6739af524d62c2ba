"""Long-lived clients of the gateway process, created once in the app's lifespan."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
from faststream.kafka import KafkaBroker

from services.gateway.audit import AuditLog
from services.gateway.auth.keys import KeyStore
from services.gateway.registry import Registry
from services.gateway.sse import DocumentHub
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

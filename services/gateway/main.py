"""Upload gateway (FastAPI): the HTTP API at http://localhost:8080, OpenAPI at /docs, the
pipeline's events (AsyncAPI) at /asyncapi.

Stores uploads in MinIO and emits ``documents.uploaded`` (``documents.deleted`` after a
delete); keeps the document registry by consuming ``documents.progress`` (one consumer group
shared by the replicas, ``GATEWAY_GROUP``, from the earliest offset, so a restarted gateway
catches up) and deletes replaced copies when their successor is indexed; shares every registry
and key change with the other replicas through ``legco.gateway.registry.v1`` (``changelog.py``);
streams each changed record over SSE to the clients whose key may see it; forwards
``/api/v1/query`` to the query service with the caller's department scope; serves the built
frontend at ``/``. Runs the reconciler (at start and every ``RECONCILE_INTERVAL_S``) and, when
asked, a reindex job (``reindex.py``).
Run: ``python -m services.gateway``.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
from fastapi import Depends, FastAPI
from faststream import AckPolicy

from services.gateway.api.routes import (
    asyncapi,
    audit,
    config,
    documents,
    events,
    health,
    ingest,
    keys,
    operations,
    panels,
    query,
    whoami,
)
from services.gateway.audit import AuditLog
from services.gateway.auth.keys import KeyStore
from services.gateway.auth.middleware import AuthMiddleware
from services.gateway.auth.principal import current_caller
from services.gateway.changelog import Changelog
from services.gateway.frontend import mount_frontend
from services.gateway.guards import BodyLimit, HostGuard, Utf8Json
from services.gateway.ops_metrics import gateway_metrics
from services.gateway.progress import fold_progress
from services.gateway.reconcile import reconcile_forever
from services.gateway.registry import Registry
from services.gateway.reindex import Reindexer
from services.gateway.sse import DocumentHub
from services.gateway.state import GatewayState
from shared import topics
from shared.events import DocumentRebuilt, ProgressEvent
from shared.http_errors import install_error_handlers
from shared.kafka import event_publisher, make_broker
from shared.metrics import add_metrics_route
from shared.settings import Settings, get_settings
from shared.storage import ObjectStore
from shared.vectorstore import VectorStore

log = logging.getLogger("legco.gateway")
FRONTEND_DIST = Path(__file__).resolve().parents[2] / "frontend" / "dist"


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the gateway app; clients are created in its lifespan."""
    settings = settings or get_settings()
    broker = make_broker(settings, "gateway")
    uploads = event_publisher(broker, topics.UPLOADED)
    deletions = event_publisher(broker, topics.DELETED)
    changes = event_publisher(broker, topics.GATEWAY_REGISTRY)
    audit_log = AuditLog(event_publisher(broker, topics.AUDIT), settings.audit_queue_size,
                         settings.audit_publish_timeout_s)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = ObjectStore(settings)
        await asyncio.to_thread(store.ensure_bucket)
        hub = DocumentHub()
        registry = Registry(store, hub)
        key_store = KeyStore(store, ttl_s=settings.key_cache_ttl_s)
        state = GatewayState(settings=settings, broker=broker, uploads=uploads, deletions=deletions, store=store,
                             vectors=VectorStore(settings, follow_s=settings.index_follow_s), registry=registry,
                             hub=hub, keys=key_store, http=httpx.AsyncClient(), audit=audit_log)
        state.reindexer = Reindexer(state)
        # The registry topic's end offsets first, then MinIO: no change made meanwhile is missed.
        changelog = Changelog(settings, lambda c: changes.publish(c, key=c.kafka_key()), state.apply_change,
                              registry.load)
        await changelog.start()
        registry.changelog, key_store.announce = changelog, state.announce_key
        log.info("registry loaded: %d documents", await registry.load())
        log.info("API keys loaded: %d", await key_store.load())
        changelog.run()

        @broker.subscriber(topics.PROGRESS, group_id=settings.gateway_group,
                           auto_offset_reset="earliest", ack_policy=AckPolicy.NACK_ON_ERROR)
        async def on_progress(event: ProgressEvent) -> None:
            # Kafka gives each partition (each document) to one replica of the group; committed
            # only once written; retires replaced copies
            await fold_progress(state, event)

        @broker.subscriber(topics.INDEX_REBUILT, group_id=f"gateway-{settings.gateway_instance}-reindex",
                           auto_offset_reset="latest")
        async def on_rebuilt(event: DocumentRebuilt) -> None:
            state.reindexer.on_rebuilt(event)  # answers for the job this gateway runs, if any

        app.state.gateway = state
        await broker.start()
        await audit_log.start()
        reconciler = asyncio.create_task(reconcile_forever(state))
        try:
            async with gateway_metrics(state):
                yield
        finally:
            reconciler.cancel()
            await audit_log.stop()
            await broker.stop()  # a fold still writing gets its own change back before the changelog stops
            await changelog.stop()
            await state.http.aclose()

    app = FastAPI(title="LegCo briefing assistant API", version="1",
                  description="Upload briefing papers, follow their ingest, ask questions with page sources.",
                  lifespan=lifespan)
    for r in (ingest.router, documents.router, events.router, query.router, config.router, whoami.router,
              keys.router, audit.router, operations.router, panels.router):
        app.include_router(r, prefix="/api/v1", dependencies=[Depends(current_caller)])  # every route: a key
    app.include_router(health.router)
    app.include_router(asyncapi.router)  # open, like /openapi.json
    install_error_handlers(app)  # malformed input: a 4xx with its reason, never a 500
    # Outermost last: Host check, body size, UTF-8 JSON, then the API key; all before routing.
    app.add_middleware(AuthMiddleware)
    app.add_middleware(Utf8Json)
    app.add_middleware(BodyLimit, settings=settings)
    app.add_middleware(HostGuard, settings=settings)
    add_metrics_route(app)
    mount_frontend(app, FRONTEND_DIST)
    return app


app = create_app()

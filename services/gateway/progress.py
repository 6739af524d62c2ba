"""The gateway's fold of the progress topic: each ``ProgressEvent`` into the document's record
(and the replacement rule, ``replacement.py``), written through to its manifest before the
event's offset is committed.

A MinIO outage while writing the manifest is waited out here (capped backoff, up to
``progress_write_wait_s`` seconds); if it lasts longer the error propagates, the subscriber does
not commit (``AckPolicy.NACK_ON_ERROR``) and the event comes again — so a record is never left
behind the events it has acknowledged. A document that ends ``failed`` keeps nothing searchable:
its vectors are removed and ``documents.deleted`` tells the query service to drop it from its
keyword index (its original stays in MinIO, for a replay).

Each step, as every replica folds it from the registry topic, also feeds that replica's wait
estimates (``GatewayState.observe``, ``waits.py``: the embedding rate, chunks per page, time to
a finished split), and the documents whose place in line or estimate moved because of it are
sent to its SSE clients again.

With N replicas, the progress topic is read in one consumer group (``gateway_group``): Kafka
gives each partition, hence each document, to one replica, and only that one folds its events.
"""
from __future__ import annotations

import asyncio
import logging
import random
import time

from services.gateway.deletion import publish_deleted
from services.gateway.replacement import fold_step
from services.gateway.state import GatewayState
from shared.api import DocumentRecord
from shared.events import ProgressEvent
from shared.outage import dependency_of

log = logging.getLogger("legco.gateway.progress")


async def fold_progress(state: GatewayState, event: ProgressEvent) -> None:
    """Fold ``event`` into the registry (every replica's memory and SSE stream); purge a newly
    failed document.

    Raises:
        whatever the registry's manifest write raised once ``progress_write_wait_s`` has passed,
        or at once for an error that is not an outage.
    """
    s = state.settings
    start, waits = time.monotonic(), 0
    while True:
        try:
            before, rec = await fold_step(state, event)
            break
        except Exception as e:
            if dependency_of(e, s) is None or time.monotonic() - start > s.progress_write_wait_s:
                raise
            waits += 1
            log.warning("progress of %s not written (%s); waiting", event.document_id, e)
            await asyncio.sleep(min(s.outage_retry_max_s, s.outage_retry_base_s * 2 ** min(waits, 10))
                                * (0.5 + random.random() / 2))
    if rec is not None and before is not None and rec is not before and rec.status == "failed":
        await purge_failed(state, rec)


async def purge_failed(state: GatewayState, record: DocumentRecord) -> None:
    """Remove a failed document's vectors (if a stage wrote any) and tell the query service."""
    await asyncio.to_thread(state.vectors.delete_document, record.document_id)
    await publish_deleted(state, record.document_id, record)

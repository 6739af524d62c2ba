"""Operations (admin keys): the reconciler, the dead letters and their replay.

* ``POST /api/v1/reconcile``: one reconciler pass now (``reconcile.py``; it also runs at start
  and every ``RECONCILE_INTERVAL_S``);
* ``GET /api/v1/deadletters``: the events the stages gave up on, newest first;
* ``POST /api/v1/deadletters/replay``: republish them to the stage that gave up (``deadletters.py``);
* ``POST /api/v1/reindex`` starts a rebuild of the index from MinIO, ``GET /api/v1/reindex`` shows
  the latest one (``reindex.py``).

Member and reader keys get 403 (``AdminDep``); an admin sees every department (``?department=``
narrows the listing to one).
"""
from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from services.gateway import deadletters
from services.gateway.api.deps import StateDep
from services.gateway.auth.principal import AdminDep
from services.gateway.reconcile import reconcile
from services.gateway.reindex import ReindexBusy, read_job
from shared.api import (
    DeadLetterList,
    ReconcileReport,
    ReindexRequest,
    ReindexStatus,
    ReplayRequest,
    ReplayResponse,
)

router = APIRouter(tags=["operations"])
KAFKA_DOWN = "Kafka could not be read ({}); try again shortly."


@router.post("/reconcile", response_model=ReconcileReport)
async def reconcile_now(state: StateDep, caller: AdminDep) -> ReconcileReport:
    """Run one reconciler pass: remove the objects and vectors of deleted documents, of documents
    without a manifest (older than ``RECONCILE_GRACE_S``) and spent tombstones; says what went.
    503 when MinIO, Chroma or Kafka cannot be reached."""
    try:
        return await reconcile(state)
    except Exception as e:  # noqa: BLE001 - a store down: 503 with the reason
        raise HTTPException(503, f"A store could not be reached ({type(e).__name__}); try again shortly.") from None


@router.get("/deadletters", response_model=DeadLetterList)
async def list_deadletters(state: StateDep, caller: AdminDep,
                           all: Annotated[bool, Query(description="every dead letter, not only the latest "
                                                                  "per document")] = False,
                           department: Annotated[str | None, Query(description="only this department's")] = None,
                           ) -> DeadLetterList:
    """Events the stages gave up on, newest first: document, department, stage and source topic,
    reason, attempts, time; the latest per document unless ``all``. 503 when Kafka cannot be read."""
    try:
        return DeadLetterList(deadletters=await deadletters.read_entries(state, all, department))
    except Exception as e:  # noqa: BLE001 - Kafka down: 503 with the reason
        raise HTTPException(503, KAFKA_DOWN.format(type(e).__name__)) from None


@router.post("/deadletters/replay", response_model=ReplayResponse)
async def replay_deadletters(state: StateDep, caller: AdminDep, body: ReplayRequest) -> ReplayResponse:
    """Republish dead-lettered events to their source topics (same key) and set their documents
    back to ``queued``: the latest dead letter of each document in ``document_ids`` (or of
    every document, ``all``), of ``stage`` when given. Documents that are not ``failed`` (already
    replayed, or indexed since) are skipped, with the reason. 400 without ``document_ids`` or
    ``all``; 404 when a named document is not registered (never uploaded, or deleted); 503 when
    Kafka cannot be read."""
    if not body.all and not body.document_ids:
        raise HTTPException(400, "Name the documents to replay (document_ids), or all.")
    unknown = [d for d in body.document_ids or [] if state.registry.get(d) is None]
    if unknown and not body.all:
        raise HTTPException(404, f"Document not found: {', '.join(unknown)}.")
    try:
        return await deadletters.replay(state, body)
    except Exception as e:  # noqa: BLE001 - Kafka down: 503 with the reason
        raise HTTPException(503, KAFKA_DOWN.format(type(e).__name__)) from None


@router.post("/reindex", response_model=ReindexStatus, status_code=202)
async def start_reindex(state: StateDep, caller: AdminDep, body: ReindexRequest) -> ReindexStatus:
    """Rebuild the index from the chunk sets in MinIO: every document into a new index generation
    (queries use the current one until it is complete), or one department's documents in place;
    ``model``: re-embed with that model. 409 while a job runs, 400 for ``model`` with ``department``."""
    try:
        job: ReindexStatus = await state.reindexer.start(body)
        return job
    except ReindexBusy as e:
        raise HTTPException(409, f"A reindex is already running (job {e.job.job_id}, {e.job.phase}, "
                                 f"{e.job.documents_done}/{e.job.documents_total} documents).") from None
    except ValueError as e:
        raise HTTPException(400, str(e)) from None


@router.get("/reindex", response_model=ReindexStatus)
async def reindex_status(state: StateDep, caller: AdminDep) -> ReindexStatus:
    """The latest reindex job (running or finished), from its record in MinIO. 404 when none ran."""
    job = await asyncio.to_thread(read_job, state)
    if job is None:
        raise HTTPException(404, "No reindex has run.")
    return job

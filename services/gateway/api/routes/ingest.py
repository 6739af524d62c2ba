"""``POST /api/v1/ingest``: store the upload in MinIO, register it, emit ``documents.uploaded``.

Nothing is replaced here: a same-named document of the department is deleted only once this
upload is indexed (``replacement.py``). An upload whose event cannot be published is undone
(original, manifest and registry record removed) and refused with 503, so no document waits
``queued`` for an event that never left.
"""
from __future__ import annotations

import asyncio
import hashlib
import logging
import uuid
from pathlib import PurePath
from typing import cast

from fastapi import APIRouter, HTTPException, Query, Request, UploadFile

from services.gateway import audit
from services.gateway.access import upload_target
from services.gateway.api.deps import StateDep
from services.gateway.auth.principal import MemberDep
from services.gateway.changelog import ChangelogUnavailable
from services.gateway.inputs import upload_filename
from services.gateway.state import GatewayState
from shared import logs, storage
from shared.api import DocumentRecord, IngestResponse
from shared.events import DocumentUploaded, utcnow
from shared.metrics import DOCUMENTS
from shared.models import ACCEPTED_EXTENSIONS, STRATEGIES, FileType, is_strategy

log = logging.getLogger("legco.gateway.ingest")
router = APIRouter(tags=["ingest"])
UNPUBLISHED = ("The pipeline could not be reached (Kafka did not accept the upload within {timeout:g} s); "
               "nothing was kept. Try again shortly.")
# "PDF, DOCX or TXT", for the refusal of any other extension.
_ACCEPTED_NAMES = " or ".join(", ".join(e.lstrip(".").upper() for e in ACCEPTED_EXTENSIONS).rsplit(", ", 1))


async def read_limited(file: UploadFile, limit: int) -> bytes:
    """Read an upload (already spooled by Starlette), refusing (413) beyond ``limit`` bytes.

    Requests whose Content-Length already exceeds the limit are refused before this, without
    reading the body."""
    chunks, size = [], 0
    while block := await file.read(1024 * 1024):
        size += len(block)
        if size > limit:
            raise HTTPException(413, f"The file is larger than the {limit // (1024 * 1024)} MB limit.")
        chunks.append(block)
    return b"".join(chunks)


@router.post("/ingest", status_code=202, response_model=IngestResponse)
async def ingest(state: StateDep, caller: MemberDep, request: Request, file: UploadFile,
                 strategy: str = Query("token", description="token | question"),
                 department: str | None = Query(None, description="admin keys: the department to file the document "
                                                                   "under (default: the key's)"),
                 visibility: str | None = Query(None, description="department (default) | shared: the shared "
                                                                  "library, readable by every department (admin "
                                                                  "keys)")) -> IngestResponse:
    """Accept one file (multipart field ``file``) for indexing with ``strategy``, filed under the
    key's department (an admin may name one) and visibility.

    A file whose filename is already registered in the same department and visibility replaces
    the older copies once it is indexed (``replaced`` lists them); until then they stay listed
    and searchable, and if it fails they stay. The same filename in another department is
    another document. Accepted extensions: ``GET /api/v1/config``. Errors: 400 unknown strategy
    or visibility, unsupported extension or empty file; 403 a member naming another department
    or the shared library (or a reader key); 413 over ``MAX_UPLOAD_BYTES``; 503 when the upload
    could not be handed to the pipeline within ``PUBLISH_TIMEOUT_S`` (nothing is kept).
    """
    if not is_strategy(strategy):
        raise HTTPException(400, f"Unknown strategy {strategy!r}; use one of: {', '.join(STRATEGIES)}.")
    dept, vis = upload_target(caller, department, visibility)
    filename = upload_filename(file.filename)
    if PurePath(filename).suffix.lower() not in ACCEPTED_EXTENSIONS:
        raise HTTPException(400, f"Unsupported file type {PurePath(filename).suffix or '(none)'}; "
                                 f"upload a {_ACCEPTED_NAMES} file.")
    s = state.settings
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > s.max_upload_bytes + 1024 * 1024:
        raise HTTPException(413, f"The file is larger than the {s.max_upload_bytes // (1024 * 1024)} MB limit.")
    data = await read_limited(file, s.max_upload_bytes)
    if not data:
        raise HTTPException(400, "The file is empty.")
    doc_id = uuid.uuid4().hex
    with logs.document(doc_id, dept, "uploaded"):  # every line of this upload names the document
        sha = hashlib.sha256(data).hexdigest()
        now = utcnow()
        await asyncio.to_thread(state.store.put_bytes, storage.original_key(doc_id), data,
                                file.content_type or "application/octet-stream")
        record, replaced = state.registry.register(DocumentRecord(
            document_id=doc_id, filename=filename, department=dept, visibility=vis, strategy=strategy,
            upload_date=now, updated_at=now, size_bytes=len(data), sha256=sha,
            file_type=cast("FileType", PurePath(filename).suffix.lower().lstrip("."))))  # checked above
        try:
            await state.registry.put(record)  # the manifest; every replica's SSE clients of the department get it
        except ChangelogUnavailable as e:  # Kafka down: the other replicas cannot be told either
            log.warning("upload %s of %s not registered (%s); undone", doc_id, filename, e)
            await undo_upload(state, doc_id)
            DOCUMENTS.labels("upload", "unavailable", dept).inc()
            raise HTTPException(503, UNPUBLISHED.format(timeout=s.publish_timeout_s)) from None
        except Exception:
            await undo_upload(state, doc_id)
            raise
        try:
            await asyncio.wait_for(state.uploads.publish(DocumentUploaded(
                document_id=doc_id, department=dept, visibility=vis, filename=filename, strategy=strategy,
                object_key=storage.original_key(doc_id), size_bytes=len(data), sha256=sha,
                upload_date=now), key=doc_id.encode()), timeout=s.publish_timeout_s)
        except Exception as e:  # noqa: BLE001 - Kafka unreachable (a timeout or a broker error): undone, 503
            log.warning("upload %s of %s not handed to the pipeline (%s: %s); undone", doc_id, filename,
                        type(e).__name__, e)
            await undo_upload(state, doc_id)
            DOCUMENTS.labels("upload", "unavailable", dept).inc()
            raise HTTPException(503, UNPUBLISHED.format(timeout=s.publish_timeout_s)) from None
        DOCUMENTS.labels("upload", "accepted", dept).inc()
        log.info("accepted %s (%d bytes, strategy %s, visibility %s)", filename, len(data), strategy, vis)
        await audit.record(state, caller, "upload", doc_id, "ok", f"{filename} to {dept} ({len(data)} bytes)")
        return IngestResponse(document_id=doc_id, filename=filename, strategy=strategy, status="queued",
                              department=dept, visibility=vis, replaced=replaced)


async def undo_upload(state: GatewayState, document_id: str) -> None:
    """Remove an upload that never reached the pipeline: its objects (original, manifest) and its
    registry record (SSE clients get ``deleted``; the other replicas are told in the background).
    Should its event still reach Kafka later, the parser drops it: the manifest is gone."""
    state.registry.forget_soon(document_id)
    try:
        await asyncio.to_thread(state.store.delete_document, document_id)
    except Exception:  # MinIO down too: the objects stay, but no registry record points at them
        log.exception("could not remove the objects of the undone upload %s", document_id)

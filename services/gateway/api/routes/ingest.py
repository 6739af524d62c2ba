"""``POST /api/v1/ingest``: store the upload in MinIO, register it, emit ``documents.uploaded``."""
from __future__ import annotations

import asyncio
import hashlib
import uuid
from pathlib import PurePath
from typing import cast

from fastapi import APIRouter, HTTPException, Query, Request, UploadFile

from services.gateway import audit
from services.gateway.api.deps import StateDep
from services.gateway.auth.principal import MemberDep
from services.gateway.deletion import delete_document
from services.gateway.inputs import upload_filename
from shared import storage
from shared.api import DocumentRecord, IngestResponse
from shared.events import DocumentUploaded, utcnow
from shared.metrics import DOCUMENTS
from shared.models import ACCEPTED_EXTENSIONS, STRATEGIES, FileType, is_strategy

router = APIRouter(tags=["ingest"])
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
                 strategy: str = Query("token", description="token | question")) -> IngestResponse:
    """Accept one file (multipart field ``file``) for indexing with ``strategy``.

    A file whose filename is already registered (in the same department) replaces the old
    document: once the new file is stored, the old one's chunks, page PDFs and manifest are
    deleted. Accepted extensions: ``GET /api/v1/config``. Errors: 400 unknown strategy,
    unsupported extension or empty file; 413 over ``MAX_UPLOAD_BYTES``.
    """
    if not is_strategy(strategy):
        raise HTTPException(400, f"Unknown strategy {strategy!r}; use one of: {', '.join(STRATEGIES)}.")
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
    department = s.department_default
    doc_id = uuid.uuid4().hex
    sha = hashlib.sha256(data).hexdigest()
    now = utcnow()
    # Store the new file first: if that fails, the document it would replace is still there.
    await asyncio.to_thread(state.store.put_bytes, storage.original_key(doc_id), data,
                            file.content_type or "application/octet-stream")
    replaced = []
    for old in state.registry.by_filename(filename, department):
        await delete_document(state, old.document_id)
        await audit.record(state, caller, "replace", old.document_id, "ok", f"{filename} replaced by {doc_id}")
        replaced.append(old.document_id)
    record = DocumentRecord(document_id=doc_id, filename=filename, department=department,
                            strategy=strategy, upload_date=now, updated_at=now,
                            size_bytes=len(data), sha256=sha,
                            file_type=cast("FileType", PurePath(filename).suffix.lower().lstrip(".")))  # checked above
    await state.registry.put(record)  # SSE clients get the queued record
    await state.uploads.publish(DocumentUploaded(
        document_id=doc_id, department=department, filename=filename, strategy=strategy,
        object_key=storage.original_key(doc_id), size_bytes=len(data), sha256=sha,
        upload_date=now), key=doc_id.encode())
    DOCUMENTS.labels("upload", "accepted").inc()
    await audit.record(state, caller, "upload", doc_id, "ok", f"{filename} to {department} ({len(data)} bytes)")
    return IngestResponse(document_id=doc_id, filename=filename, strategy=strategy, status="queued",
                          replaced=replaced)

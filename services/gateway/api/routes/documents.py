"""Listing and deleting documents and chunks, and serving a PDF document's pages as one-page PDFs.

Every route is scoped to the caller (``access.py``): it sees its department's documents and the
shared library (an admin: every department); another department's document is answered as a
missing one (404, same body).
"""
from __future__ import annotations

import asyncio
from pathlib import PurePath
from typing import Annotated
from urllib.parse import quote
from zoneinfo import ZoneInfo

from fastapi import APIRouter, HTTPException, Query, Request, Response

from services.gateway import audit
from services.gateway.access import NO_CHUNK, NO_PAGE, can_read, check_can_modify
from services.gateway.api.deps import DocumentIdDep, ReadableDocumentDep, ScopeDep, StateDep, visible_to
from services.gateway.api.plain_errors import plain_errors_route
from services.gateway.auth.principal import CallerDep, MemberDep
from services.gateway.content_search import UNAVAILABLE, documents_containing
from services.gateway.deletion import delete_chunks, delete_document
from services.gateway.highlights import chunk_highlights, with_highlights
from services.gateway.listing import select
from shared import storage
from shared.api import (
    ChunkInfo,
    ChunkListResponse,
    DeleteResponse,
    DocumentListQuery,
    DocumentListResponse,
    DocumentRecord,
)
from shared.chunkview import chunk_view

router = APIRouter(tags=["documents"])


async def list_documents(state: StateDep, scope: ScopeDep,
                         query: Annotated[DocumentListQuery, Query()]) -> DocumentListResponse:
    """The caller's documents (its department's and the shared library; an admin: every
    department, or with ``?department=`` that one and the shared library) with status, stage,
    progress and chunk count: those matching the filters, in the order and the page asked for
    (``listing.py``; by default every document, newest first); an unfinished one with its place in
    line and estimated seconds to indexed (``queue_position``, ``eta_s``). The scope is applied
    first: the totals and the search never see another department's documents. 422 with a
    sentence for a bad parameter."""
    docs = [d for d in state.registry.list() if can_read(scope, d)]
    content_ids: set[str] | None = set()
    q = (query.q or "").strip()
    if q:
        content_ids = await documents_containing(state.vectors, q, scope)
    page = select(docs, query, content_ids or set(), ZoneInfo(state.settings.document_dates_tz))
    return DocumentListResponse(documents=state.annotated(page.documents), total_documents=len(docs),
                                total_chunks=sum(d.chunk_count for d in docs), total=page.total, page=query.page,
                                page_size=query.page_size, notice=UNAVAILABLE if content_ids is None else None)


router.add_api_route("/documents", list_documents, methods=["GET"], response_model=DocumentListResponse,
                     route_class_override=plain_errors_route(DocumentListQuery))


@router.get("/documents/{document_id}", response_model=DocumentRecord)
async def get_document(state: StateDep, rec: ReadableDocumentDep) -> DocumentRecord:
    """One document's record (404 when unknown or another department's), with its wait estimate."""
    return state.annotated([rec])[0]


@router.get("/documents/{document_id}/chunks", response_model=ChunkListResponse)
async def list_chunks(state: StateDep, rec: ReadableDocumentDep) -> ChunkListResponse:
    """All chunks of a document in order, with page numbers, PDF links, Q&A metadata and
    where each is printed (``highlights``, PDF papers)."""
    got = await asyncio.to_thread(state.vectors.get_document_chunks, rec.document_id)
    views = [chunk_view(i, t or "", m or {}) for i, t, m in
             zip(got["ids"], got["documents"], got["metadatas"], strict=True)]
    views.sort(key=lambda v: v["chunk_index"])
    with_highlights(views, await asyncio.to_thread(chunk_highlights, state.store, rec.document_id))
    return ChunkListResponse.model_validate({"document_id": rec.document_id, "chunks": views})


@router.get("/chunks/{chunk_id}", response_model=ChunkInfo)
async def get_chunk(state: StateDep, caller: CallerDep, chunk_id: str, request: Request) -> ChunkInfo:
    """One chunk by id (``{document_id}_{chunk_index}``), as in the document's chunk list, with
    its ``highlights`` (what the viewer marks on the page). 404 when the chunk or its document
    is unknown or another department's."""
    doc_id, _, index = chunk_id.rpartition("_")
    if not storage.valid_document_id(doc_id) or not index.isdigit():
        raise HTTPException(404, NO_CHUNK)
    if await visible_to(state, caller, doc_id, request) is None:
        raise HTTPException(404, NO_CHUNK)
    got = await asyncio.to_thread(state.vectors.get_ids, [chunk_id])
    if not got["ids"]:
        raise HTTPException(404, NO_CHUNK)
    view = chunk_view(got["ids"][0], (got["documents"] or [""])[0] or "", (got["metadatas"] or [{}])[0] or {})
    with_highlights([view], await asyncio.to_thread(chunk_highlights, state.store, doc_id))
    return ChunkInfo.model_validate(view)


@router.delete("/documents/{document_id}", response_model=DeleteResponse)
async def remove_document(state: StateDep, caller: MemberDep, rec: ReadableDocumentDep) -> DeleteResponse:
    """Delete a document: its chunks, page PDFs, original and registry record. 403 for a
    reader key, and for a shared document unless the key is an admin's."""
    check_can_modify(caller, rec)
    await delete_document(state, rec.document_id)
    await audit.record(state, caller, "delete", rec.document_id, "ok", f"{rec.filename} (department {rec.department})")
    return DeleteResponse(deleted=True, message=f"Deleted {rec.filename} and its {rec.chunk_count} chunks.")


@router.delete("/chunks/{chunk_id}", response_model=DeleteResponse)
async def remove_chunk(state: StateDep, caller: MemberDep, chunk_id: str, request: Request) -> DeleteResponse:
    """Delete one chunk by id (``{document_id}_{chunk_index}``). 404 when the chunk or its
    document is unknown or another department's; 403 as for deleting its document."""
    doc_id, _, index = chunk_id.rpartition("_")
    if not storage.valid_document_id(doc_id) or not index.isdigit():
        raise HTTPException(404, NO_CHUNK)
    rec = await visible_to(state, caller, doc_id, request)
    if rec is None:
        raise HTTPException(404, NO_CHUNK)
    got = await asyncio.to_thread(state.vectors.get_ids, [chunk_id])
    if not got["ids"]:
        raise HTTPException(404, NO_CHUNK)
    check_can_modify(caller, rec)
    await delete_chunks(state, doc_id, [chunk_id])
    await audit.record(state, caller, "chunk_delete", chunk_id, "ok")
    rec = state.registry.get(doc_id)
    if rec is not None:
        await state.registry.put(rec.model_copy(update={"chunk_count": max(rec.chunk_count - 1, 0)}))
    return DeleteResponse(deleted=True, message=f"Deleted chunk {chunk_id}.")


@router.get("/documents/{document_id}/pages/{page_number}.pdf", response_class=Response,
            responses={200: {"content": {"application/pdf": {}}}})
async def page_pdf(state: StateDep, caller: CallerDep, document_id: DocumentIdDep, page_number: int,
                   request: Request) -> Response:
    """The original page ``page_number`` (1-based) of a PDF document as a one-page PDF (404 when
    the page, or the document, is unknown or another department's)."""
    rec = await visible_to(state, caller, document_id, request)
    if rec is None or page_number < 1:
        raise HTTPException(404, NO_PAGE)
    try:
        data = await asyncio.to_thread(state.store.get_bytes, storage.page_pdf_key(document_id, page_number))
    except KeyError:
        raise HTTPException(404, NO_PAGE) from None
    stem = PurePath(rec.filename).stem.replace('"', "")
    name = f"{stem}_page_{page_number}.pdf"
    return Response(data, media_type="application/pdf",
                    headers={"Content-Disposition": f"inline; filename*=UTF-8''{quote(name)}"})

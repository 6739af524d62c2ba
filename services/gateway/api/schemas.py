"""Response models of the HTTP API (also the OpenAPI schema at /docs)."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from services.gateway.registry import DocumentRecord


class IngestResponse(BaseModel):
    document_id: str
    filename: str
    strategy: str
    status: str
    replaced: list[str] = []


class DocumentListResponse(BaseModel):
    documents: list[DocumentRecord]
    total_documents: int
    total_chunks: int


class ChunkInfo(BaseModel):
    """One stored chunk; Q&A chunks carry the question-strategy fields too."""

    chunk_id: str
    chunk_index: int
    text: str
    content_summary: str
    page_number: int | None = None
    pdf_url: str | None = None
    strategy_type: str | None = None
    source_page_range: list[int] | None = None
    metadata: dict[str, Any] = {}

    model_config = {"extra": "allow"}


class ChunkListResponse(BaseModel):
    document_id: str
    chunks: list[ChunkInfo]


class DeleteResponse(BaseModel):
    deleted: bool
    message: str

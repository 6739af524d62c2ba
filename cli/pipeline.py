"""The one in-process pipeline: parse → tables → split, and optionally embed + store.

The same code the services run, called one step after another in this process with no broker,
MinIO or vision LLM (tables come from pdfplumber, as in the stack with vision off). ``legco
split``, ``bench/ingest.py``'s direct run and the tests all go through here, so what they
measure or print is what the stack produces.

* :func:`run_pipeline` — a file → ``PipelineRun`` (parsed document with tables, ``ChunkSet``,
  parser warnings, seconds per step);
* :func:`split_file` — the same, only ``(ChunkSet, warnings)``;
* :func:`index_file` — :func:`run_pipeline` and then embed the chunks and upsert them into a
  Chroma collection (:class:`IndexTarget`).
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from services.parser.parse import ParseOutput, parse_document
from services.splitter.highlight import add_highlights
from services.splitter.split import split_document
from services.tables.document import extract_document_tables
from shared.embeddings import EmbeddingClient
from shared.models import ChunkSet, ParsedDocument
from shared.settings import Settings
from shared.vectorstore import flat_metadata


@dataclass
class PipelineRun:
    """The result of one file through the pipeline.

    Attributes:
        parsed: the parser's document with the table stage's tables attached (pages 1-based
            for a PDF; one page with ``page_number=None`` for DOCX/TXT).
        chunks: the ``ChunkSet``; ``None`` when the run stopped before splitting (no text
            layer and ``stop_without_text_layer``).
        warnings: the parser's warnings, for the user.
        seconds: wall-clock seconds per step: ``parsing``, ``tables``, ``splitting``, and
            ``embedding`` (embed + upsert) after :func:`index_file`.
        stored: chunks upserted by :func:`index_file` (0 otherwise).
    """

    parsed: ParsedDocument
    chunks: ChunkSet | None
    warnings: list[str]
    seconds: dict[str, float] = field(default_factory=dict)
    stored: int = 0


def attach_tables(out: ParseOutput) -> ParsedDocument:
    """The table stage: ``out.parsed`` with the tables of its PDF pages attached (pdfplumber
    on each one-page PDF of ``out.page_pdfs``); DOCX/TXT come back unchanged. The only place
    the in-process pipeline calls the table stage's code."""
    return extract_document_tables(out.parsed, out.page_pdfs)


def has_text_layer(doc: ParsedDocument) -> bool:
    """False when every page is scanned or blank: the parser service rejects such a document
    (with vision off), so it is never split."""
    return not all(p.scanned or not p.text.strip() for p in doc.pages)


def run_pipeline(path: Path, strategy: str, settings: Settings, document_id: str = "local", *,
                 stop_without_text_layer: bool = False) -> PipelineRun:
    """Parse ``path``, attach its tables and chunk it with ``strategy``.

    Args:
        path: a PDF, DOCX or TXT file (the type is sniffed from the content).
        strategy: ``"question"`` or ``"token"``.
        settings: chunk sizes (tokens), parser limits.
        document_id: id stamped on the parsed document and the chunks.
        stop_without_text_layer: return with ``chunks=None`` after parsing when the document
            has no text layer, as the parser service does; otherwise it is split anyway
            (chunks flagged ``scanned``).

    Raises:
        DocumentError: the file is unusable (``reason`` is for the user).
        OSError: the file cannot be read.
        ValueError: unknown strategy.
    """
    seconds: dict[str, float] = {}
    t = time.perf_counter()
    out = parse_document(path.read_bytes(), path.name, document_id, settings)
    seconds["parsing"] = time.perf_counter() - t
    warnings = list(out.parsed.warnings)
    if stop_without_text_layer and not has_text_layer(out.parsed):
        return PipelineRun(out.parsed, None, warnings, seconds)
    t = time.perf_counter()
    doc = attach_tables(out)
    seconds["tables"] = time.perf_counter() - t
    t = time.perf_counter()
    chunks = split_document(doc, strategy, settings)
    add_highlights(chunks.chunks, out.page_boxes)
    seconds["splitting"] = time.perf_counter() - t
    return PipelineRun(doc, chunks, warnings, seconds)


def split_file(path: Path, strategy: str, settings: Settings,
               document_id: str = "local") -> tuple[ChunkSet, list[str]]:
    """:func:`run_pipeline` without the extras: the ``ChunkSet`` and the parser's warnings.

    Raises:
        DocumentError, OSError, ValueError: as :func:`run_pipeline`.
    """
    run = run_pipeline(path, strategy, settings, document_id)
    assert run.chunks is not None  # only None with stop_without_text_layer
    return run.chunks, run.warnings


@dataclass
class IndexTarget:
    """Where :func:`index_file` stores chunks: an embeddings client and a Chroma collection
    (created with ``embedding_function=None``; chunks are upserted with explicit embeddings)."""

    embedder: EmbeddingClient
    collection: Any  # chromadb Collection


def chunk_records(cs: ChunkSet, document_id: str) -> tuple[list[Any], list[dict[str, Any]]]:
    """The chunks worth storing (non-blank text) and their flat Chroma metadata: the chunk's
    own metadata plus ``document_id``, ``filename``, ``file_type``, ``strategy``,
    ``chunk_index`` and ``page_number`` (-1 for none)."""
    chunks = [c for c in cs.chunks if c.text.strip()]
    metas = [flat_metadata({**c.metadata, "document_id": document_id, "filename": cs.filename,
                            "file_type": cs.file_type, "strategy": cs.strategy,
                            "chunk_index": c.chunk_index,
                            "page_number": c.page_number if c.page_number is not None else -1})
             for c in chunks]
    return chunks, metas


async def index_file(path: Path, strategy: str, settings: Settings, target: IndexTarget,
                     document_id: str) -> PipelineRun:
    """:func:`run_pipeline` (in a worker thread, ``stop_without_text_layer=True``), then embed
    the chunks (``EmbeddingClient.embed_passages``, passage text = ``embed_text`` or ``text``)
    and upsert them into ``target.collection`` under ids ``{document_id}_{chunk_index}``.

    Returns:
        The run with ``stored`` and ``seconds["embedding"]`` (embed + upsert) set; a document
        without a text layer is returned unsplit (``chunks=None``, nothing stored).

    Raises:
        DocumentError, OSError, ValueError: as :func:`run_pipeline`.
        httpx.HTTPError: the embeddings endpoint failed; chromadb errors on upsert.
    """
    run = await asyncio.to_thread(run_pipeline, path, strategy, settings, document_id,
                                  stop_without_text_layer=True)
    if run.chunks is None:
        return run
    t = time.perf_counter()
    chunks, metas = chunk_records(run.chunks, document_id)
    if chunks:
        vectors = await target.embedder.embed_passages([c.embed_text or c.text for c in chunks])
        await asyncio.to_thread(target.collection.upsert, ids=[c.chunk_id(document_id) for c in chunks],
                                embeddings=vectors, documents=[c.text for c in chunks], metadatas=metas)
    run.seconds["embedding"] = time.perf_counter() - t
    run.stored = len(chunks)
    return run

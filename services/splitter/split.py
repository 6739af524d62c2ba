"""The one entry point the splitter service and the CLI call."""
from __future__ import annotations

from typing import TYPE_CHECKING, cast

from services.splitter.inject import inject_tables
from services.splitter.strategies.base import ChunkingStrategy
from services.splitter.strategies.token import TokenStrategy
from shared.models import STRATEGIES, Chunk, ChunkSet, ParsedDocument, StrategyName
from shared.settings import Settings

if TYPE_CHECKING:
    from services.splitter.llm_check import BoundaryChecker
    from services.splitter.strategies.question import VerifyProgress


def get_strategy(strategy: str, settings: Settings, llm: BoundaryChecker | None = None,
                 on_verify: VerifyProgress | None = None) -> ChunkingStrategy:
    """The strategy object for ``strategy`` (``"token"`` or ``"question"``; ``llm`` and
    ``on_verify``: the question strategy's verification pass and its progress callback).

    Raises:
        ValueError: unknown strategy name.
    """
    if strategy == "token":
        return TokenStrategy(settings)
    if strategy == "question":
        from services.splitter.strategies.question import QuestionStrategy

        return QuestionStrategy(settings, llm=llm, on_verify=on_verify)
    raise ValueError(f"unknown chunking strategy {strategy!r}; expected one of {STRATEGIES}")


def _page_flags(chunks: list[Chunk], doc: ParsedDocument) -> None:
    """Per-page facts onto the chunks covering that page (``page_start``..``page_end``, or
    ``page_number``): ``scanned=True`` for a scanned page; ``ocr=True`` and ``ocr_confidence``
    (0..1, the lowest of the chunk's OCR'd pages) for text read by local OCR; ``table_source``
    (``pdfplumber``, ``vision`` or both joined with ``+``) for a chunk with a table from the
    table stage."""
    scanned = {p.page_number for p in doc.pages if p.scanned and p.page_number}
    ocr = {p.page_number: p.ocr_confidence for p in doc.pages if p.ocr and p.page_number}
    sources = {p.page_number: [(t.source, t.markdown.split("\n", 1)[0]) for t in p.tables if t.markdown]
               for p in doc.pages if p.page_number and p.tables}
    if not scanned and not sources:
        return
    for c in chunks:
        lo = c.metadata.get("page_start", c.page_number)
        hi = c.metadata.get("page_end", c.page_number)
        if not (isinstance(lo, int) and isinstance(hi, int)):
            continue
        if any(lo <= n <= hi for n in scanned):
            c.metadata["scanned"] = True
        confs = [conf for n, conf in ocr.items() if lo <= n <= hi]
        if confs:
            c.metadata["ocr"] = True
            known = [x for x in confs if x is not None]
            if known:
                c.metadata["ocr_confidence"] = round(min(known), 3)
        if c.metadata.get("has_table"):
            found = {src for n in range(lo, hi + 1) for src, head in sources.get(n, []) if head in c.text}
            if found:
                c.metadata["table_source"] = "+".join(sorted(found))


def split_document(
    doc: ParsedDocument, strategy: str, settings: Settings, llm: BoundaryChecker | None = None,
    on_verify: VerifyProgress | None = None,
) -> ChunkSet:
    """Chunk a parsed document with the named strategy.

    Args:
        doc: parser output (pages 1-based for PDF, one page with ``page_number=None`` for
            DOCX/TXT).
        strategy: ``"token"`` or ``"question"``; the question strategy falls back to token
            chunking (``strategy_used="token"`` + a note) when the document has no Q&A.
        settings: chunk sizes in tokens (cl100k_base), Q&A options.
        llm: optional boundary checker for ambiguous Q&A boundaries; ``None`` keeps the
            deterministic result.
        on_verify: told ``(pairs done, pairs to verify)`` while the LLM verification pass runs
            (0 first, then after each pair); not called without ``llm`` or without pairs to send.

    Tables found by the table stage (``PageText.tables``, ``TableSpan`` entries) are first
    put into the page texts as markdown (:func:`services.splitter.inject.inject_tables`).

    Returns:
        A ``ChunkSet`` whose chunks are numbered 0..n-1 in document order; chunks covering a
        scanned page carry ``metadata["scanned"] = True`` (and ``ocr``/``ocr_confidence`` when
        local OCR read it), chunks with a table-stage table
        ``metadata["table_source"]``.

    Raises:
        ValueError: unknown strategy name.
    """
    impl = get_strategy(strategy, settings, llm, on_verify)
    result = impl.chunk(inject_tables(doc))
    chunks = [c.model_copy(update={"chunk_index": i}) for i, c in enumerate(result.chunks)]
    _page_flags(chunks, doc)
    return ChunkSet(
        document_id=doc.document_id,
        filename=doc.filename,
        strategy=cast("StrategyName", strategy),  # get_strategy() raised for any other name
        strategy_used=result.strategy_used,
        file_type=doc.file_type,
        chunks=chunks,
        notes=list(result.notes),
    )

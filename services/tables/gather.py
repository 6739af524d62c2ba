"""The table stage's gatherer: joins a PDF's pages again once every page is done.

Page-done events are keyed by document, so one gatherer (consumer group ``tables-gather``) sees
all pages of a document. It keeps, per document in flight, the set of pages done in memory
(``shared.gather.GatherState``, which the embedder's gatherer of chunk ranges uses too). Only
for a document it does not know — its first page, or the first event after a restart or a
partition rebalance — does it list the stored page results, once, to seed that set; afterwards
each event only adds its page. When the set is complete, :func:`finish_document` reads the N
page results by their keys, attaches the tables (``assemble.apply_page_results``: tables
continued over a page break merged, vision answers put in place of pdfplumber's), stores the
annotated ``ParsedDocument`` and describes it as one ``DocumentTablesDone``;
:func:`mark_gathered` then writes a done-marker so late or redelivered page events of that
document do nothing. Per document: one list call (plus one per restart or rebalance), N gets, a
few puts.
"""
from __future__ import annotations

import asyncio

from services.tables.assemble import apply_page_results
from services.tables.handle import tables_done
from services.tables.page_result import PageResult
from shared import storage
from shared.deletion import Check, never_gone
from shared.events import DocumentParsed, DocumentTablesDone, PageTablesDone
from shared.gather import ForgetOnRebalance, GatherState
from shared.models import ParsedDocument
from shared.storage import ObjectStore


def stored_pages(store: ObjectStore, document_id: str) -> set[int]:
    """Page numbers whose ``PageResult`` is stored: one list call (blocking)."""
    prefix = storage.page_result_prefix(document_id)
    return {int(k[len(prefix):-len(".json")]) for k in store.list_keys(prefix)
            if k.endswith(".json") and k[len(prefix):-len(".json")].isdigit()}


async def gather_page(event: PageTablesDone, store: ObjectStore, state: GatherState) -> set[int] | None:
    """Record one page as done; returns the document's pages done so far, or ``None`` when
    the document was gathered already (its done-marker exists)."""
    doc_id = event.document_id
    done = state.pages(doc_id)
    if done is None:
        if await asyncio.to_thread(store.exists, storage.tables_done_key(doc_id)):
            return None
        done = state.seed(doc_id, await asyncio.to_thread(stored_pages, store, doc_id))
    done.add(event.page_number)
    return done


def _assemble(store: ObjectStore, document_id: str, page_count: int) -> tuple[DocumentParsed, ParsedDocument]:
    job = DocumentParsed.model_validate(store.get_json(storage.tables_job_key(document_id)))
    parsed = ParsedDocument.model_validate(store.get_json(job.pages_key))
    results = [PageResult.model_validate(store.get_json(storage.page_result_key(document_id, n)))
               for n in range(1, page_count + 1)]
    return job, apply_page_results(parsed, results)


async def finish_document(event: PageTablesDone, store: ObjectStore, check: Check = never_gone) -> DocumentTablesDone:
    """Attach the tables of every page (1..``page_count``) to the parser's pages, store the
    result at ``storage.tables_parsed_key`` and describe it.

    Idempotent: a second run overwrites the same object. Raises ``KeyError`` when the job or
    a page result is missing (retried, then dead-lettered); ``DocumentGone`` when ``check``
    finds the document deleted before the write.
    """
    job, annotated = await asyncio.to_thread(_assemble, store, event.document_id, event.page_count)
    key = storage.tables_parsed_key(event.document_id)
    await check(force=True)
    await asyncio.to_thread(store.put_json, key, annotated)
    return tables_done(job, key)


async def mark_gathered(store: ObjectStore, state: GatherState, document_id: str,
                        check: Check = never_gone) -> None:
    """Write the document's done-marker and stop tracking it (after its event was emitted);
    nothing is written for a document deleted meanwhile (``check`` raises ``DocumentGone``)."""
    try:
        await check(force=True)
    finally:
        state.forget(document_id)
    await asyncio.to_thread(store.put_bytes, storage.tables_done_key(document_id), b"done")


__all__ = ["ForgetOnRebalance", "GatherState", "finish_document", "gather_page", "mark_gathered", "stored_pages"]

"""Big documents in chunk ranges that several embedders share.

One handler embeds a document's batches one after another, so a 300-page paper used to hold
one embedder for minutes while its replicas (and the e5 server's queue) stood idle. A document
of more than ``embedder_range_chunks`` chunks is therefore cut into ranges of that many chunks,
and the embedder both fans them out and gathers them again (like the table stage's pages):

* **fan-out** (:func:`plan_ranges`, on ``documents.chunked``): reads the document's
  ``ChunkSet`` once, finds its language and title over every chunk (what a whole-document run
  puts in every chunk's metadata and question line), stores the event as the job
  (``embedding/job.json``) and one ``ChunkSet`` per range (``embedding/ranges/{r}.json``), and
  returns one ``ChunkRangeWork`` per range, published keyed ``{document_id}:{r}`` so the ranges
  go round the partitions of ``embedder.ranges`` and hence over the replicas;
* **range worker** (:func:`embed_range`, group ``embedder-ranges``): ``embed_and_store`` on the
  range's chunks (resumable, upserts by ``{document_id}_{chunk_index}``), no statistics; then
  stores the range's result (``embedding/done/{r}.json``) and returns its
  ``ChunkRangeEmbedded`` (keyed by document: one gatherer sees every range of a document);
* **gatherer** (:func:`gather_range`, group ``embedder-gather``): the ranges done per document
  in memory (``shared.gather.GatherState``, seeded by one listing of the stored results for a
  document it does not know); when every range is done it finishes the document with one
  whole-document ``embed_and_store`` — every chunk is then found stored with the text and
  metadata it would write, so nothing is embedded again, any chunk missing (a generation switch
  meanwhile) is embedded now, and the language sums are taken over the stored vectors in chunk
  order exactly as for a document embedded whole — emits the one ``documents.indexed`` and
  writes the done-marker (:func:`mark_indexed`), so a redelivered or late range finds the
  document finished and changes nothing.

A redelivered range adds no chunk (its chunks are found stored and skipped); a range whose
worker crashed mid-way is redelivered and resumes at its first chunk not stored.
"""
from __future__ import annotations

import asyncio
import math

from services.embedder.batcher import EmbedFn
from services.embedder.handle import RangePart, embed_and_store
from services.embedder.search_text import document_title
from shared import storage
from shared.deletion import Check, never_gone
from shared.events import ChunkRangeEmbedded, ChunkRangeWork, DocumentChunked
from shared.gather import GatherState
from shared.lang import detect_language
from shared.models import ChunkSet
from shared.settings import Settings
from shared.storage import ObjectStore
from shared.vectorstore import VectorStore


def splits_into_ranges(event: DocumentChunked, settings: Settings) -> bool:
    """Whether a chunked document is embedded in ranges: more than ``embedder_range_chunks``
    chunks (0: never)."""
    size = settings.embedder_range_chunks
    return size > 0 and event.chunk_count > size


def range_bounds(count: int, size: int) -> list[tuple[int, int]]:
    """Positions ``[start, end)`` in a list of ``count`` chunks of each range of at most
    ``size`` chunks, in order (the last range may be shorter)."""
    return [(start, min(start + size, count)) for start in range(0, count, size)]


def _write_ranges(store: ObjectStore, event: DocumentChunked, size: int) -> list[ChunkRangeWork]:
    chunk_set = ChunkSet.model_validate(store.get_json(event.chunks_key))
    with_text = [c for c in chunk_set.chunks if c.text.strip()]
    lang = detect_language(" ".join(c.text for c in with_text))
    title = document_title(chunk_set)
    store.put_json(storage.embedding_job_key(event.document_id), event)
    bounds = range_bounds(len(chunk_set.chunks), size)
    works = []
    for number, (start, end) in enumerate(bounds, start=1):
        part = chunk_set.model_copy(update={"chunks": chunk_set.chunks[start:end]})
        key = storage.chunk_range_key(event.document_id, number)
        store.put_json(key, part)
        works.append(ChunkRangeWork(**{**event.model_dump(exclude={"event_id", "ts"}), "chunks_key": key},
                                    document_chunks_key=event.chunks_key, range_number=number,
                                    range_count=len(bounds), first_chunk=part.chunks[0].chunk_index,
                                    last_chunk=part.chunks[-1].chunk_index, lang=lang, title=title))
    return works


async def plan_ranges(event: DocumentChunked, store: ObjectStore, settings: Settings,
                      check: Check = never_gone) -> list[ChunkRangeWork]:
    """Cut a chunked document into ranges of ``embedder_range_chunks`` chunks: store the job and
    each range's ``ChunkSet``, return one ``ChunkRangeWork`` per range (1-based, in order).

    Idempotent: a redelivery overwrites the same objects and yields the same ranges.

    Raises:
        KeyError: the chunk set is missing (retried, then dead-lettered).
        DocumentGone: ``check`` found the document deleted before anything was written.
    """
    await check(force=True)
    return await asyncio.to_thread(_write_ranges, store, event, settings.embedder_range_chunks)


async def embed_range(work: ChunkRangeWork, store: ObjectStore, vectors: VectorStore, embed: EmbedFn,
                      settings: Settings, check: Check = never_gone) -> int:
    """Embed and upsert the chunks (with text) of one range into ``vectors``; returns their
    count. No progress (the gatherer reports per range) and no statistics (the gatherer writes
    the document's). Resumable and idempotent as ``embed_and_store``.

    Raises:
        as ``embed_and_store``.
    """
    return await embed_and_store(work, store, vectors, embed, settings, _no_report, check,
                                 part=RangePart(work.lang, work.title))


async def record_range(work: ChunkRangeWork, stored: int, store: ObjectStore,
                       check: Check = never_gone) -> ChunkRangeEmbedded:
    """Store the result of a range whose ``stored`` chunks are in Chroma and describe it for the
    gatherer. Raises ``DocumentGone`` when ``check`` finds the document deleted first."""
    key = storage.range_result_key(work.document_id, work.range_number)
    await check(force=True)
    await asyncio.to_thread(store.put_json, key, {"range_number": work.range_number, "chunk_count": stored,
                                                  "first_chunk": work.first_chunk, "last_chunk": work.last_chunk})
    return ChunkRangeEmbedded(document_id=work.document_id, department=work.department, visibility=work.visibility,
                              filename=work.filename, range_number=work.range_number, range_count=work.range_count,
                              chunk_count=stored, document_chunk_count=work.chunk_count, result_key=key)


async def _no_report(**_: object) -> None:
    """A range reports nothing itself: its gatherer reports the document's progress."""


def stored_ranges(store: ObjectStore, document_id: str) -> set[int]:
    """Range numbers whose result is stored: one list call (blocking)."""
    prefix = storage.range_result_prefix(document_id)
    return {int(k[len(prefix):-len(".json")]) for k in store.list_keys(prefix)
            if k.endswith(".json") and k[len(prefix):-len(".json")].isdigit()}


async def gather_range(event: ChunkRangeEmbedded, store: ObjectStore, state: GatherState) -> set[int] | None:
    """Record one range as done; returns the document's ranges done so far, or ``None`` when the
    document was finished already (its done-marker exists)."""
    doc_id = event.document_id
    done = state.pages(doc_id)
    if done is None:
        if await asyncio.to_thread(store.exists, storage.embedding_indexed_key(doc_id)):
            return None
        done = state.seed(doc_id, await asyncio.to_thread(stored_ranges, store, doc_id))
    done.add(event.range_number)
    return done


def chunks_done(event: ChunkRangeEmbedded, ranges_done: int) -> int:
    """The document's chunks counted done for progress once ``ranges_done`` of its ranges are:
    the share of its chunk count, rounded down (all of it when every range is done)."""
    return math.floor(event.document_chunk_count * min(ranges_done, event.range_count) / event.range_count)


async def read_job(store: ObjectStore, document_id: str) -> DocumentChunked:
    """The ``DocumentChunked`` the fan-out stored for a document embedded in ranges. Raises
    ``KeyError`` when it is missing (retried, then dead-lettered)."""
    return DocumentChunked.model_validate(await asyncio.to_thread(store.get_json,
                                                                  storage.embedding_job_key(document_id)))


async def mark_indexed(store: ObjectStore, state: GatherState, document_id: str,
                       check: Check = never_gone) -> None:
    """Write the document's done-marker and stop tracking it (after its ``DocumentIndexed`` was
    emitted); nothing is written for a document deleted meanwhile (``check`` raises
    ``DocumentGone``)."""
    try:
        await check(force=True)
    finally:
        state.forget(document_id)
    await asyncio.to_thread(store.put_bytes, storage.embedding_indexed_key(document_id), b"indexed")

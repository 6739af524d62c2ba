"""What the embedder stage does with one ``DocumentChunked``: read the ``ChunkSet`` from MinIO,
embed each chunk's search text (and a Q&A chunk's question line) in token-bounded batches — the
chunks not already stored by an earlier attempt —, upsert the vectors into Chroma with
deterministic ids, and rewrite the document's per-language vector sums.
Clients and the progress callback are handed in (see ``services/embedder/main.py``).
"""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from services.embedder.batcher import EmbedFn
from services.embedder.lookahead import embed_ahead
from services.embedder.neighbours import (
    COMPOSED_KIND,
    OWN_KIND,
    compose,
    composed_sha,
    is_page_chunk,
    neighbours,
    page_weight,
)
from services.embedder.search_text import (
    chunk_search_text,
    content_chars,
    document_title,
    question_search_text,
    text_sha,
)
from shared.deletion import Check, never_gone
from shared.e5tokens import COUNTER, token_batches
from shared.errors import DocumentGone
from shared.events import DocumentChunked
from shared.lang import detect_language
from shared.metrics import CHUNKS, EMBEDDED_TOKENS, RESUMED
from shared.models import Chunk, ChunkSet
from shared.settings import Settings
from shared.storage import ObjectStore
from shared.vectorstore import StoredRecord, VectorStore, flat_metadata

Report = Callable[..., Awaitable[None]]
"""``report(pages_done=chunks done, pages_total=chunks)``: publishes an ``embedding`` progress event."""


def chunk_metadata(event: DocumentChunked, chunk_set: ChunkSet, chunk: Chunk, lang: str = "") -> dict[str, Any]:
    """Flat Chroma metadata of one chunk: document keys (document_id, department, visibility,
    filename, ``lang`` = the document's language ``zh``/``en``; the question-line record of a
    Q&A chunk gets the same, so the query service's department filter applies to both),
    position (chunk_index, page_number), ``content_chars`` (non-space characters of the text)
    and the strategy's own fields."""
    meta: dict[str, Any] = dict(chunk.metadata)
    meta.update(
        document_id=event.document_id, department=event.department, visibility=event.visibility,
        filename=event.filename,
        file_type=chunk_set.file_type, strategy=event.strategy, chunk_index=chunk.chunk_index,
        page_number=chunk.page_number if chunk.page_number is not None else -1,
        lang=lang or None, content_chars=content_chars(chunk.text),
    )
    meta.setdefault("strategy_type", chunk_set.strategy_used)
    return meta


@dataclass
class _Record:
    """One vector to write: id, embedded text, the text stored with it and its metadata."""

    id: str
    text: str
    document: str
    meta: dict[str, Any]

    def stored_as(self, stored: dict[str, StoredRecord]) -> list[float] | None:
        """The embedding already stored for this record when the stored text and metadata are
        exactly what would be written now (then writing it again changes nothing), else None."""
        got = stored.get(self.id)
        if got is None or got[0] != self.document or got[1] != flat_metadata(self.meta):
            return None
        return got[2]

    def composed_in(self, stored: dict[str, StoredRecord]) -> list[float] | None:
        """For an own-text record (``neighbours.OWN_KIND``): the stored vector when the record
        stored is the composed one of the same text and metadata (whatever its neighbours), else
        None. A chunk range of a big document, which does not see every neighbour, asks this."""
        got = stored.get(self.id)
        if got is None or got[0] != self.document:
            return None
        meta = {**self.meta, "vector_kind": COMPOSED_KIND, "vector_sha": got[1].get("vector_sha")}
        return got[2] if got[1] == flat_metadata(meta) else None


@dataclass(frozen=True)
class RangePart:
    """What a chunk range of a big document takes from the whole document (``ranges.py``): its
    language (``zh``/``en``) and title, found over every chunk; a range writes no statistics."""

    lang: str
    title: str


@dataclass
class _Planned:
    """A chunk's record and, for a Q&A pair, its question-line record. ``own``: for a page chunk
    whose stored vector is composed with its neighbours' (``neighbours.py``), the record of its
    own-text vector, written first; ``chunk`` is then the composed record."""

    chunk: _Record
    question: _Record | None
    own: _Record | None = None

    @property
    def embedded(self) -> _Record:
        """The record whose text is embedded and written batch by batch."""
        return self.own if self.own is not None else self.chunk


def _plan(event: DocumentChunked, chunk_set: ChunkSet, chunk: Chunk, lang: str, title: str,
          page_overlap: bool = True, compose_pages: bool = False) -> _Planned:
    doc_id = event.document_id
    text = chunk_search_text(chunk, page_overlap)
    meta = chunk_metadata(event, chunk_set, chunk, lang)
    meta["vector_sha"] = text_sha(text)
    if compose_pages and not page_overlap and is_page_chunk(chunk):  # its composed sha comes with its neighbours'
        own = _Record(chunk.chunk_id(doc_id), text, chunk.text, {**meta, "vector_kind": OWN_KIND})
        return _Planned(_Record(own.id, text, chunk.text, {**meta, "vector_kind": COMPOSED_KIND}), None, own)
    q = question_search_text(title, chunk)
    if q is None:
        return _Planned(_Record(chunk.chunk_id(doc_id), text, chunk.text, meta), None)
    meta["question_sha"] = text_sha(q)
    return _Planned(_Record(chunk.chunk_id(doc_id), text, chunk.text, meta),
                    _Record(chunk.chunk_id(doc_id), q, q, {**meta, "vector_sha": meta["question_sha"]}))


@dataclass
class _Batch:
    """Chunks embedded in one call and written together: their chunk texts, then their
    question lines (in the same order), with the texts' e5 token counts."""

    plans: list[_Planned]
    texts: list[str]
    tokens: list[int]


def _batches(todo: list[_Planned], settings: Settings) -> list[_Batch]:
    """``todo`` in batches of at most ``embeddings_batch_tokens`` e5 tokens and
    ``embeddings_batch_size`` texts, a chunk's question line in its chunk's batch (a chunk
    whose texts are longer goes alone). Counts tokens: call it off the event loop."""
    chunk_tokens = COUNTER.counts([p.embedded.text for p in todo])
    question_tokens = [COUNTER.count(p.question.text) if p.question else 0 for p in todo]
    cost = [c + q for c, q in zip(chunk_tokens, question_tokens, strict=True)]
    per_chunk = 2 if any(p.question for p in todo) else 1
    out: list[_Batch] = []
    for r in token_batches(cost, settings.embeddings_batch_tokens, settings.embeddings_batch_size // per_chunk):
        plans = [todo[i] for i in r]
        questions = [(p.question.text, question_tokens[i]) for i, p in zip(r, plans, strict=True) if p.question]
        out.append(_Batch(plans, [p.embedded.text for p in plans] + [t for t, _ in questions],
                          [chunk_tokens[i] for i in r] + [n for _, n in questions]))
    return out


def _resume(plans: list[_Planned], pages: list[int], around: dict[int, tuple[int, ...]],
            stored_chunks: dict[str, StoredRecord], stored_questions: dict[str, StoredRecord],
            ranged: bool) -> tuple[dict[str, list[float]], dict[str, list[float]], list[_Planned]]:
    """What an earlier attempt stored: the vectors stored for chunks (by chunk id; a page chunk's
    composed one), the own-text vectors of page chunks not composed yet, and the plans still to
    embed — every chunk not stored, and the own text of each page chunk not composed yet and of
    its neighbours when their own vectors are not stored (``ranged``: a chunk range, which sees
    only some neighbours, takes any composed record of the same text as done)."""
    vecs: dict[str, list[float]] = {}
    owns: dict[str, list[float]] = {}
    for p in plans:
        vec = p.chunk.stored_as(stored_chunks)
        if vec is None and p.own is not None and ranged:
            vec = p.own.composed_in(stored_chunks)
        if vec is not None and (p.question is None or p.question.stored_as(stored_questions) is not None):
            vecs[p.chunk.id] = vec
        elif p.own is not None and (own := p.own.stored_as(stored_chunks)) is not None:
            owns[p.chunk.id] = own
    need = {q for pos in pages if plans[pos].chunk.id not in vecs for q in (pos, *around[pos])}
    todo = [p for pos, p in enumerate(plans)
            if (p.own is None and p.chunk.id not in vecs) or (p.own is not None and pos in need
                                                               and p.chunk.id not in owns)]
    return vecs, owns, todo


async def _compose_pages(plans: list[_Planned], pages: list[int], around: dict[int, tuple[int, ...]],
                         vecs: dict[str, list[float]], owns: dict[str, list[float]], weights: dict[int, float],
                         vectors: VectorStore, check: Check, batch: int = 256) -> None:
    """Write the composed vector of every page chunk at ``pages`` not yet composed
    (``neighbours.compose`` of its own vector and its neighbours' ``around`` it, all in
    ``owns``, at the page's weight in ``weights``) over its own-text record, ``batch`` records
    per upsert; ``vecs`` gets them."""
    todo = [pos for pos in pages if plans[pos].chunk.id not in vecs]
    for start in range(0, len(todo), batch):
        await check()
        part = [plans[pos] for pos in todo[start:start + batch]]
        composed = [compose(owns[plans[pos].chunk.id], [owns[plans[q].chunk.id] for q in around[pos]], weights[pos])
                    for pos in todo[start:start + batch]]
        await asyncio.to_thread(vectors.upsert, [p.chunk.id for p in part], composed,
                                [p.chunk.document for p in part], [p.chunk.meta for p in part])
        vecs.update((p.chunk.id, v) for p, v in zip(part, composed, strict=True))


async def _stored(vectors: VectorStore, doc_id: str,
                  ids: list[str]) -> tuple[dict[str, StoredRecord], dict[str, StoredRecord]]:
    chunks = await asyncio.to_thread(vectors.document_records, doc_id, "chunks", ids)
    questions = await asyncio.to_thread(vectors.document_records, doc_id, "questions", ids) if chunks else {}
    return chunks, questions


async def embed_and_store(event: DocumentChunked, store: ObjectStore, vectors: VectorStore,
                          embed: EmbedFn, settings: Settings, report: Report, check: Check = never_gone,
                          part: RangePart | None = None) -> int:
    """Embed and upsert every non-empty chunk of one document; returns the chunk count stored.

    ``part``: the event's chunk set is one chunk range of a big document (``ranges.py``): its
    chunks get the document's language and title from ``part``, and the document's statistics
    are left to the gatherer, which finishes the document with a whole run of this function
    (every chunk then found stored: nothing embedded, the sums taken in chunk order).

    With ``EMBED_PAGE_OVERLAP`` false and a neighbour weight > 0
    (``EMBED_NEIGHBOUR_WEIGHT``; ``EMBED_TABLE_NEIGHBOUR_WEIGHT`` for a page holding a table,
    ``neighbours.page_weight``), a token-strategy page chunk's own page text is embedded (once)
    and written batch by batch as its own-text record;
    once every chunk is embedded, each page chunk's record is rewritten with its vector composed
    with its neighbours' (``neighbours.py``). A chunk range writes the own-text records only; the
    gatherer's whole run composes them.

    Idempotent: ids are ``{document_id}_{chunk_index}`` and written with ``upsert``. Resumable:
    a chunk whose vector (and question-line vector) is already stored with the same text and
    metadata — written by an earlier attempt that crashed or failed part-way — is not embedded
    again, so a retry or a redelivery starts from the first batch not completed. Batches hold at
    most ``embeddings_batch_tokens`` e5 tokens (and ``embeddings_batch_size`` texts, a Q&A
    chunk's question line with its chunk); ``embedder_batches_ahead`` of them are asked for at
    once (``lookahead.embed_ahead``), and each is upserted as soon as it is embedded, while the
    next ones are computed. ``check`` (throttled) is asked before each batch and
    before its vectors are written (``embed`` from ``Generations.embed`` also asks it while a
    batch is being embedded), so a document deleted meanwhile stops within about that interval.

    Raises:
        openai.APIError, chromadb / minio errors: a dependency failed (``Stage.run`` waits the
            outage out, ``shared.outage``; the next try resumes at the batch that failed).
        DocumentGone: the document was deleted meanwhile (``check``, or the last look after the
            statistics were written, which removes its vectors at once; the stage sweeps the rest).
    """
    doc_id = event.document_id
    chunk_set = ChunkSet.model_validate(await asyncio.to_thread(store.get_json, event.chunks_key))
    chunks = [c for c in chunk_set.chunks if c.text.strip()]
    total = len(chunks)
    lang = part.lang if part else detect_language(" ".join(c.text for c in chunks))
    title = part.title if part else document_title(chunk_set)
    weight, table_weight = settings.embed_neighbour_weight, settings.embed_table_neighbour_weight
    compose_pages = weight > 0 or table_weight > 0
    plans = [_plan(event, chunk_set, c, lang, title, settings.embed_page_overlap, compose_pages) for c in chunks]
    pages = [pos for pos, p in enumerate(plans) if p.own is not None]
    around = neighbours(pages)
    weights = {pos: page_weight(chunks[pos], weight, table_weight) for pos in pages}
    for pos in pages:  # the composed record's sha names its neighbours' texts and its weight too
        own_sha = str(plans[pos].embedded.meta["vector_sha"])
        plans[pos].chunk.meta["vector_sha"] = composed_sha(
            own_sha, [str(plans[q].embedded.meta["vector_sha"]) for q in around[pos]], weights[pos])
    stored = await _stored(vectors, doc_id, [p.chunk.id for p in plans])
    vecs, owns, todo = _resume(plans, pages, around, *stored, ranged=part is not None)
    resumed = len(vecs.keys() | owns.keys())
    if resumed:
        RESUMED.inc(resumed)
        await report(unit="chunks", pages_done=resumed, pages_total=total)
    batches = await asyncio.to_thread(_batches, todo, settings)

    async def embed_batch(batch: _Batch) -> list[list[float]]:
        await check()
        return await embed(batch.texts, batch.tokens)

    async def write(batch: _Batch, embeddings: list[list[float]]) -> None:
        EMBEDDED_TOKENS.inc(sum(batch.tokens))
        await check()
        n = len(batch.plans)
        # a composed record stays: its own vector was embedded again only for a neighbour
        keep = [(p.embedded, e) for p, e in zip(batch.plans, embeddings[:n], strict=True) if p.chunk.id not in vecs]
        await asyncio.to_thread(vectors.upsert, [r.id for r, _ in keep], [e for _, e in keep],
                                [r.document for r, _ in keep], [r.meta for r, _ in keep])
        questions = [p.question for p in batch.plans if p.question is not None]
        if questions:
            await asyncio.to_thread(vectors.upsert_questions, [q.id for q in questions], embeddings[n:],
                                    [q.document for q in questions], [q.meta for q in questions])
        for p, e in zip(batch.plans, embeddings[:n], strict=True):
            (owns if p.own is not None else vecs)[p.chunk.id] = e
        CHUNKS.labels("embedding").inc(n)
        await report(unit="chunks", pages_done=len(vecs.keys() | owns.keys()), pages_total=total)

    await embed_ahead(batches, embed_batch, write, settings.embedder_batches_ahead)
    if part is not None:
        return total
    await _compose_pages(plans, pages, around, vecs, owns, weights, vectors, check)
    vec_sum: list[float] | None = None
    for p in plans:  # in chunk order, so a resumed document's sums equal a fresh one's
        e = vecs[p.chunk.id]
        vec_sum = list(e) if vec_sum is None else [a + b for a, b in zip(vec_sum, e, strict=True)]
    await asyncio.to_thread(vectors.write_document_stats, doc_id, event.department, event.visibility,
                            {lang: (vec_sum, total)} if vec_sum is not None else {})
    if not await asyncio.to_thread(store.document_live, doc_id):  # deleted while we embedded
        await asyncio.to_thread(vectors.delete_document, doc_id)
        raise DocumentGone(doc_id)
    return total

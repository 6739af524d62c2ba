"""Rebuilding the index from MinIO (``legco reindex``, ``POST /api/v1/reindex``).

MinIO holds every indexed document's chunk set (``documents/{id}/chunks.json``), so Chroma — the
chunk vectors, the question lines, the per-language statistics — and with it the query service's
keyword index can always be rebuilt from it, with the same embedding model or another one.

The job runs in the gateway that was asked (it holds the registry, MinIO, Chroma and Kafka
already; the CLI and any other gateway follow it through its record in MinIO,
``storage.REINDEX_JOB_KEY``, rewritten every few seconds); the embedding is the embedder's own
path (``RebuildDocument`` on ``index.rebuild``, answered on ``index.rebuilt``), so batching,
fair shares, outage handling and the text that is embedded are those of every document.

A full rebuild (no department) builds a new index generation (``shared.generation``) while
queries keep using the current one:

1. **building**: one ``RebuildDocument`` per indexed document, into generation ``g+1``;
2. **catching up**: documents indexed meanwhile are sent too (until none is missing); documents
   deleted meanwhile were deleted from every generation by the delete itself;
3. **switching**: the generation pointer in Chroma is rewritten and ``IndexSwitched`` published:
   each query service loads its keyword index and language means from the new generation and
   swaps, the embedder writes new documents there (one that was being embedded into the old
   generation is embedded again), the gateways follow within ``index_follow_s``;
4. **settling**: after ``reindex_settle_s``, a last comparison of the registry with the new
   generation (a document finished into the old generation in the moment of the switch is sent
   again; vectors of a document deleted meanwhile are removed);
5. the old generation is dropped ``reindex_keep_old_s`` later.

If a document cannot be rebuilt, the job fails before the switch and the current generation
stays. ``--department D`` rebuilds D's documents in place, into the current generation (upserts
of the same ids; a generation holds every department, so a new one would need all of them);
``--model`` needs a new generation and hence every department.
"""
from __future__ import annotations

import asyncio
import logging
import uuid
from datetime import UTC, datetime

from services.gateway.deletion import publish_deleted
from services.gateway.state import GatewayState
from shared import storage, topics
from shared.api import DocumentRecord, ReindexRequest, ReindexStatus
from shared.events import DocumentRebuilt, IndexSwitched, RebuildDocument, utcnow
from shared.generation import IndexGeneration, next_generation, switched
from shared.vectorstore import VectorStore

log = logging.getLogger("legco.gateway.reindex")
HEARTBEAT_S = 2.0
CATCH_UP_ROUNDS = 5


class ReindexBusy(Exception):
    """Another reindex job is running (``job``: its record)."""

    def __init__(self, job: ReindexStatus) -> None:
        super().__init__(f"reindex job {job.job_id} is running ({job.phase})")
        self.job = job


def read_job(state: GatewayState) -> ReindexStatus | None:
    """The latest job's record in MinIO (blocking), or ``None``."""
    try:
        return ReindexStatus.model_validate(state.store.get_json(storage.REINDEX_JOB_KEY))
    except KeyError:
        return None


def alive(job: ReindexStatus, stale_s: float) -> bool:
    """True for a running job whose gateway wrote its record within ``stale_s`` seconds."""
    if job.state != "running":
        return False
    age = (datetime.now(UTC) - datetime.fromisoformat(job.heartbeat_at)).total_seconds()
    return age < stale_s


class Reindexer:
    """The reindex job of one gateway (at most one at a time); ``on_rebuilt`` is fed the
    embedder's answers (the gateway subscribes to ``index.rebuilt``)."""

    def __init__(self, state: GatewayState) -> None:
        self.state = state
        self.job: ReindexStatus | None = None
        self._answers: asyncio.Queue[DocumentRebuilt] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._done: set[str] = set()
        self._written = 0.0

    # --- start --------------------------------------------------------------------------
    async def start(self, request: ReindexRequest) -> ReindexStatus:
        """Start a job. Raises ``ReindexBusy`` while one runs (on any gateway), ``ValueError``
        for ``model`` with ``department``."""
        if request.model and request.department:
            raise ValueError("A new embedding model needs every department: leave out the department.")
        s = self.state.settings
        running = await asyncio.to_thread(read_job, self.state)
        if running is not None and alive(running, s.reindex_stale_s):
            raise ReindexBusy(running)
        vectors = self.state.vectors
        current = await asyncio.to_thread(vectors.refresh)
        in_place = bool(request.department)
        if in_place:
            target = current
        else:
            existing = await asyncio.to_thread(vectors.generations)
            target = next_generation(vectors.base, request.model or current.model, [current.generation, *existing])
            for g in existing:  # partial builds of dead jobs, and generations replaced before
                if g != current.generation:
                    await asyncio.to_thread(vectors.drop_generation, g)
        now = utcnow()
        self.job = ReindexStatus(job_id=uuid.uuid4().hex, state="running", phase="building",
                                 department=request.department, model=target.model, generation=target.generation,
                                 collection=target.collection, in_place=in_place, instance=s.gateway_instance,
                                 started_at=now, heartbeat_at=now)
        self._done = set()
        self._answers = asyncio.Queue()
        await self._write(force=True)
        self._task = asyncio.create_task(self._run(current, target))
        log.info("reindex %s started: generation %d (%s), model %s%s", self.job.job_id, target.generation,
                 target.collection, target.model, f", department {request.department} in place" if in_place else "")
        return self.job

    def on_rebuilt(self, event: DocumentRebuilt) -> None:
        """An answer of the embedder (ignored unless it is for this gateway's running job)."""
        if self.job is not None and event.job_id == self.job.job_id:
            self._answers.put_nowait(event)

    # --- the job ------------------------------------------------------------------------
    async def _run(self, current: IndexGeneration, target: IndexGeneration) -> None:
        assert self.job is not None
        job = self.job
        try:
            pinned = self.state.vectors.at(target)
            await self._rebuild(self._indexed(job.department), target)
            if not job.failures and not job.in_place:
                await self._catch_up(target, pinned)
            if job.failures:
                raise RuntimeError(f"{len(job.failures)} documents could not be rebuilt; the index was not switched")
            if not job.in_place:
                await self._switch(target)
                await self._settle(target, pinned)
                asyncio.create_task(self._drop_later(current.generation, target.generation))
            job.phase, job.state = "done", "done"
            log.info("reindex %s done: %d documents, %d chunks", job.job_id, job.documents_done, job.chunks)
        except Exception as e:
            log.exception("reindex %s failed", job.job_id)
            job.state, job.error = "failed", str(e)[:500]
            if not job.in_place and job.phase in ("building", "catching up"):  # never the generation switched to
                await asyncio.to_thread(self.state.vectors.drop_generation, target.generation)
        job.finished_at = utcnow()
        await self._write(force=True)

    def _indexed(self, department: str | None) -> list[DocumentRecord]:
        """The indexed documents (of ``department``), oldest upload first."""
        return sorted((r for r in self.state.registry.list() if r.status == "indexed"
                       and (department is None or r.department == department)), key=lambda r: r.upload_seq)

    async def _rebuild(self, records: list[DocumentRecord], target: IndexGeneration) -> None:
        """Send one ``RebuildDocument`` per record and wait for every answer."""
        assert self.job is not None
        job = self.job
        waiting = {r.document_id: r for r in records if r.document_id not in self._done}
        job.documents_total += len(waiting)
        for rec in waiting.values():
            await self.state.broker.publish(rebuild_event(rec, job, target), topic=topics.INDEX_REBUILD,
                                            key=rec.document_id.encode())
        while waiting:
            try:
                answer = await asyncio.wait_for(self._answers.get(), timeout=HEARTBEAT_S)
            except TimeoutError:
                await self._write()
                continue
            if answer.document_id not in waiting:
                continue
            rec = waiting.pop(answer.document_id)
            self._done.add(answer.document_id)
            job.documents_done += 1
            job.chunks += answer.chunk_count
            if not answer.ok and not answer.gone:
                job.failures.append(f"{rec.filename} ({answer.document_id}): {answer.error}")
            await self._write()

    async def _catch_up(self, target: IndexGeneration, pinned: VectorStore) -> None:
        """Rebuild the documents indexed since the job began (a few rounds, until none is new)."""
        assert self.job is not None
        self.job.phase = "catching up"
        for _ in range(CATCH_UP_ROUNDS):
            missing = [r for r in self._indexed(None) if r.document_id not in self._done]
            if not missing:
                return
            await self._rebuild(missing, target)

    async def _switch(self, target: IndexGeneration) -> None:
        """Make ``target`` current: the pointer, then the event, then this gateway's own store."""
        assert self.job is not None
        vectors = self.state.vectors
        await self._write(force=True)
        self.job.phase = "switching"  # from here on, a failure must not drop the target generation
        await asyncio.to_thread(vectors.write_pointer, switched(target))
        await self.state.broker.publish(IndexSwitched(job_id=self.job.job_id, generation=target.generation,
                                                      collection=target.collection, model=target.model),
                                        topic=topics.INDEX_SWITCHED, key=b"index")
        await asyncio.to_thread(vectors.refresh)
        log.info("index switched to generation %d (%s)", target.generation, target.collection)

    async def _settle(self, target: IndexGeneration, pinned: VectorStore) -> None:
        """After the switch: rebuild what was indexed into the old generation at the switch, and
        remove vectors of documents deleted meanwhile from the new one."""
        assert self.job is not None
        self.job.phase = "settling"
        await self._write(force=True)
        await asyncio.sleep(self.state.settings.reindex_settle_s)
        present = await asyncio.to_thread(pinned.document_ids)
        indexed = self._indexed(None)
        missing = [r for r in indexed if r.document_id not in present]
        if missing:
            log.info("reindex: %d documents indexed into the old generation at the switch; sent again", len(missing))
            self._done -= {r.document_id for r in missing}
            await self._rebuild(missing, target)
        known = {r.document_id for r in indexed}
        for doc_id in present - known:
            if not await asyncio.to_thread(self.state.store.document_live, doc_id):
                await asyncio.to_thread(pinned.delete_document_here, doc_id)
                await publish_deleted(self.state, doc_id, self.state.registry.get(doc_id))

    async def _drop_later(self, old: int, new: int) -> None:
        """Drop generation ``old`` after ``reindex_keep_old_s`` (a query in flight may use it)."""
        if old == new:
            return
        await asyncio.sleep(self.state.settings.reindex_keep_old_s)
        try:
            await asyncio.to_thread(self.state.vectors.drop_generation, old)
            log.info("dropped index generation %d", old)
        except Exception:
            log.exception("could not drop index generation %d", old)

    async def _write(self, force: bool = False) -> None:
        """Write the job's record (heartbeat), at most every ``HEARTBEAT_S`` unless ``force``."""
        loop = asyncio.get_running_loop()
        if self.job is None or (not force and loop.time() - self._written < HEARTBEAT_S):
            return
        self._written = loop.time()
        self.job.heartbeat_at = utcnow()
        try:
            await asyncio.to_thread(self.state.store.put_json, storage.REINDEX_JOB_KEY, self.job)
        except Exception:
            log.warning("reindex record not written", exc_info=True)


def rebuild_event(record: DocumentRecord, job: ReindexStatus, target: IndexGeneration) -> RebuildDocument:
    """The ``RebuildDocument`` of one indexed document (its chunk set in MinIO)."""
    return RebuildDocument(document_id=record.document_id, department=record.department,
                           visibility=record.visibility, filename=record.filename, strategy=record.strategy,
                           strategy_used=record.strategy_used or record.strategy, file_type=record.file_type or "pdf",
                           page_count=record.page_count or 0, chunks_key=storage.chunks_key(record.document_id),
                           chunk_count=record.chunk_count, job_id=job.job_id, generation=target.generation,
                           collection=target.collection, model=target.model)

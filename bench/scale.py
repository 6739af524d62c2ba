"""A collection of 100,000 chunks against the same stack at ~1,000 chunks, in one run: query
latency at one client, how soon a new document is searchable by keyword and by dense search
after ``indexed``, the query service's memory, its restart, and the embedder's speed on a new
document.

Run from the repo root against a stack of its own (the documents it adds stay in it):
    PORT_OFFSET=36000 LEGCO_VAR=$PWD/var scripts/stack.sh up
    .cache/venv/bin/python bench/scale.py --offset 36000 --var var [--chunks 100000] [--small 1000]
        [--requests 57] [--departments 12] [--no-restart]

How the collection grows: the corpus (``../shared/corpus/fixtures`` + ``real``, ingested through
the gateway first when missing) is copied, document by document, into new documents (new ids,
one of ``--departments`` departments each, every 10th in the shared library) until Chroma holds
the number of chunks asked for. A copy's text is the original's **perturbed** (about 30% of its
numbers changed, 2% of its Chinese characters and 3% of its English words swapped for others of
the corpus), and its vectors are the original's **perturbed**, not embedded:
``unit(v + 0.2·g/√384)``, g standard normal, cosine ≈ 0.98 to the original (an e5 embedding of
each copy would take the stack's e5 days at 100,000 chunks). Each copy is written as the
embedder writes a document — chunk records, question-line records, per-language statistics,
its manifest in MinIO (so the gateway's reconciler keeps it) — and then announced on
``legco.documents.indexed.v1``, so the query service takes it in through its normal path.

Measured at each size (~``--small`` chunks, then ``--chunks``):

* query p50/p95 through the gateway at one client, for an admin (every department) and for a
  member of one department (that department and the shared library), the questions of
  ``bench/query.py``; and, as a control of the machine's speed, the e5-query embedding p50;
* a new document (a TXT paper of corpus text plus a paragraph with a word found nowhere else,
  uploaded through the gateway and embedded by the stack): the seconds from its ``indexed``
  event until the query service finds it by that word (keyword) and until a question limited to
  it returns a passage (dense; the keyword side finds nothing in it), and the embedder's
  chunks/s on it (its ``embedding`` progress events to ``indexed``);
* the RSS of the query service, Chroma and the embedder;
* at the large size, a restart of the query service: seconds until its keyword side is ready.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import math
import os
import random
import re
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import CORPUS, ROOT, fixture_queries, load_note, median, table

import httpx
import numpy as np
from aiokafka import AIOKafkaConsumer, TopicPartition
from query import Phase, product, run as ask_all

from cli import api
from cli.eval_cmd import ensure_ingested, evaluation_files
from shared import storage, topics
from shared.api import DocumentRecord
from shared.events import DocumentDeleted, DocumentIndexed, utcnow
from shared.kafka import make_broker
from shared.settings import ClientSettings, Settings
from shared.vectorstore import VectorStore, flat_metadata

SIGMA = 0.2
WRITE_BATCH = 1000  # Chroma records per upsert
DOCS_PER_ROUND = 60  # documents written, then announced, per round
_NUMBER = re.compile(r"[0-9]+")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_WORD = re.compile(r"[A-Za-z]{4,}")


@dataclass
class Stack:
    """Where the stack under test listens (from ``--offset``) and its settings."""

    offset: int
    var: Path
    url: str
    query_url: str
    e5_query_url: str
    settings: Settings
    headers: dict[str, str]


def stack_of(offset: int, var: Path) -> Stack:
    """The stack started with ``PORT_OFFSET=offset LEGCO_VAR=var``."""
    os.environ.update(PORT_OFFSET=str(offset), LEGCO_VAR=str(var))
    settings = Settings(kafka_bootstrap=f"127.0.0.1:{9092 + offset}", chroma_host="127.0.0.1",
                        chroma_port=8000 + offset, minio_endpoint=f"127.0.0.1:{9000 + offset}",
                        minio_credentials_file=var / "minio.credentials")
    key = ClientSettings().api_key_or_file()
    return Stack(offset, var, f"http://127.0.0.1:{8080 + offset}", f"http://127.0.0.1:{8104 + offset}",
                 f"http://127.0.0.1:{8201 + offset}/v1", settings, {"Authorization": f"Bearer {key}"})


# --- the copies ----------------------------------------------------------------------------
@dataclass
class Template:
    """One indexed corpus document: its record and its stored chunk and question-line records
    (id → text, metadata, vector)."""

    record: dict[str, Any]
    chunks: dict[str, tuple[str, dict[str, Any], list[float]]]
    questions: dict[str, tuple[str, dict[str, Any], list[float]]]


class Perturber:
    """Changes a text a little, drawing replacements from the corpus's own characters and words."""

    def __init__(self, texts: list[str]) -> None:
        self.chars = sorted({c for t in texts for c in _HAN.findall(t)})
        self.words = sorted({w for t in texts for w in _WORD.findall(t)})

    def __call__(self, text: str, rnd: random.Random) -> str:
        text = _NUMBER.sub(lambda m: "".join(rnd.choice("0123456789") for _ in m.group())
                           if rnd.random() < 0.3 else m.group(), text)
        text = _HAN.sub(lambda m: rnd.choice(self.chars) if rnd.random() < 0.02 else m.group(), text)
        return _WORD.sub(lambda m: rnd.choice(self.words) if rnd.random() < 0.03 else m.group(), text)


def perturbed(vec: list[float], rnd: np.random.Generator) -> list[float]:
    """``unit(v + SIGMA·g/√d)``."""
    v = np.asarray(vec, dtype=np.float64)
    v = v + SIGMA * rnd.standard_normal(len(v)) / math.sqrt(len(v))
    return (v / np.linalg.norm(v)).tolist()


@dataclass
class Copy:
    """One new document: its chunk and question-line records, statistics, manifest and event."""

    document_id: str
    chunks: list[tuple[str, str, dict[str, Any], list[float]]] = field(default_factory=list)
    questions: list[tuple[str, str, dict[str, Any], list[float]]] = field(default_factory=list)
    sums: dict[str, tuple[np.ndarray, int]] = field(default_factory=dict)
    record: DocumentRecord | None = None
    event: DocumentIndexed | None = None


def make_copy(t: Template, n: int, department: str, shared: bool, perturb: Perturber) -> Copy:
    """Copy ``n`` of template ``t`` in ``department`` (``shared``: the shared library)."""
    rnd, vrnd = random.Random(n), np.random.default_rng(n)
    doc_id = uuid.uuid4().hex
    visibility = "shared" if shared else "department"
    filename = f"scale-{n:06d}-{t.record['filename']}"
    out = Copy(doc_id)
    texts: dict[str, str] = {}
    for cid, (text, meta, vec) in t.chunks.items():
        index = cid.rpartition("_")[2]
        new_id = f"{doc_id}_{index}"
        new_text = texts[cid] = perturb(text, rnd)
        m = {**meta, "document_id": doc_id, "department": department, "visibility": visibility,
             "filename": filename, "vector_sha": hashlib.sha256(new_text.encode()).hexdigest()}
        if "question_text" in m:
            m["question_text"] = perturb(str(m["question_text"]), rnd)
        v = perturbed(vec, vrnd)
        out.chunks.append((new_id, new_text, m, v))
        lang = str(m.get("lang", ""))
        if lang:
            acc, count = out.sums.get(lang, (np.zeros(len(v)), 0))
            out.sums[lang] = (acc + np.asarray(v), count + 1)
    for cid, (text, meta, vec) in t.questions.items():
        new_id = f"{doc_id}_{cid.rpartition('_')[2]}"
        q_text = perturb(text, rnd)
        m = {**meta, "document_id": doc_id, "department": department, "visibility": visibility,
             **({"filename": filename} if "filename" in meta else {})}
        out.questions.append((new_id, q_text, m, perturbed(vec, vrnd)))
        chunk_meta = next((c[2] for c in out.chunks if c[0] == new_id), None)
        if chunk_meta is not None:
            chunk_meta["question_sha"] = hashlib.sha256(q_text.encode()).hexdigest()
    rec = t.record
    now = utcnow()
    out.record = DocumentRecord(document_id=doc_id, filename=filename, department=department,
                                visibility=visibility, file_type=rec.get("file_type"), strategy=rec["strategy"],
                                strategy_used=rec.get("strategy_used"), status="indexed", stage="indexed",
                                page_count=rec.get("page_count"), chunk_count=len(out.chunks), upload_date=now,
                                updated_at=now, unit="chunks", pages_done=len(out.chunks),
                                pages_total=len(out.chunks))
    out.event = DocumentIndexed(document_id=doc_id, department=department, visibility=visibility,
                                filename=filename, strategy=rec["strategy"],
                                strategy_used=rec.get("strategy_used") or rec["strategy"],
                                file_type=rec.get("file_type") or "pdf", page_count=rec.get("page_count") or 0,
                                chunk_count=len(out.chunks))
    return out


def write_copies(vectors: VectorStore, objects: storage.ObjectStore, copies: list[Copy]) -> None:
    """Write the copies as the embedder writes a document (chunks, question lines, statistics —
    the records ``VectorStore.write_document_stats`` writes, in batches) and their manifests."""
    def batches(rows: list[tuple[str, str, dict[str, Any], list[float]]]) -> list[list[Any]]:
        return [rows[i:i + WRITE_BATCH] for i in range(0, len(rows), WRITE_BATCH)]

    for batch in batches([r for c in copies for r in c.chunks]):
        vectors.upsert([r[0] for r in batch], [r[3] for r in batch], [r[1] for r in batch], [r[2] for r in batch])
    for batch in batches([r for c in copies for r in c.questions]):
        vectors.upsert_questions([r[0] for r in batch], [r[3] for r in batch], [r[1] for r in batch],
                                 [r[2] for r in batch])
    stats = [(f"{c.document_id}:{lang}", (acc / n).tolist(), json.dumps({"sum": acc.tolist(), "count": n}),
              {"document_id": c.document_id, "department": c.event.department if c.event else "default",
               "visibility": c.event.visibility if c.event else "department", "lang": lang, "count": n})
             for c in copies for lang, (acc, n) in sorted(c.sums.items()) if n > 0]
    for i in range(0, len(stats), WRITE_BATCH):
        part = stats[i:i + WRITE_BATCH]
        vectors.stats.upsert(ids=[s[0] for s in part], embeddings=[s[1] for s in part],
                             documents=[s[2] for s in part], metadatas=[flat_metadata(s[3]) for s in part])
    for c in copies:
        assert c.record is not None
        objects.put_json(storage.manifest_key(c.document_id), c.record.model_dump(mode="json"))


async def reset(stack: Stack) -> int:
    """Remove what earlier runs added: the uploaded new papers through the gateway; the copies
    (departments ``scale-NN``) from Chroma by their department, their manifests, and from the
    query service by a ``documents.deleted`` event each. Returns the copies removed."""
    async with api.make_client(stack.url) as client:
        for d in (await api.list_documents(client)).get("documents", []):
            if str(d.get("department", "")).startswith("scale-new-"):
                await api.delete_document(client, d["document_id"])
    vectors = VectorStore(stack.settings)
    departments = [f"scale-{n:02d}" for n in range(100)]
    where: Any = {"department": {"$in": departments}}
    copies: set[str] = set()
    offset = 0
    while True:
        got = await asyncio.to_thread(vectors.stats.get, where=where, include=["metadatas"], limit=5000, offset=offset)
        copies.update(str(m["document_id"]) for m in got["metadatas"] or [] if m)
        if len(got["ids"]) < 5000:
            break
        offset += 5000
    for coll in (vectors.collection, vectors.questions, vectors.stats):
        await asyncio.to_thread(coll.delete, where=where)
    objects = storage.ObjectStore(stack.settings)
    broker = make_broker(stack.settings, "bench-scale")
    await broker.start()
    try:
        for doc_id in copies:
            await asyncio.to_thread(objects.delete_prefix, f"documents/{doc_id}/")
            await broker.publish(DocumentDeleted(document_id=doc_id), topics.DELETED, key=doc_id.encode())
    finally:
        await broker.stop()
    return len(copies)


async def read_templates(stack: Stack, vectors: VectorStore) -> list[Template]:
    """The corpus documents, ingested through the gateway when missing, with their stored records."""
    files = evaluation_files([CORPUS / "fixtures", CORPUS / "real"], [])
    async with api.make_client(stack.url) as client:
        records = await ensure_ingested(client, files, 3600)
    out = []
    for rec in records.values():
        if rec.get("status") != "indexed":
            continue
        chunks = await asyncio.to_thread(vectors.document_records, rec["document_id"], "chunks")
        questions = await asyncio.to_thread(vectors.document_records, rec["document_id"], "questions")
        out.append(Template(rec, chunks, questions))
    return out


async def grow(stack: Stack, templates: list[Template], target: int, departments: int, first_copy: int,
               perturb: Perturber) -> tuple[int, int, float]:
    """Add copies until Chroma holds ``target`` chunks; returns (documents added, chunks added,
    seconds). Each round's copies are written, then announced (``documents.indexed``)."""
    vectors = VectorStore(stack.settings)
    objects = storage.ObjectStore(stack.settings)
    broker = make_broker(stack.settings, "bench-scale")
    await broker.start()
    start, docs, chunks, n = time.perf_counter(), 0, 0, first_copy
    try:
        have = await asyncio.to_thread(vectors.collection.count)
        while have < target:
            round_copies = []
            while have < target and len(round_copies) < DOCS_PER_ROUND:
                t = templates[n % len(templates)]
                round_copies.append(make_copy(t, n, f"scale-{n % departments:02d}", n % 10 == 0, perturb))
                have += len(round_copies[-1].chunks)
                n += 1
            await asyncio.to_thread(write_copies, vectors, objects, round_copies)
            for c in round_copies:
                assert c.event is not None
                await broker.publish(c.event, topics.INDEXED, key=c.document_id.encode())
            docs += len(round_copies)
            chunks += sum(len(c.chunks) for c in round_copies)
            if docs % (DOCS_PER_ROUND * 10) < DOCS_PER_ROUND:
                print(f"  {have} chunks in Chroma ({docs} documents added, {time.perf_counter() - start:.0f} s)",
                      flush=True)
    finally:
        await broker.stop()
    return docs, chunks, time.perf_counter() - start


async def keyword_index(stack: Stack) -> dict[str, Any]:
    """The query service's ``/healthz`` ``keyword_index`` (``{}`` while it is down)."""
    with contextlib.suppress(httpx.HTTPError, KeyError, ValueError):
        async with httpx.AsyncClient(timeout=30) as c:
            return dict((await c.get(f"{stack.query_url}/healthz")).json()["keyword_index"])
    return {}


async def wait_caught_up(stack: Stack, chunks: int, timeout_s: float = 7200) -> float:
    """Seconds until the query service's keyword index holds exactly ``chunks`` chunks (Chroma's
    count: every announcement applied, deletions included) and is ready."""
    start = last = time.perf_counter()
    while time.perf_counter() - start < timeout_s:
        kw = await keyword_index(stack)
        if kw.get("ready") and kw.get("chunks", 0) == chunks:
            return time.perf_counter() - start
        if time.perf_counter() - last > 30:
            last = time.perf_counter()
            print(f"  keyword index: {kw.get('chunks')} of {chunks} chunks ({last - start:.0f} s)", flush=True)
        await asyncio.sleep(1)
    raise TimeoutError(f"the keyword index did not reach {chunks} chunks in {timeout_s:.0f} s")


# --- measurements --------------------------------------------------------------------------
def rss_mib() -> dict[str, float]:
    """RSS in MiB of every running program of the stack (``scripts/stack.sh ctl status`` pids)."""
    status = subprocess.run([str(ROOT / "scripts" / "stack.sh"), "ctl", "status"], capture_output=True, text=True,
                            env=os.environ.copy()).stdout
    out: dict[str, float] = {}
    for m in re.finditer(r"^(\S+)\s+RUNNING\s+pid (\d+)", status, re.M):
        with contextlib.suppress(OSError):
            kb = re.search(r"^VmRSS:\s+(\d+) kB", Path(f"/proc/{m.group(2)}/status").read_text(), re.M)
            if kb:
                out[m.group(1).split(":")[-1]] = int(kb.group(1)) / 1024
    return out


async def embed_p50(stack: Stack, n: int = 20) -> float:
    """Median ms of one question embedded by the e5-query process (the machine's speed)."""
    lat = []
    async with httpx.AsyncClient(timeout=60) as c:
        for i in range(n):
            t = time.perf_counter()
            r = await c.post(f"{stack.e5_query_url}/embeddings",
                             json={"model": stack.settings.embeddings_model, "input": [f"query: 補償安排 {i}"]})
            r.raise_for_status()
            lat.append((time.perf_counter() - t) * 1000)
    return median(lat)


def new_paper(templates: list[Template], word: str, path: Path) -> Path:
    """A TXT paper: 24 chunk texts of the corpus, and a paragraph holding ``word``."""
    rnd = random.Random(11)
    texts = [text for t in templates for text, _, _ in t.chunks.values()]
    body = [texts[i] for i in rnd.sample(range(len(texts)), min(24, len(texts)))]
    body.insert(len(body) // 2, f"The {word} survey of the harbour district covered every pier and ferry route.")
    path.write_text("Briefing paper on district works\n\n" + "\n\n".join(body), encoding="utf-8")
    return path


def unique_word() -> str:
    """A Latin word no paper contains (the keyword side indexes letters)."""
    return "qx" + "".join(chr(ord("a") + int(c, 16) % 26) for c in uuid.uuid4().hex[:10])


class DocumentEvents:
    """A document's events as Kafka received them (``time.time()`` seconds of each record's
    timestamp, i.e. when its producer sent it): its first ``embedding`` progress event, its
    ``indexed`` progress event and its ``documents.indexed`` event. Follows the topics from
    their end at :meth:`start` (before the upload), outside any consumer group."""

    def __init__(self, stack: Stack) -> None:
        self.consumer = AIOKafkaConsumer(bootstrap_servers=stack.settings.kafka_bootstrap, enable_auto_commit=False)
        self.times: dict[str, float] = {}
        self.indexed = asyncio.Event()

    async def start(self) -> None:
        """Connect and take the topics' end offsets."""
        await self.consumer.start()
        tps = []
        for t in (topics.INDEXED, topics.PROGRESS):
            parts = self.consumer.partitions_for_topic(t)
            if not parts:
                await self.consumer._client.force_metadata_update()
                parts = self.consumer.partitions_for_topic(t) or {0}
            tps += [TopicPartition(t, p) for p in parts]
        self.consumer.assign(tps)
        await self.consumer.seek_to_end(*tps)
        for tp in tps:  # resolve the end offsets now, before the upload
            await self.consumer.position(tp)

    async def follow(self, doc_id: str) -> None:
        """Read until ``doc_id``'s ``documents.indexed`` event and its ``indexed`` progress event
        arrived (the latter: at most 30 s after the former)."""
        try:
            while "indexed" not in self.times or ("indexed_progress" not in self.times
                                                  and time.time() - self.times["indexed"] < 30):
                for records in (await self.consumer.getmany(timeout_ms=100)).values():
                    for r in records:
                        body = json.loads(r.value)
                        if body.get("document_id") != doc_id:
                            continue
                        at = r.timestamp / 1000
                        if r.topic == topics.INDEXED:
                            self.times.setdefault("indexed", at)
                            self.indexed.set()
                        elif body.get("stage") == "embedding":
                            self.times.setdefault("embedding", at)
                        elif body.get("stage") == "indexed":
                            self.times.setdefault("indexed_progress", at)
        finally:
            await self.consumer.stop()


async def new_document(stack: Stack, templates: list[Template], tmp: Path, label: str) -> dict[str, float]:
    """Upload a new paper; seconds from its ``indexed`` event until found by keyword and by dense
    search, the embedder's chunks/s on it."""
    word = unique_word()
    path = new_paper(templates, word, tmp / f"scale-new-{label}-{word}.txt")
    events = DocumentEvents(stack)
    await events.start()
    async with api.make_client(stack.url) as client:
        doc_id = (await api.upload(client, path, "token", department=f"scale-new-{label}"))["document_id"]
        follower = asyncio.create_task(events.follow(doc_id))
        await asyncio.wait_for(events.indexed.wait(), 3600)
        indexed_at = events.times["indexed"]
        keyword_s = dense_s = float("nan")
        while (math.isnan(keyword_s) or math.isnan(dense_s)) and time.time() - indexed_at < 120:
            if math.isnan(keyword_s):
                r = await client.post("/api/v1/query", json={"question": word, "top_k": 10, "document_ids": [doc_id]})
                if r.status_code == 200 and any(word in s["matched_terms"] for s in r.json()["sources"]):
                    keyword_s = time.time() - indexed_at
            if math.isnan(dense_s):  # words no chunk holds: only the dense side can return a passage
                r = await client.post("/api/v1/query", json={"question": "zqvorb plimsk", "top_k": 3,
                                                             "document_ids": [doc_id]})
                if r.status_code == 200 and r.json()["sources"]:
                    dense_s = time.time() - indexed_at
            await asyncio.sleep(0.05)
        await asyncio.wait_for(follower, 60)
        chunks = float((await api.get_document(client, doc_id)).get("chunk_count") or 0)
    t = events.times
    embedding_s = t.get("indexed_progress", indexed_at) - t.get("embedding", indexed_at)
    return {"keyword_s": keyword_s, "dense_s": dense_s, "chunks": chunks, "embedding_s": embedding_s,
            "chunks_per_s": chunks / embedding_s if embedding_s > 0 else float("nan")}


async def member_headers(stack: Stack, department: str) -> dict[str, str]:
    """Headers of a new member key of ``department``."""
    async with api.make_client(stack.url) as client:
        key = (await api.create_key(client, department, "member", "bench/scale.py"))["key"]
    return {"Authorization": f"Bearer {key}"}


async def measure(stack: Stack, templates: list[Template], tmp: Path, label: str, requests: int,
                  member: dict[str, str]) -> dict[str, Any]:
    """Every figure at the collection's current size."""
    kw = await keyword_index(stack)
    questions = fixture_queries()
    out: dict[str, Any] = {"label": label, "chunks": kw.get("chunks"), "documents": kw.get("documents"),
                           "load": os.getloadavg()[0], "embed_ms": await embed_p50(stack)}
    asked = (questions * (requests // max(1, len(questions)) + 1))[:requests]
    for who, headers in (("admin", stack.headers), ("member", member)):
        phase = Phase()  # every request with Cache-Control: no-cache: no answer or vector from a cache
        async with httpx.AsyncClient(base_url=stack.url, timeout=ClientSettings().request_timeout_s,
                                     headers=headers) as client:
            ask = product(client, 5, fresh=True)
            await ask(asked[0])  # warm-up
            await ask_all(ask, asked, 1, phase)
        out[who] = (phase.p(50), phase.p(95), phase.errors)
    out["new"] = await new_document(stack, templates, tmp, label)
    out["rss"] = await asyncio.to_thread(rss_mib)
    print(f"  {label}: {json.dumps({k: v for k, v in out.items() if k != 'rss'}, default=str)}", flush=True)
    return out


async def restart_query(stack: Stack) -> tuple[float, float]:
    """Restart the query service; seconds until it answers ``/healthz`` and until its keyword
    side is ready with as many chunks as before."""
    before = (await keyword_index(stack)).get("chunks", 0)
    await asyncio.to_thread(subprocess.run, [str(ROOT / "scripts" / "stack.sh"), "restart", "query"],
                            capture_output=True, env=os.environ.copy(), check=True)
    start = time.perf_counter()
    up = None
    while time.perf_counter() - start < 3600:
        kw = await keyword_index(stack)
        if kw and up is None:
            up = time.perf_counter() - start
        if kw.get("ready") and kw.get("chunks", 0) >= before:
            return up or 0.0, time.perf_counter() - start
        await asyncio.sleep(0.25)
    raise TimeoutError("the query service's keyword side was not ready within an hour")


def report(small: dict[str, Any], large: dict[str, Any], build: tuple[int, int, float], catch_up_s: float,
           restart: tuple[float, float] | None) -> None:
    """Print the figures, the ratios and the targets."""
    def row(name: str, get: Any, fmt: str = "{:.1f}") -> list[object]:
        a, b = get(small), get(large)
        return [name, fmt.format(a), fmt.format(b), f"{b / a:.2f}" if a else "-"]

    print()
    print(table(["", f"~{small['chunks']} chunks", f"{large['chunks']} chunks", "ratio"], [
        row("documents", lambda m: m["documents"], "{:.0f}"),
        row("query p50 ms, admin (every department)", lambda m: m["admin"][0]),
        row("query p95 ms, admin (every department)", lambda m: m["admin"][1]),
        row("query p50 ms, member (one department + shared)", lambda m: m["member"][0]),
        row("query p95 ms, member (one department + shared)", lambda m: m["member"][1]),
        row("e5-query embedding p50 ms (machine speed)", lambda m: m["embed_ms"]),
        row("new document: indexed → keyword s", lambda m: m["new"]["keyword_s"], "{:.2f}"),
        row("new document: indexed → dense s", lambda m: m["new"]["dense_s"], "{:.2f}"),
        row("embedder on the new document, chunks/s", lambda m: m["new"]["chunks_per_s"], "{:.2f}"),
        row("query service RSS MiB", lambda m: m["rss"].get("query", float("nan")), "{:.0f}"),
        row("Chroma RSS MiB", lambda m: m["rss"].get("chroma", float("nan")), "{:.0f}"),
        row("embedder RSS MiB", lambda m: m["rss"].get("embedder-0", float("nan")), "{:.0f}"),
        row("load average (1 min) when measured", lambda m: m["load"], "{:.1f}"),
    ]))
    docs, chunks, seconds = build
    print(f"\ngrowth: {docs} documents / {chunks} chunks written and announced in {seconds:.0f} s; "
          f"the keyword index caught up {catch_up_s:.0f} s after the last announcement")
    if restart is not None:
        print(f"query service restart at {large['chunks']} chunks: answering after {restart[0]:.1f} s, "
              f"keyword side ready after {restart[1]:.1f} s")
    p95 = [large[w][1] / small[w][1] for w in ("admin", "member")]
    print(f"targets: query p95 at {large['chunks']} ≤ 2× at ~{small['chunks']} — admin {p95[0]:.2f}x, member "
          f"{p95[1]:.2f}x; new document searchable ≤ 5 s after indexed — keyword "
          f"{large['new']['keyword_s']:.2f} s, dense {large['new']['dense_s']:.2f} s")
    print(load_note())


async def run(a: argparse.Namespace) -> None:
    """Measure at ~``--small`` chunks, grow to ``--chunks``, measure again."""
    stack = stack_of(a.offset, a.var)
    tmp = stack.var / "bench-scale"
    tmp.mkdir(parents=True, exist_ok=True)
    vectors = VectorStore(stack.settings)
    print(f"stack at {stack.url}; {load_note()}", flush=True)
    if a.reset:
        print(f"removed {await reset(stack)} copies of earlier runs", flush=True)
    templates = await read_templates(stack, vectors)
    perturb = Perturber([text for t in templates for text, _, _ in t.chunks.values()])
    print(f"{len(templates)} corpus documents, {sum(len(t.chunks) for t in templates)} chunks as templates",
          flush=True)
    member = await member_headers(stack, "scale-00")
    await grow(stack, templates, a.small, a.departments, 0, perturb)
    have = await asyncio.to_thread(vectors.collection.count)
    await wait_caught_up(stack, have)
    small = await measure(stack, templates, tmp, "small", a.requests, member)
    have = await asyncio.to_thread(vectors.collection.count)
    build = await grow(stack, templates, a.chunks, a.departments, 10_000, perturb)
    announced = time.perf_counter()
    have = await asyncio.to_thread(vectors.collection.count)
    await wait_caught_up(stack, have)
    catch_up_s = time.perf_counter() - announced
    large = await measure(stack, templates, tmp, "large", a.requests, member)
    restart = await restart_query(stack) if a.restart else None
    report(small, large, build, catch_up_s, restart)


def main() -> None:
    """Parse the flags and run."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--offset", type=int, default=int(os.environ.get("PORT_OFFSET", "0")),
                    help="the stack's PORT_OFFSET (default $PORT_OFFSET or 0)")
    ap.add_argument("--var", default=os.environ.get("LEGCO_VAR", str(ROOT / "var")),
                    help="the stack's LEGCO_VAR (admin key, MinIO credentials, supervisord)")
    ap.add_argument("--chunks", type=int, default=100_000, help="chunks of the large collection (default 100000)")
    ap.add_argument("--small", type=int, default=1000, help="chunks of the small collection (default 1000)")
    ap.add_argument("--requests", type=int, default=57, help="questions per latency measurement (default 57)")
    ap.add_argument("--departments", type=int, default=12, help="departments the copies are spread over")
    ap.add_argument("--no-restart", dest="restart", action="store_false", help="skip the restart measurement")
    ap.add_argument("--reset", action="store_true", help="first remove the documents earlier runs added")
    a = ap.parse_args()
    a.var = Path(a.var).resolve()
    asyncio.run(run(a))


if __name__ == "__main__":
    main()

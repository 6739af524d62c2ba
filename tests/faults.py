"""The fault matrix: one fault injected at a random moment of a 10-document ingest, then the
checks the reliability issue asks for (``tests/chaos/test_fault_matrix.py`` runs every fault;
``tests/e2e/test_faults_e2e.py`` runs the smallest version in ``make test``).

A run uploads its documents into a department of its own (``chaos-…``, admin key), so no run
replaces another run's copy of the same file, and compares each document with a reference run
of the same files without a fault (chunk counts by filename). Faults:

* ``kill``: SIGKILL of one program (``parser``, ``tables:tables-0``, ``splitter``, ``embedder``,
  ``gateway``, ``query``) once one of the run's documents is in the stage that program works
  (a random 0-1.5 s later); supervisord starts it again;
* ``restart`` / ``outage``: one dependency (``kafka``, ``minio``, ``chroma``, ``e5``) stopped
  at a random moment of the reference run's duration, for ``down_s`` seconds, then started.

Checks, per run: every document ``indexed`` (else lost), its chunk indexes stored once and
without a gap, its chunk count that of the reference (else duplicated), nothing left
non-terminal at the deadline (stuck), no dead letter, no ``failed`` document with vectors, and
the query service's keyword index holding what Chroma holds. The recovery time is from the end
of the fault (the start again) until every document is terminal.
"""
from __future__ import annotations

import asyncio
import random
import re
import statistics
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from shared import topics
from shared.vectorstore import VectorStore
from tests.brokers import read_all
from tests.infra import OFFSET, Stack

PARAGRAPH = ("立法會財務委員會審議第{n}號撥款建議，涉及新發展區的基礎設施工程、補償及安置安排。"
             "政府表示，工程預算為{n}億元，預計於二〇三〇年完成，並會定期向委員會匯報進度。"
             "The Finance Committee considered funding proposal {n} for the infrastructure works of the "
             "new development area; the estimate is HK${n} billion and completion is expected in 2030.\n\n")

STAGE_OF = {"parser": "parsing", "tables:tables-0": "tables", "splitter": "splitting", "embedder": "embedding"}
"""The pipeline stage each killed worker program works (gateway and query: none)."""

ORDER = {"uploaded": 0, "parsing": 1, "tables": 2, "splitting": 3, "embedding": 4, "indexed": 5, "failed": 5}

METRICS_PORTS = (8120, 8130, 8140, 8110)  # parser-0, splitter-0, embedder-0, tables-0 (before the offset)


def small_papers(tmp: Path, prefix: str, count: int = 10) -> list[tuple[Path, str]]:
    """``count`` short TXT papers of 3-4 chunks each (token strategy), named ``prefix_NN.txt``."""
    out = []
    for n in range(1, count + 1):
        path = tmp / f"{prefix}_{n:02d}.txt"
        path.write_text("".join(PARAGRAPH.format(n=n * 10 + k) for k in range(12)), encoding="utf-8")
        out.append((path, "token"))
    return out


@dataclass(frozen=True)
class Fault:
    """One fault: ``kind`` ``kill`` | ``restart`` | ``outage`` of supervisord ``program``, down for
    ``down_s`` seconds (restart/outage)."""

    kind: str
    program: str
    down_s: float = 0.0

    @property
    def label(self) -> str:
        return f"kill -9 {self.program}" if self.kind == "kill" else f"{self.program} down {self.down_s:.0f} s"


@dataclass
class Reference:
    """The fault-free run: chunk count by filename, and its upload-to-all-terminal seconds."""

    chunks: dict[str, int]
    seconds: float


@dataclass
class FaultRun:
    """What one run found (times in seconds)."""

    fault: Fault
    injected_after_s: float
    recovery_s: float | None
    lost: list[str] = field(default_factory=list)         # filenames not indexed
    duplicated: list[str] = field(default_factory=list)   # duplicate chunk indexes or too many chunks
    stuck: list[str] = field(default_factory=list)        # not terminal at the deadline
    dead_letters: int = 0
    failed_searchable: int = 0                             # failed documents that still have vectors
    keyword_gap: int = 0                                   # |keyword index chunks - Chroma chunks| at the end
    retries_used: float = 0.0                              # handler attempts spent (should be 0 for outages)

    @property
    def clean(self) -> bool:
        return not (self.lost or self.duplicated or self.stuck or self.dead_letters or self.failed_searchable
                    or self.keyword_gap)


def call(fn: Callable[[], httpx.Response], timeout_s: float = 120) -> httpx.Response:
    """``fn()`` retried while the gateway is restarting (connection refused, 5xx)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            r = fn()
            if r.status_code < 500:
                return r
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError("the gateway did not answer within the deadline")
        time.sleep(0.5)


def upload_all(stack: Stack, docs: list[tuple[Path, str]], department: str) -> dict[str, str]:
    """Upload ``docs`` into ``department`` (admin key); returns document id → filename."""
    out = {}
    with stack.client() as api:
        for path, strategy in docs:
            def post(path: Path = path, strategy: str = strategy) -> httpx.Response:
                with path.open("rb") as f:
                    return api.post("/api/v1/ingest", params={"strategy": strategy, "department": department},
                                    files={"file": (path.name, f)})
            r = call(post)
            assert r.status_code == 202, r.text
            out[r.json()["document_id"]] = path.name
    return out


def listed(api: httpx.Client, department: str) -> dict[str, dict[str, Any]]:
    """The department's document records by id (retried through a gateway restart)."""
    r = call(lambda: api.get("/api/v1/documents", params={"department": department}))
    return {d["document_id"]: d for d in r.json()["documents"] if d["department"] == department}


def wait_all_terminal(api: httpx.Client, department: str, ids: list[str], timeout_s: float) -> dict[str, dict]:
    """Records of ``ids`` once every one is ``indexed`` or ``failed``, or at ``timeout_s`` (the
    non-terminal ones then included as they are)."""
    deadline = time.monotonic() + timeout_s
    while True:
        docs = listed(api, department)
        if all(docs.get(i, {}).get("status") in ("indexed", "failed") for i in ids) or time.monotonic() > deadline:
            return {i: docs.get(i, {"status": "missing", "stage": None, "chunk_count": 0}) for i in ids}
        time.sleep(0.5)


def reference_run(stack: Stack, docs: list[tuple[Path, str]], timeout_s: float = 900) -> Reference:
    """Ingest ``docs`` without a fault; chunk counts by filename and the seconds it took."""
    department = f"chaos-ref-{uuid.uuid4().hex[:6]}"
    t0 = time.monotonic()
    ids = upload_all(stack, docs, department)
    with stack.client() as api:
        records = wait_all_terminal(api, department, list(ids), timeout_s)
        seconds = time.monotonic() - t0
        bad = {ids[i]: r["status"] for i, r in records.items() if r["status"] != "indexed"}
        assert not bad, f"the reference run did not index everything: {bad}"
        purge(api, department, list(ids))
    return Reference({ids[i]: int(r["chunk_count"]) for i, r in records.items()}, seconds)


def offset_of(stack: Stack) -> int:
    """The port offset of ``stack``."""
    return int(stack.env.get("PORT_OFFSET", OFFSET))


def retries_total(stack: Stack) -> float:
    """``legco_handler_retries_total`` summed over the workers' /metrics (unreachable: 0)."""
    total = 0.0
    for port in METRICS_PORTS:
        try:
            text = httpx.get(f"http://127.0.0.1:{port + offset_of(stack)}/metrics", timeout=10).text
        except httpx.HTTPError:
            continue
        total += sum(float(m.group(1)) for m in re.finditer(
            r"^legco_handler_retries_total\{[^}]*\} ([0-9.e+]+)$", text, re.M))
    return total


def inject(stack: Stack, api: httpx.Client, fault: Fault, department: str, ids: list[str], ref: Reference,
           rng: random.Random) -> tuple[float, float]:
    """Wait for the fault's moment, inject it; returns (monotonic time of the injection, of
    the fault's end)."""
    stage = STAGE_OF.get(fault.program) if fault.kind == "kill" else None
    if stage is not None:  # a worker: once one of the run's documents is in its stage
        deadline = time.monotonic() + max(300.0, 3 * ref.seconds)
        while time.monotonic() < deadline:
            stages = [d.get("stage") for d in listed(api, department).values()]
            if stage in stages or all(ORDER.get(str(s), 0) > ORDER[stage] for s in stages):
                break  # in the stage now, or every document past it (then the kill is late)
            time.sleep(0.1)
        time.sleep(rng.uniform(0.0, 1.5))
    else:
        time.sleep(rng.uniform(0.1, 0.6) * ref.seconds)
    at = time.monotonic()
    if fault.kind == "kill":
        stack.ctl("ctl", "signal", "KILL", fault.program)
        time.sleep(1.0)
        stack.ctl("ctl", "start", fault.program)  # a no-op once supervisord restarted it
        return at, time.monotonic()
    stack.ctl("ctl", "stop", fault.program)
    time.sleep(fault.down_s)
    stack.ctl("ctl", "start", fault.program)
    return at, time.monotonic()


def keyword_gap(stack: Stack, vectors: VectorStore, settle_s: float = 60.0) -> int:
    """|chunks in the query service's keyword index - chunks in Chroma|, once they agree or
    after ``settle_s`` (events still in flight)."""
    port = 8104 + offset_of(stack)
    deadline = time.monotonic() + settle_s
    gap = -1
    while time.monotonic() < deadline:
        try:
            kw = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).json()["keyword_index"]
            if kw["ready"]:
                vectors.refresh()
                gap = abs(int(kw["chunks"]) - vectors.collection.count())
                if gap == 0:
                    return 0
        except (httpx.HTTPError, KeyError, ValueError):
            pass
        time.sleep(1.0)
    return gap if gap >= 0 else 1


def run_fault(stack: Stack, docs: list[tuple[Path, str]], fault: Fault, ref: Reference,
              rng: random.Random | None = None) -> FaultRun:
    """One run of ``fault`` over ``docs`` (see the module docstring); its documents are deleted
    afterwards."""
    rng = rng or random.Random()
    vectors = VectorStore(stack.settings())
    department = f"chaos-{uuid.uuid4().hex[:8]}"
    retries_before = retries_total(stack)
    t0 = time.monotonic()
    ids = upload_all(stack, docs, department)
    with stack.client() as api:
        at, end = inject(stack, api, fault, department, list(ids), ref, rng)
        records = wait_all_terminal(api, department, list(ids), timeout_s=max(600.0, 6 * ref.seconds))
        finished = time.monotonic()
        run = FaultRun(fault, injected_after_s=at - t0, recovery_s=None)
        for doc_id, rec in records.items():
            name = ids[doc_id]
            if rec["status"] not in ("indexed", "failed"):
                run.stuck.append(name)
                continue
            stored = sorted(int(m["chunk_index"]) for m in vectors.get_document_chunks(doc_id)["metadatas"])
            if rec["status"] != "indexed":
                run.lost.append(name)
                run.failed_searchable += bool(stored)
                continue
            if stored != list(range(ref.chunks[name])) or int(rec["chunk_count"]) != ref.chunks[name]:
                (run.duplicated if len(stored) > ref.chunks[name] else run.lost).append(name)
        if not run.stuck:
            run.recovery_s = max(0.0, finished - end)
        run.dead_letters = sum(1 for e in asyncio.run(read_all(stack.env["KAFKA_BOOTSTRAP"], topics.DEAD_LETTER))
                               if e.get("document_id") in ids)
        run.retries_used = retries_total(stack) - retries_before
        run.keyword_gap = keyword_gap(stack, vectors)
        purge(api, department, list(ids))
    return run


def purge(api: httpx.Client, department: str, ids: list[str]) -> None:
    """Delete the run's documents and wait until none is listed."""
    for doc_id in ids:
        call(lambda doc_id=doc_id: api.delete(f"/api/v1/documents/{doc_id}"))
    deadline = time.monotonic() + 120
    while listed(api, department):
        assert time.monotonic() < deadline, f"{department}'s documents not deleted within 120 s"
        time.sleep(1)


def table(runs: list[FaultRun]) -> str:
    """fault | runs | lost | duplicated | stuck | recovery seconds (median, max)."""
    rows = ["fault                   | runs | lost | duplicated | stuck | dead letters | recovery s (median / max)",
            "------------------------|------|------|------------|-------|--------------|--------------------------"]
    by: dict[str, list[FaultRun]] = {}
    for r in runs:
        by.setdefault(r.fault.label, []).append(r)
    for label, rs in by.items():
        rec = [r.recovery_s for r in rs if r.recovery_s is not None]
        rec_s = f"{statistics.median(rec):.1f} / {max(rec):.1f}" if rec else "-"
        rows.append(f"{label:<24}| {len(rs):>4} | {sum(len(r.lost) for r in rs):>4} | "
                    f"{sum(len(r.duplicated) for r in rs):>10} | {sum(len(r.stuck) for r in rs):>5} | "
                    f"{sum(r.dead_letters for r in rs):>12} | {rec_s}")
    return "\n".join(rows)

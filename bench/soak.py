"""A soak run: mixed load with faults for ``--minutes`` (30 by default), then what was lost.

Run from the repo root against a running stack (``make up``; the faults go through
``scripts/stack.sh ctl``, so point ``LEGCO_VAR``/``PORT_OFFSET`` at that stack when it is not
the default one):
    .cache/venv/bin/python bench/soak.py [--url URL] [--minutes 30] [--qps 5] [--fault-every 180]

* **Uploads** from 3 departments (``soak-a``, ``soak-b``, ``soak-c``, a member key each): each
  department uploads the next corpus paper (fixtures as PDF, DOCX and TXT, and the real PDFs)
  under a name of its own, at most one in flight: the next one ``--upload-every`` seconds after
  the last, and not before the last is ``indexed`` or ``failed`` (a steady state: an open loop
  would outrun the single embedder and measure a growing queue). Each department keeps its last
  ``--keep`` papers and deletes the older ones, so the index holds a steady amount of data and
  RSS growth means a leak, not more vectors (``--keep 0`` keeps everything).
* **Questions** at ``--qps`` per second (open loop: one is sent every 1/qps s whatever the
  previous ones are doing), each from one of the departments, round-robin over the fixture and
  real-corpus queries.
* **One random fault** every ``--fault-every`` seconds: kill -9 of a worker (parser, table
  stage, splitter, embedder, gateway, query) or a 5 s stop of Kafka, MinIO, Chroma or e5.

At the end it waits for every upload to finish and prints: documents lost (not ``indexed``),
duplicated (a chunk index stored twice), stuck (not terminal after ``--settle`` s) and deleted
papers that left vectors behind; query p50/p95 and errors per 5-minute window; and every
service's RSS idle at the start, at the end of the warm-up (at least ``--warmup`` s, and until
every corpus paper has been ingested once, so every paper's peak is in the baseline) and at the
end, ``--minutes`` later. The growth is measured from the warm-up (caches fill under the first
load; what grows after it is what would leak). Every service's RSS is also printed at the end of
each 5-minute window (a leak grows window after window).
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from itertools import cycle
from pathlib import Path

from _common import CORPUS, ROOT, fixture_queries, load_note, percentile, table

import httpx

from cli import api
from shared.settings import ClientSettings, Settings
from shared.vectorstore import VectorStore

DEPARTMENTS = ("soak-a", "soak-b", "soak-c")
WORKERS = ("parser", "tables:tables-0", "splitter", "embedder", "gateway", "query")
DEPENDENCIES = ("kafka", "minio", "chroma", "e5")
WINDOW_S = 300.0


@dataclass
class Soak:
    """What the run saw."""

    uploads: dict[str, tuple[str, str]] = field(default_factory=dict)   # document id → (department, file)
    deleted: set[str] = field(default_factory=set)  # document ids deleted by the rolling window
    upload_errors: Counter[str] = field(default_factory=Counter)
    queries: list[tuple[float, float | None, str]] = field(default_factory=list)  # (t, ms or None, code)
    faults: list[tuple[float, str]] = field(default_factory=list)
    rss: list[dict[str, float]] = field(default_factory=list)  # every program's RSS (MiB) at each window's end


def ctl(*args: str) -> str:
    """``scripts/stack.sh ctl ARGS`` (supervisorctl of the stack named by LEGCO_VAR/PORT_OFFSET)."""
    return subprocess.run([str(ROOT / "scripts" / "stack.sh"), "ctl", *args], capture_output=True, text=True,
                          env=os.environ.copy()).stdout


def rss_by_program() -> dict[str, float]:
    """RSS in MiB of every running supervisord program (from ``supervisorctl status`` pids)."""
    out: dict[str, float] = {}
    for line in ctl("status").splitlines():
        m = re.match(r"^(\S+)\s+RUNNING\s+pid (\d+)", line)
        if not m:
            continue
        try:
            status = Path(f"/proc/{m.group(2)}/status").read_text()
        except OSError:
            continue
        kb = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
        if kb:
            out[m.group(1).split(":")[-1]] = int(kb.group(1)) / 1024
    return out


def papers() -> list[tuple[Path, str]]:
    """The corpus papers a department uploads in turn: (path, strategy). The scanned paper is
    left out: without a vision LLM it fails by design (no text layer), which is not a loss."""
    fx = CORPUS / "fixtures"
    out = [(p, "question" if p.suffix in (".docx", ".txt") else "token")
           for p in sorted(fx.glob("*.pdf")) + sorted(fx.glob("*.docx")) + sorted(fx.glob("*.txt"))]
    return out + [(p, "token") for p in sorted((CORPUS / "real").glob("*.pdf")) if "scanned" not in p.name]


async def member_clients(admin: httpx.AsyncClient, url: str, timeout_s: float) -> dict[str, httpx.AsyncClient]:
    """A client with a new member key per department."""
    out = {}
    for dept in DEPARTMENTS:
        key = (await api.create_key(admin, dept, "member", "bench/soak.py"))["key"]
        out[dept] = httpx.AsyncClient(base_url=url, timeout=timeout_s, headers={"Authorization": f"Bearer {key}"})
    return out


async def wait_terminal(client: httpx.AsyncClient, doc_id: str, stop: asyncio.Event) -> None:
    """Until ``doc_id`` is ``indexed`` or ``failed``, or the run stops (polls every 3 s; a gateway
    down meanwhile is waited out)."""
    while not stop.is_set():
        with contextlib.suppress(api.ApiError, httpx.HTTPError):
            if (await api.get_document(client, doc_id))["status"] in ("indexed", "failed"):
                return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 3)


async def delete_with_retry(soak: Soak, client: httpx.AsyncClient, doc_id: str) -> None:
    """Delete ``doc_id`` (tried again while the gateway is down)."""
    for _ in range(30):
        try:
            await api.delete_document(client, doc_id)
            soak.deleted.add(doc_id)
            return
        except (api.ApiError, httpx.HTTPError) as e:
            soak.upload_errors[f"delete {type(e).__name__}"] += 1
            await asyncio.sleep(2)


async def uploader(soak: Soak, dept: str, client: httpx.AsyncClient, files: list[tuple[Path, str]], tmp: Path,
                   every_s: float, keep: int, first_pass: int, passed: asyncio.Event, stop: asyncio.Event) -> None:
    """Upload the next paper every ``every_s`` s (not before the last one is terminal) under a
    name of its own; a failed upload (the gateway being killed) is tried again. Papers beyond the
    last ``keep`` (``keep`` > 0) are deleted. ``passed`` is set once the first ``first_pass``
    papers are terminal."""
    kept: list[str] = []
    for n, (path, strategy) in enumerate(cycle(files), start=1):
        if stop.is_set():
            return
        started = time.monotonic()
        copy = tmp / f"{dept}_{n:03d}_{path.name}"
        shutil.copyfile(path, copy)
        doc_id = None
        for _ in range(30):
            try:
                doc = await api.upload(client, copy, strategy)
                doc_id = doc["document_id"]
                soak.uploads[doc_id] = (dept, copy.name)
                break
            except (api.ApiError, httpx.HTTPError) as e:
                soak.upload_errors[type(e).__name__] += 1
                await asyncio.sleep(2)
        if doc_id is not None:
            await wait_terminal(client, doc_id, stop)
            kept.append(doc_id)
        if n >= first_pass:
            passed.set()
        while keep > 0 and len(kept) > keep and not stop.is_set():
            await delete_with_retry(soak, client, kept.pop(0))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), max(0.0, every_s - (time.monotonic() - started)))


async def asker(soak: Soak, clients: dict[str, httpx.AsyncClient], qps: float, t0: float, stop: asyncio.Event) -> None:
    """One question every 1/qps s (open loop), departments in turn."""
    questions = cycle(fixture_queries())
    depts = cycle(DEPARTMENTS)
    pending: set[asyncio.Task[None]] = set()

    async def ask(client: httpx.AsyncClient, q: str) -> None:
        t = time.perf_counter()
        try:
            r = await client.post("/api/v1/query", json={"question": q, "top_k": 5})
            code = str(r.status_code)
        except httpx.HTTPError as e:
            code = type(e).__name__
        ms = (time.perf_counter() - t) * 1000 if code == "200" else None
        soak.queries.append((t - t0, ms, code))

    nxt = time.perf_counter()
    while not stop.is_set():
        task = asyncio.create_task(ask(clients[next(depts)], next(questions)))
        pending.add(task)
        task.add_done_callback(pending.discard)
        nxt += 1.0 / qps
        await asyncio.sleep(max(0.0, nxt - time.perf_counter()))
    await asyncio.gather(*pending, return_exceptions=True)


async def faulter(soak: Soak, every_s: float, t0: float, stop: asyncio.Event, rng: random.Random) -> None:
    """One random fault every ``every_s`` s."""
    while True:
        try:
            await asyncio.wait_for(stop.wait(), every_s)
            return
        except TimeoutError:
            pass
        if rng.random() < 0.6:
            program = rng.choice(WORKERS)
            await asyncio.to_thread(ctl, "signal", "KILL", program)
            await asyncio.sleep(1)
            await asyncio.to_thread(ctl, "start", program)
            soak.faults.append((time.perf_counter() - t0, f"kill -9 {program}"))
        else:
            program = rng.choice(DEPENDENCIES)
            await asyncio.to_thread(ctl, "stop", program)
            await asyncio.sleep(5)
            await asyncio.to_thread(ctl, "start", program)
            soak.faults.append((time.perf_counter() - t0, f"{program} down 5 s"))
        print(f"  {soak.faults[-1][0]:7.0f} s  {soak.faults[-1][1]}", flush=True)


async def rss_sampler(soak: Soak, stop: asyncio.Event) -> None:
    """Every program's RSS at the end of each window: a leak grows window after window, a cache
    or a large paper's high-water mark is a step."""
    while True:
        try:
            await asyncio.wait_for(stop.wait(), WINDOW_S)
            return
        except TimeoutError:
            soak.rss.append(await asyncio.to_thread(rss_by_program))


async def settle(admin: httpx.AsyncClient, ids: list[str], timeout_s: float) -> dict[str, dict]:
    """The records of ``ids`` once all are terminal, or at ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            docs = {d["document_id"]: d for d in (await api.list_documents(admin))["documents"]}
        except (api.ApiError, httpx.HTTPError):
            await asyncio.sleep(2)
            continue
        if all(docs.get(i, {}).get("status") in ("indexed", "failed") for i in ids) or time.monotonic() > deadline:
            return {i: docs.get(i, {"status": "missing", "chunk_count": 0}) for i in ids}
        await asyncio.sleep(5)


def left_behind(deleted: set[str], settings: Settings) -> list[str]:
    """Deleted documents that still have vectors in Chroma."""
    vectors = VectorStore(settings)
    return [d for d in sorted(deleted) if vectors.get_document_chunks(d)["metadatas"]]


def duplicated(records: dict[str, dict], settings: Settings) -> list[str]:
    """Documents with a chunk index stored more than once, or more chunks than their count."""
    vectors = VectorStore(settings)
    out = []
    for doc_id, rec in records.items():
        idx = [int(m["chunk_index"]) for m in vectors.get_document_chunks(doc_id)["metadatas"]]
        if len(idx) != len(set(idx)) or len(idx) > int(rec.get("chunk_count") or 0):
            out.append(doc_id)
    return out


def report(soak: Soak, records: dict[str, dict], dups: list[str], behind: list[str], rss0: dict[str, float],
           rssw: dict[str, float], rss1: dict[str, float], minutes: float, warmup_s: float) -> None:
    lost = [soak.uploads[i][1] for i, r in records.items() if r["status"] == "failed" or r["status"] == "missing"]
    stuck = [soak.uploads[i][1] for i, r in records.items() if r["status"] not in ("indexed", "failed", "missing")]
    print(f"\n{len(soak.uploads)} uploads, {len(soak.faults)} faults, {len(soak.queries)} questions "
          f"in {minutes:.0f} min; {load_note()}")
    print(f"lost (not indexed): {len(lost)} {lost[:5]}; duplicated: {len(dups)}; stuck: {len(stuck)} {stuck[:5]}; "
          f"upload retries: {dict(soak.upload_errors)}")
    print(f"deleted by the rolling window: {len(soak.deleted)}, with vectors left behind: {len(behind)} {behind[:5]}")
    for i, r in records.items():
        if r["status"] in ("failed", "missing"):
            print(f"  {soak.uploads[i][1]}: {r['status']}: {r.get('error')}")
    rows = []
    for w in range(int(minutes * 60 // WINDOW_S) + 1):
        inw = [q for q in soak.queries if w * WINDOW_S <= q[0] < (w + 1) * WINDOW_S]
        if not inw:
            continue
        ok = [q[1] for q in inw if q[1] is not None]
        codes = Counter(q[2] for q in inw if q[1] is None)
        faults = ", ".join(f for t, f in soak.faults if w * WINDOW_S <= t < (w + 1) * WINDOW_S)
        rows.append([f"{w * 5}-{w * 5 + 5} min", len(ok), dict(codes) or "-", percentile(ok, 50), percentile(ok, 95),
                     faults or "-"])
    print(table(["window", "ok", "errors", "p50 ms", "p95 ms", "faults"], rows))
    rows = [[p, rss0.get(p, float("nan")), rssw.get(p, float("nan")), rss1.get(p, float("nan")),
             (rss1[p] / rssw[p] - 1) * 100 if p in rssw and p in rss1 else float("nan")]
            for p in sorted(set(rss0) | set(rssw) | set(rss1))]
    print(table(["service", "RSS idle MiB", f"RSS at {warmup_s:.0f} s MiB", "RSS end MiB",
                 "growth % (end / warm)"], rows))
    if soak.rss:
        names = sorted(set().union(*soak.rss))
        print(table(["service"] + [f"RSS MiB at {(i + 1) * 5} min" for i in range(len(soak.rss))],
                    [[p] + [w.get(p, float("nan")) for w in soak.rss] for p in names]))
    print("(growth is measured from the end of the warm-up: a service's caches fill under its first load; "
          "a worker killed by a fault restarts smaller)")


async def run(a: argparse.Namespace) -> None:
    settings = ClientSettings()
    url = api.resolve_url(a.url, settings)
    off = int(os.environ.get("PORT_OFFSET", "0"))
    store_settings = Settings(chroma_host="127.0.0.1", chroma_port=8000 + off)
    soak = Soak()
    rng = random.Random(a.seed)
    async with api.make_client(url, settings) as admin:
        clients = await member_clients(admin, url, settings.request_timeout_s)
        rss0 = rss_by_program()
        stop = asyncio.Event()
        t0 = time.perf_counter()
        files = papers()
        with tempfile.TemporaryDirectory(prefix="legco-soak-") as tmp:
            passed = {d: asyncio.Event() for d in DEPARTMENTS}
            shares = {d: files[i::len(DEPARTMENTS)] for i, d in enumerate(DEPARTMENTS)}
            tasks = [asyncio.create_task(uploader(soak, d, clients[d], shares[d] + files, Path(tmp), a.upload_every,
                                                  a.keep, len(shares[d]), passed[d], stop))
                     for d in DEPARTMENTS]
            tasks.append(asyncio.create_task(asker(soak, clients, a.qps, t0, stop)))
            tasks.append(asyncio.create_task(faulter(soak, a.fault_every, t0, stop, rng)))
            tasks.append(asyncio.create_task(rss_sampler(soak, stop)))
            await asyncio.sleep(a.warmup)
            await asyncio.gather(*(e.wait() for e in passed.values()))
            warmup_s = time.perf_counter() - t0
            rssw = rss_by_program()
            print(f"warm-up done at {warmup_s:.0f} s (every paper ingested once); measuring {a.minutes:.0f} min",
                  flush=True)
            await asyncio.sleep(a.minutes * 60)
            stop.set()
            await asyncio.gather(*tasks)
            records = await settle(admin, [i for i in soak.uploads if i not in soak.deleted], a.settle)
        rss1 = rss_by_program()
        for c in clients.values():
            await c.aclose()
    behind = await asyncio.to_thread(left_behind, soak.deleted, store_settings)
    report(soak, records, await asyncio.to_thread(duplicated, records, store_settings), behind, rss0, rssw, rss1,
           a.minutes + warmup_s / 60, warmup_s)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None, help="gateway URL (default $LEGCO_URL or http://localhost:8080)")
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--qps", type=float, default=5.0, help="questions per second (default 5)")
    ap.add_argument("--fault-every", type=float, default=180.0, help="seconds between faults (default 180)")
    ap.add_argument("--upload-every", type=float, default=60.0, help="seconds between a department's uploads")
    ap.add_argument("--keep", type=int, default=5,
                    help="papers each department keeps; older ones are deleted (default 5; 0 keeps all)")
    ap.add_argument("--settle", type=float, default=1800.0, help="seconds to wait for the last uploads")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--warmup", type=float, default=300.0,
                    help="seconds of load before the RSS baseline is taken, at least, and until every corpus "
                         "paper has been ingested once (default 300)")
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()

"""Fair share between departments: one department's bulk upload must not hold up another's paper.

Against a running stack (``make up``):

1. idle: department B uploads one 10-page paper alone; its upload-to-indexed time is ``T_idle``;
2. burst: department A uploads ``--files`` papers at once (the real and fixture corpus, repeated
   under new names), and one second later B uploads the same 10-page paper; its upload-to-indexed
   time is ``T_burst``.

Prints both with B's stage timelines and the ratio ``T_burst / T_idle`` (target ≤ 3); then
deletes A's papers (each stage drops a deleted document's work within seconds), waits for the
stack to be quiet (no document in flight, the ingest e5 idle for 15 s) and repeats (``--runs``,
default 3): the figure is the median ratio, each ratio against the idle time measured just
before it. The 10-page paper is pages 1-10 of ``real/hk_legco_sub_710-02_tables_zh.pdf``, written to a temporary
file. With API keys (the gateway answers 401 without one) it creates, per run, a member key for
each of departments ``bench-a-<run>``, ``bench-b-<run>`` and ``bench-idle-<run>`` (the idle
measurement's) with the admin key (``LEGCO_API_KEY`` or
``var/admin.key``); without keys both uploads land in one department, which measures the
first-in, first-out order that fair sharing replaces. Everything the bench uploaded is deleted at
the end.

Usage: ``python bench/fairness.py [--url URL] [--files 40] [--runs 3] [--wait-burst] [--strategy token]``
"""
from __future__ import annotations

import argparse
import asyncio
import io
import os
import shutil
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from _common import CORPUS, ROOT  # noqa: F401  (puts the repo on sys.path)

import httpx
import pypdf

from cli import api
from shared.settings import ClientSettings

PAPER_SOURCE = CORPUS / "real" / "hk_legco_sub_710-02_tables_zh.pdf"
TERMINAL = {"indexed", "failed"}


def ten_page_paper(out: Path) -> Path:
    """Pages 1-10 of ``PAPER_SOURCE`` as one PDF at ``out``."""
    reader = pypdf.PdfReader(PAPER_SOURCE)
    writer = pypdf.PdfWriter()
    for page in reader.pages[:10]:
        writer.add_page(page)
    buf = io.BytesIO()
    writer.write(buf)
    out.write_bytes(buf.getvalue())
    return out


def burst_files(n: int, tmp: Path) -> list[Path]:
    """``n`` corpus papers (PDF, DOCX, TXT of real/ and fixtures/), repeated under new names."""
    base = sorted(p for d in ("real", "fixtures") for p in (CORPUS / d).iterdir()
                  if p.suffix.lower() in (".pdf", ".docx", ".txt"))
    out = []
    for i in range(n):
        src = base[i % len(base)]
        dst = tmp / f"bulk{i:03d}_{src.name}"
        shutil.copyfile(src, dst)
        out.append(dst)
    return out


async def headers_for(client: httpx.AsyncClient, department: str) -> dict[str, str]:
    """Authorization for a member key of ``department`` (created with the admin key), or no
    header when the gateway needs none."""
    probe = await client.get("/api/v1/documents")
    if probe.status_code != 401:
        return {}
    admin = getattr(ClientSettings(), "api_key_or_file", lambda: None)()
    if not admin:
        raise SystemExit("the gateway needs a key: set LEGCO_API_KEY or run from the repo (var/admin.key)")
    resp = await client.post("/api/v1/keys", json={"department": department, "role": "member",
                                                   "label": "bench/fairness.py"},
                             headers={"Authorization": f"Bearer {admin}"})
    resp.raise_for_status()
    return {"Authorization": f"Bearer {resp.json()['key']}"}


async def upload(client: httpx.AsyncClient, path: Path, strategy: str, headers: dict[str, str]) -> str:
    data = await asyncio.to_thread(path.read_bytes)
    resp = await client.post("/api/v1/ingest", params={"strategy": strategy}, headers=headers,
                             files={"file": (path.name, data, "application/octet-stream")})
    resp.raise_for_status()
    return str(resp.json()["document_id"])


async def wait_terminal(client: httpx.AsyncClient, doc_id: str, headers: dict[str, str],
                        timeout_s: float = 3600, trace: list[tuple[float, str]] | None = None) -> tuple[str, float]:
    """(final status, seconds waited) of one document, polled every 0.25 s. A dropped
    connection (a keep-alive closed by the server as it is reused) is polled again. ``trace``
    collects (seconds since the start, stage) each time the document's stage changes."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout_s:
        try:
            rec = (await client.get(f"/api/v1/documents/{doc_id}", headers=headers)).json()
        except httpx.TransportError:
            rec = {}
        if trace is not None and rec.get("stage") and (not trace or trace[-1][1] != rec["stage"]):
            trace.append((time.perf_counter() - t0, str(rec["stage"])))
        if rec.get("status") in TERMINAL:
            return str(rec["status"]), time.perf_counter() - t0
        await asyncio.sleep(0.25)
    return "timeout", time.perf_counter() - t0


async def e5_computed(e5_url: str) -> float | None:
    """The ingest e5 server's count of computed requests (``/health``), or None if unreachable."""
    try:
        async with httpx.AsyncClient(timeout=10) as c:
            return float((await c.get(f"{e5_url}/health")).json()["requests"]["computed"])
    except (httpx.HTTPError, KeyError, ValueError):
        return None


async def quiet(client: httpx.AsyncClient, headers: list[dict[str, str]], e5_url: str,
                timeout_s: float = 600) -> float:
    """Wait until none of the departments of ``headers`` has a document in flight (after the
    deletes: each stage drops a deleted document's work within seconds) and the ingest e5 has
    computed nothing for 15 s (so the next idle measurement is idle); returns the seconds waited."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout_s:
        busy = 0
        for h in headers:
            try:
                docs = (await client.get("/api/v1/documents", headers=h)).json()["documents"]
            except (httpx.TransportError, KeyError):
                docs = [{"status": "processing"}]
            busy += sum(d["status"] not in TERMINAL for d in docs)
        if not busy:
            break
        await asyncio.sleep(1.0)
    last = await e5_computed(e5_url)
    while time.perf_counter() - t0 < timeout_s:
        await asyncio.sleep(15.0)
        now = await e5_computed(e5_url)
        if now == last:
            break
        last = now
    return time.perf_counter() - t0


def timeline(trace: list[tuple[float, str]]) -> str:
    return ", ".join(f"{stage} at {t:.1f} s" for t, stage in trace)


async def one_run(client: httpx.AsyncClient, args: argparse.Namespace, tmp: Path, n: int,
                  created: list[tuple[str, dict[str, str]]]) -> float:
    """One idle measurement of the paper, then A's burst with B's paper one second into it;
    returns the ratio. Each run has departments of its own: the embedder serves first the
    department served the fewest tokens lately, so a B that had just been served the idle run
    would wait for A to catch up with it, which is not the case measured (a department's paper
    during another's burst). With ``--wait-burst`` the run waits for A's burst to end (A's total
    time), otherwise it deletes A's papers at once (the next run starts from a quiet stack)."""
    run = uuid.uuid4().hex[:6]
    ha = await headers_for(client, f"bench-a-{run}")
    hb = await headers_for(client, f"bench-b-{run}")
    hi = await headers_for(client, f"bench-idle-{run}")
    paper = ten_page_paper(tmp / f"B_10pages_{run}.pdf")
    idle_trace: list[tuple[float, str]] = []
    t0 = time.perf_counter()
    idle_id = await upload(client, paper, args.strategy, hi)
    created.append((idle_id, hi))
    idle_status, _ = await wait_terminal(client, idle_id, hi, trace=idle_trace)
    t_idle = time.perf_counter() - t0
    files = burst_files(args.files, tmp)
    t_burst0 = time.perf_counter()
    a_ids = await asyncio.gather(*(upload(client, f, args.strategy, ha) for f in files))
    created += [(i, ha) for i in a_ids]
    await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - t_burst0)))
    paper2 = tmp / f"B_10pages_{run}_burst.pdf"
    shutil.copyfile(paper, paper2)
    t1 = time.perf_counter()
    b_id = await upload(client, paper2, args.strategy, hb)
    created.append((b_id, hb))
    trace: list[tuple[float, str]] = []
    b_status, _ = await wait_terminal(client, b_id, hb, trace=trace)
    t_burst = time.perf_counter() - t1
    print(f"run {n}: B alone (idle stack):      {t_idle:7.1f} s ({idle_status}): {timeline(idle_trace)}")
    print(f"run {n}: B during A's burst of {len(files)}:  {t_burst:7.1f} s ({b_status}): {timeline(trace)}")
    print(f"run {n}: ratio burst / idle:        {t_burst / t_idle:7.2f}  (target <= 3)", flush=True)
    if args.wait_burst:
        finals = await asyncio.gather(*(wait_terminal(client, i, ha) for i in a_ids))
        print(f"run {n}: A's burst, all terminal:   {time.perf_counter() - t_burst0:7.1f} s "
              f"({sum(s == 'indexed' for s, _ in finals)} indexed, {sum(s == 'failed' for s, _ in finals)} failed)")
    for doc_id, h in created:
        await client.delete(f"/api/v1/documents/{doc_id}", headers=h)
    created.clear()
    waited = await quiet(client, [ha, hb, hi], args.e5_url)
    print(f"run {n}: A's papers deleted; stack quiet again after {waited:.1f} s", flush=True)
    return t_burst / t_idle


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None)
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--runs", type=int, default=3, help="idle + burst pairs; the median ratio is the figure")
    ap.add_argument("--wait-burst", action="store_true", help="time A's whole burst too (slow) before deleting it")
    ap.add_argument("--strategy", default="token", choices=("token", "question"))
    ap.add_argument("--e5-url", default=f"http://127.0.0.1:{8200 + int(os.environ.get('PORT_OFFSET', '0'))}",
                    help="the ingest e5 server, watched until idle between runs (default: PORT_OFFSET's)")
    args = ap.parse_args()
    url = api.resolve_url(args.url)
    tmp = Path(tempfile.mkdtemp(prefix="legco-fair-"))
    created: list[tuple[str, dict[str, str]]] = []
    async with httpx.AsyncClient(base_url=url, timeout=300) as client:
        try:
            ratios = [await one_run(client, args, tmp, n + 1, created) for n in range(args.runs)]
            print(f"ratios: {', '.join(f'{r:.2f}' for r in ratios)}; median {statistics.median(ratios):.2f} "
                  f"(target <= 3)")
            keys = (await client.get("/api/v1/documents")).status_code == 401
            print("departments: " + ("bench-a-* / bench-b-* / bench-idle-* (API keys)" if keys
                                     else "one (no keys: first-in, first-out)"))
        finally:
            for doc_id, h in created:
                await client.delete(f"/api/v1/documents/{doc_id}", headers=h)
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())

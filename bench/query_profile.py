"""Where the milliseconds of one question go: the query service and the gateway, each run in
this process under pyinstrument (async-aware, so time spent awaiting e5, Chroma or the query
service is counted where it was awaited), against a running stack.

Run from the repo root (stack up, documents indexed):
    .cache/venv/bin/python bench/query_profile.py [--offset N] [--var DIR] [--questions 60]
        [--part query|gateway|both] [--html DIR]

* ``query``: the query service's app (``services.query.main.create_app``, its own lifespan: the
  keyword index and language means loaded from the stack's Chroma, its own consumer group)
  answers ``--questions`` distinct questions one at a time, through its real route
  (``httpx.ASGITransport``), with ``Cache-Control: no-cache``. Worker threads
  (``asyncio.to_thread``: keyword search, Chroma calls) run inline here so the profiler sees them;
  the service runs them in threads, one question's steps one after another as here.
* ``gateway``: the gateway's app (``services.gateway.main.create_app``, its own instance) answers
  the same number of questions, forwarded to the stack's query service; what the gateway adds is
  everything but the forward.

Prints ms per question by part (innermost matching frame wins; see ``QUERY_PARTS`` and
``GATEWAY_PARTS``) and the load average. ``--html DIR`` also writes pyinstrument's HTML pages.
Uses the code of the checkout it is run from, so the same script profiles two builds.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from _common import ROOT, distinct_questions, load_note, table

import httpx
from pyinstrument import Profiler
from pyinstrument.frame import Frame

from shared.settings import read_credentials

Rule = tuple[str, str, str]  # (function name, file path fragment, part); "" matches any
QUERY_PARTS: list[Rule] = [
    ("embed", "question_vectors.py", "e5: question embedding"),
    ("embed_query", "embeddings.py", "e5: question embedding"),
    ("embed_queries", "embeddings.py", "e5: question embedding"),
    ("gather_candidates", "retrieve.py", "Chroma: candidates' metadata and vectors"),
    ("candidate_records", "retrieve.py", "Chroma: candidates' metadata and vectors"),
    ("query_vectors", "vectorstore.py", "Chroma: candidate searches"),
    ("query_many", "vectorstore.py", "Chroma: candidate searches"),
    ("fetch_texts", "retrieve.py", "Chroma: texts of the best candidates"),
    ("search", "keyword_index.py", "keyword search (BM25, CC-CEDICT terms)"),
    ("translate_question", "query_translation.py", "CC-CEDICT question translation"),
    ("matches", "gazetteer.py", "entity match"),
    ("score_candidates", "scoring.py", "scoring and language-bias removal"),
    ("language_neutral", "langbias.py", "scoring and language-bias removal"),
    ("debias", "langbias.py", "scoring and language-bias removal"),
    ("finish", "retrieve.py", "sources: matched terms, snippets"),
    ("collapse", "renditions.py", "renditions"),
    ("chunk_search_form", "retrieve.py", "sources: matched terms, snippets"),
    ("unknown_share", "keyword_index.py", "coverage: the question's terms"),
    ("query_terms", "keyword_index.py", "coverage: the question's terms"),
    ("compose_answer", "answer.py", "answer: coverage, direct answer"),
    ("model_dump_json", "", "JSON"),
    ("serialize_response", "", "JSON"),
    ("jsonable_encoder", "", "JSON"),
    ("render", "responses.py", "JSON"),
    ("get", "answer_cache.py", "answer cache"),
    ("put", "answer_cache.py", "answer cache"),
]
TOP_ONLY: list[Rule] = [  # counted on their own only outside the parts above
    ("normalize_for_search", "textnorm.py", "normalisation, language detection"),
    ("detect_language", "lang.py", "normalisation, language detection"),
    ("query_search_form", "keyword_tokens.py", "normalisation, language detection"),
]
GATEWAY_PARTS: list[Rule] = [
    ("forward", "routes/query.py", "query service (forwarded)"),
    ("sync", "changelog.py", "registry sync (Kafka end offsets)"),
    ("verify", "keys.py", "API key check"),
    ("record", "audit.py", "audit"),
    ("model_dump_json", "", "JSON"),
    ("model_dump", "", "JSON"),
    ("serialize_response", "", "JSON"),
    ("jsonable_encoder", "", "JSON"),
    ("render", "responses.py", "JSON"),
    ("json", "httpx", "JSON"),
]
OTHER = "HTTP, routing, validation, other"


def part_of(frame: Frame, rules: list[Rule]) -> str | None:
    for fn, path, part in rules:
        if (not fn or frame.function == fn) and path in (frame.file_path or ""):
            return part
    return None


def attribute(root: Frame, rules: list[Rule], top_only: list[Rule]) -> dict[str, float]:
    """Seconds per part: each frame's own time goes to the innermost matching part above it."""
    out: dict[str, float] = defaultdict(float)

    def walk(frame: Frame, part: str | None) -> None:
        here = part_of(frame, rules) or (part_of(frame, top_only) if part is None else None) or part
        out[here or OTHER] += frame.total_self_time  # its own, [self] and [await] time
        for child in frame.children:
            if not child.is_synthetic:
                walk(child, here)

    walk(root, None)
    return dict(out)


def report(title: str, seconds: dict[str, float], n: int, wall_ms: float) -> None:
    total = sum(seconds.values())
    rows = [[part, s * 1000 / n, 100 * s / total if total else 0.0]
            for part, s in sorted(seconds.items(), key=lambda kv: -kv[1])]
    print(f"\n{title}: {n} questions, {wall_ms:.1f} ms per question (wall, profiled)")
    print(table(["part", "ms per question", "%"], rows))


def inline_threads() -> None:
    """``asyncio.to_thread`` runs the function in this thread, so the profiler sees it."""
    async def inline(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)
    asyncio.to_thread = inline  # type: ignore[assignment]


def write_pages(profiler: Profiler, out: Path, name: str) -> None:
    """pyinstrument's HTML page and text tree of one profile into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.html").write_text(profiler.output_html(), encoding="utf-8")
    (out / f"{name}.txt").write_text(profiler.output_text(unicode=True, show_all=False), encoding="utf-8")


SCOPE: dict[str, Any] = {}
"""Extra body of the query part's requests: ``{"departments": [...]}`` with ``--departments``
(a member's scope, as the gateway would send it); empty: every department."""


async def profiled(app: Any, client: httpx.AsyncClient, questions: list[str], warm: list[str],
                   ready: Callable[[], Awaitable[bool]], html: Path | None, name: str) -> tuple[Frame, float]:
    """Run ``app``'s lifespan, wait for ``ready``, warm up, then profile one question at a time."""
    async with app.router.lifespan_context(app):
        deadline = time.monotonic() + 300
        while not await ready():
            if time.monotonic() > deadline:
                raise SystemExit(f"{name}: not ready after 300 s")
            await asyncio.sleep(0.5)
        for q in warm:
            (await client.post("/api/v1/query", json={"question": q, "top_k": 5, **SCOPE},
                               headers={"Cache-Control": "no-cache"})).raise_for_status()
        profiler = Profiler(interval=0.0002, async_mode="enabled")
        t0 = time.perf_counter()
        profiler.start()
        for q in questions:
            r = await client.post("/api/v1/query", json={"question": q, "top_k": 5, **SCOPE},
                                  headers={"Cache-Control": "no-cache"})
            r.raise_for_status()
        session = profiler.stop()
        wall_ms = (time.perf_counter() - t0) * 1000 / len(questions)
    if html is not None:
        write_pages(profiler, html, name)
    root = session.root_frame()
    assert root is not None
    return root, wall_ms


async def profile_query(questions: list[str], warm: list[str], html: Path | None) -> None:
    from services.query.main import create_app

    app = create_app()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://query",
                                 timeout=120) as client:
        async def ready() -> bool:
            return bool((await client.get("/healthz")).json()["keyword_index"]["ready"])
        root, wall = await profiled(app, client, questions, warm, ready, html, "query")
    report("query service (in process)", attribute(root, QUERY_PARTS, TOP_ONLY), len(questions), wall)


async def profile_gateway(questions: list[str], warm: list[str], html: Path | None, key: str) -> None:
    from services.gateway.main import create_app

    app = create_app()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost",
                                 headers={"Authorization": f"Bearer {key}"}, timeout=120) as client:
        async def ready() -> bool:
            return (await client.get("/healthz")).status_code == 200
        root, wall = await profiled(app, client, questions, warm, ready, html, "gateway")
    seconds = attribute(root, GATEWAY_PARTS, [])
    report("gateway (in process; the query service is the stack's)", seconds, len(questions), wall)
    own = sum(s for p, s in seconds.items() if p != "query service (forwarded)")
    print(f"the gateway's own part: {own * 1000 / len(questions):.1f} ms per question")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--offset", type=int, default=int(os.environ.get("PORT_OFFSET", "0")))
    ap.add_argument("--var", type=Path, default=Path(os.environ.get("LEGCO_VAR", ROOT / "var")))
    ap.add_argument("--questions", type=int, default=60)
    ap.add_argument("--part", choices=("query", "gateway", "both"), default="both")
    ap.add_argument("--html", type=Path, default=None)
    ap.add_argument("--departments", default=None,
                    help="query part: ask in this scope (comma-separated departments), as a member's key would")
    a = ap.parse_args()
    if a.departments:
        SCOPE["departments"] = a.departments.split(",")
    off = a.offset
    os.environ.update({
        **read_credentials(a.var / "minio.credentials"),
        "KAFKA_BOOTSTRAP": f"127.0.0.1:{9092 + off}", "MINIO_ENDPOINT": f"127.0.0.1:{9000 + off}",
        "CHROMA_HOST": "127.0.0.1", "CHROMA_PORT": str(8000 + off),
        "EMBEDDINGS_BASE_URL": f"http://127.0.0.1:{8200 + off}/v1",
        "QUERY_EMBEDDINGS_BASE_URL": f"http://127.0.0.1:{8201 + off}/v1",
        "QUERY_SERVICE_URL": f"http://127.0.0.1:{8104 + off}",
        "QUERY_INSTANCE": f"profile-{uuid.uuid4().hex[:8]}", "GATEWAY_INSTANCE": f"profile-{uuid.uuid4().hex[:8]}",
        "GATEWAY_PORT": str(8099 + off), "LOG_LEVEL": "WARNING"})
    inline_threads()
    questions = distinct_questions()
    # questions of their own: bench/query.py's first ones are not used, so neither cache is warm
    warm, profiled_qs = questions[-20:-12], questions[-12 - a.questions:-12]
    print(f"{load_note()}")
    if a.part in ("query", "both"):
        asyncio.run(profile_query(profiled_qs, warm, a.html))
    if a.part in ("gateway", "both"):
        key = (a.var / "admin.key").read_text(encoding="utf-8").strip()
        asyncio.run(profile_gateway(profiled_qs, warm, a.html, key))


if __name__ == "__main__":
    main()

"""Fitting the retrieval weights on the unseen set's calibration half, and reporting both halves.

Runs every query of ``bench/unseen/papers`` (labelled ``calibration``/``test``), the fixture truth
queries (``../shared/corpus/fixtures``) and the real corpus queries in-process with the query
service's own code (``retrieve.rank_candidates`` → ``score_candidates`` → ``collapse``) against a
running stack's Chroma and embedder, within one department (``--department``: its chunks only
build the keyword index, the gazetteer and the language means, as ``bench/abstention.py`` does).
Each question's candidates are gathered once; every combination of the grid
(``--entity-weights``, ``--miss-weights``, ``--min-named``, ``--qa-priors``,
``--translation-weights``, ``--cross-language-bonuses``) then re-scores them exactly as ``retrieve`` would. With
``--gather-translated`` English questions are gathered with dense query translation (its
embedding and its candidates, ``query_translation``), so translation weights above 0 can be tried;
the report gives ``rank_candidates``' median time per query. The fit set is the unseen calibration half plus the corpus
calibration queries of ``bench/calibration`` (Q&A queries and passage queries, so the weights do
not favour Q&A pairs at the expense of passages); the combination with the best R@3 + R@1 on
it (then the smallest weights) wins. The unseen test half, the fixture truth queries and the
real corpus queries are only reported.

Upload the papers into that department first (``legco eval bench/unseen/papers --distractors
../shared/corpus/fixtures --distractors ../shared/corpus/real`` with its key). Run from the repo
root, with the stack's ``CHROMA_PORT`` / ``EMBEDDINGS_BASE_URL`` in the environment:

    .cache/venv/bin/python bench/retrieval_fit.py --department abstain [--entity-weights 0,0.1,0.2]
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import pickle
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from _common import CORPUS, ROOT, floats, load_note, table

import numpy as np
from abstention import load_scoped

from cli.eval_corpus import load_queries
from cli.eval_metrics import hit_rank
from services.query.gazetteer import Gazetteer
from services.query.retrieve import Stage, fetch_texts, finish, rank_candidates, top_ranked
from services.query.scoring import ScoringParams
from shared.embeddings import EmbeddingClient
from shared.settings import get_settings
from shared.vectorstore import VectorStore

UNSEEN = ROOT / "bench" / "unseen" / "papers"
CALIBRATION = ROOT / "bench" / "calibration"
RETRIES = 5


class CachedEmbedder:
    """``EmbeddingClient.embed_query`` answered from earlier runs when it can (query text →
    vector; a re-run of the fit embeds only new queries)."""

    def __init__(self, client: EmbeddingClient, known: dict[str, list[float]]) -> None:
        self.client, self.known = client, known

    async def embed_query(self, text: str) -> list[float]:
        """The query vector of ``text`` (search form), cached."""
        if text not in self.known:
            self.known[text] = list(await self.client.embed_query(text))
        return self.known[text]

    async def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """The query vectors of ``texts`` as float32 rows ``(len(texts), d)``, in order, the
        uncached ones in one request (what the query service's ``QuestionVectors`` calls)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self.known]
        if todo:
            for t, v in zip(todo, await self.client.embed_queries(todo), strict=True):
                self.known[t] = [float(x) for x in v]
        return np.asarray([self.known[t] for t in texts], dtype=np.float32)


@dataclass
class Case:
    """One query: its groups (``split:``, ``direction:``, ``style:``, ``set:``), the expected
    document ids and Q&A id (``None``: any chunk of them, a passage query), its gathered
    candidates and their stored texts, and the time ``rank_candidates`` took (ms; the query
    vectors of earlier runs come from the cache, so this is the added work, not the embedding)."""

    query: str
    groups: list[str]
    docs: set[str]
    qa_id: str | None
    stage: Stage
    texts: dict[str, str]
    ms: float = 0.0


def query_sets() -> list[tuple[str, str, str | None, str | None, str | None, list[str], str | None]]:
    """Every query: (set name, query, expected Q&A id or ``None``, query language, paper
    language, files, ``split`` label + direction/style groups joined by spaces)."""
    out: list[tuple[str, str, str | None, str | None, str | None, list[str], str | None]] = []
    sets = [("unseen", UNSEEN), ("corpus-calibration", CALIBRATION), ("fixtures", CORPUS / "fixtures"),
            ("real", CORPUS / "real")]
    for name, folder in sets:
        for q in load_queries([folder]):
            groups = [f"direction:{q.lang}->{q.doc_lang}"]
            groups += [f"split:{q.split}"] if q.split else []
            groups += [f"style:{q.style}"] if q.style else []
            groups += [f"file:{q.source.split('_')[0]}"] if name == "fixtures" else []
            if q.split:
                groups += [f"{q.split}:direction:{q.lang}->{q.doc_lang}", f"{q.split}:style:{q.style}"]
            out.append((name, q.query, q.expected_qa_id, q.lang, q.doc_lang, q.files, " ".join(groups)))
    for p in json.loads((CALIBRATION / "passages.answerable.json").read_text(encoding="utf-8"))["queries"]:
        out.append(("corpus-calibration", p["query"], None, p.get("lang"), None, [p["file"]], "passage"))
    return out


async def gather(department: str, wide: ScoringParams, known: dict[str, list[float]]) -> tuple[list[Case], Gazetteer]:
    """Every query's candidates within ``department`` (with the texts of all of them: every
    grid point ranks the same candidates); ``known``: query vectors of earlier runs."""
    s = get_settings()
    vectors, embedder = VectorStore(s), CachedEmbedder(EmbeddingClient(s), known)
    scope = [department]
    means, keywords = load_scoped(vectors, scope)
    by_file: dict[str, set[str]] = defaultdict(set)
    for m in keywords.snapshot.metas:
        by_file[str(m.get("filename", ""))].add(str(m.get("document_id", "")))
    out: list[Case] = []
    todo = query_sets()
    for n, (name, query, qa_id, _, _, files, labels) in enumerate(todo, start=1):
        if n % 50 == 0:
            print(f"  gathered {n}/{len(todo)}", flush=True)
        groups = [f"set:{name}", *(labels or "").split()]
        for attempt in range(RETRIES):  # the bench stack injects faults: retry transient errors
            try:
                started = time.perf_counter()
                stage = await rank_candidates(vectors, embedder, query, s.query_top_k, means=means,
                                              params=wide, candidates=s.query_candidates, keywords=keywords,
                                              keyword_candidates_n=s.query_keyword_candidates,
                                              departments=scope)
                ms = (time.perf_counter() - started) * 1000
                texts = await fetch_texts(vectors, stage.candidates)
                break
            except Exception:
                if attempt == RETRIES - 1:
                    raise
                await asyncio.sleep(3)
        docs = set().union(*(by_file.get(f, set()) for f in files))
        out.append(Case(query, groups, docs, qa_id, stage, texts, ms))
    return out, keywords.snapshot.gazetteer


def ranks(cases: list[Case], params: ScoringParams, k: int, duplicate_threshold: float) -> list[int | None]:
    """The rank of each case's expected pair under ``params`` (``None``: not in the top ``k``)."""
    out = []
    for c in cases:
        if not top_ranked(c.stage, params, k):
            out.append(None)
            continue
        hits = finish(c.stage, params, k, c.texts, duplicate_threshold)
        found = [h.source.model_dump() for h in hits]
        if c.qa_id is None:  # a passage: any chunk of the document (or a rendition of it)
            out.append(next((n for n, f in enumerate(found, start=1)
                             if ({f["document_id"]} | {r["document_id"] for r in f["also_in"]}) & c.docs), None))
        else:
            out.append(hit_rank(found, c.docs, c.qa_id))
    return out


def metrics(cases: list[Case], rk: list[int | None]) -> dict[str, tuple[int, float, float]]:
    """Group → (n, R@1, R@3)."""
    acc: dict[str, list[int | None]] = defaultdict(list)
    for c, r in zip(cases, rk, strict=True):
        for g in ["all", *c.groups]:
            acc[g].append(r)
    return {g: (len(v), sum(r == 1 for r in v) / len(v), sum(r is not None and r <= 3 for r in v) / len(v))
            for g, v in sorted(acc.items())}


def rematch(cases: list[Case], gazetteer: Gazetteer, min_named: float) -> None:
    """Redo every case's entity match with ``min_named`` (as ``rank_candidates`` does)."""
    for c in cases:
        docs = [str(x.meta.get("document_id", "")) for x in c.stage.candidates]
        c.stage.entities = gazetteer.matches(c.query, docs, min_named)
        for x in c.stage.candidates:
            e = c.stage.entities[str(x.meta.get("document_id", ""))]
            x.entity, x.entity_miss = e.share, e.named and e.share == 0


def main() -> None:
    """Gather once, fit on calibration, report both halves and the fixtures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--department", required=True, help="department holding the papers")
    ap.add_argument("--entity-weights", default="0,0.1,0.2,0.3,0.45")
    ap.add_argument("--miss-weights", default="0,-0.05,-0.1")
    ap.add_argument("--min-named", default="0.5,0.8,1.2")
    ap.add_argument("--qa-priors", default="0.04,0.1")
    ap.add_argument("--translation-weights", default="0",
                    help="dense query translation weights (gather with --gather-translated to try > 0)")
    ap.add_argument("--cross-language-bonuses", default=None,
                    help="scores added to a chunk in the other language (default: the setting only)")
    ap.add_argument("--gather-translated", action="store_true",
                    help="gather with dense query translation (its embedding and its candidates)")
    ap.add_argument("--cache", type=Path, default=None, help="pickle of the gathered candidates (reused if present)")
    ap.add_argument("--vectors", type=Path, default=None,
                    help="pickle of query vectors (query search form → vector), reused and extended")
    a = ap.parse_args()
    s = get_settings()
    base = ScoringParams.from_settings(s)
    t0 = time.perf_counter()
    if a.cache is not None and a.cache.exists():
        cases, gazetteer = pickle.loads(a.cache.read_bytes())
    else:
        known = pickle.loads(a.vectors.read_bytes()) if a.vectors is not None and a.vectors.exists() else {}
        weight = max(base.translation_weight, 0.5) if a.gather_translated else 0.0  # > 0: translate
        cases, gazetteer = asyncio.run(gather(a.department, replace(base, translation_weight=weight), known))
        if a.vectors is not None:
            a.vectors.write_bytes(pickle.dumps(known))
        if a.cache is not None:
            a.cache.write_bytes(pickle.dumps((cases, gazetteer)))
    print(f"{load_note()}; {len(cases)} queries gathered in {time.perf_counter() - t0:.0f} s; "
          f"rank_candidates median {statistics.median(c.ms for c in cases):.1f} ms")
    k, dup = s.query_top_k, s.query_duplicate_threshold
    fit = [c for c in cases if "split:calibration" in c.groups or "set:corpus-calibration" in c.groups]
    scored = []
    bonuses = floats(a.cross_language_bonuses) if a.cross_language_bonuses else [base.cross_language_bonus]
    for mn in floats(a.min_named):
        rematch(cases, gazetteer, mn)
        for e, miss, prior, dt, xl in itertools.product(floats(a.entity_weights), floats(a.miss_weights),
                                                        floats(a.qa_priors), floats(a.translation_weights),
                                                        bonuses):
            p = replace(base, entity_weight=e, entity_miss_weight=miss, qa_prior=prior, entity_min_named=mn,
                        translation_weight=dt, cross_language_bonus=xl)
            m = metrics(fit, ranks(fit, p, k, dup))["all"]
            scored.append((-(m[2] + m[1]), e - miss + abs(prior - base.qa_prior) + dt + xl, p))
            print(f"  entity {e} miss {miss} min_named {mn} qa_prior {prior} translation {dt} "
                  f"cross-language {xl}: fit set R@1 {m[1]:.3f} R@3 {m[2]:.3f}",
                  flush=True)
    best = min(scored, key=lambda t: (t[0], t[1]))[2]
    print(f"chosen: QUERY_ENTITY_WEIGHT={best.entity_weight} QUERY_ENTITY_MISS_WEIGHT={best.entity_miss_weight} "
          f"QUERY_ENTITY_MIN_NAMED={best.entity_min_named} QUERY_QA_PRIOR={best.qa_prior} "
          f"QUERY_TRANSLATION_WEIGHT={best.translation_weight} "
          f"QUERY_CROSS_LANGUAGE_BONUS={best.cross_language_bonus}")
    rematch(cases, gazetteer, base.entity_min_named)
    before = metrics(cases, ranks(cases, base, k, dup))
    rematch(cases, gazetteer, best.entity_min_named)
    after = metrics(cases, ranks(cases, best, k, dup))
    print(table(["group", "n", "R@1 settings", "R@3 settings", "R@1 chosen", "R@3 chosen"],
                [[g, n, r1, r3, after[g][1], after[g][2]] for g, (n, r1, r3) in before.items()]))


if __name__ == "__main__":
    main()

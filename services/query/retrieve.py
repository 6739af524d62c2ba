"""Retrieval: normalise and embed the question, gather candidates per language from the chunk
and question-line collections (always ``query_embeddings``, never ``query_texts``), re-score
them with language-bias removal (``scoring``) and return the best as ``Source`` objects."""
from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from services.query.gazetteer import EntityMatch
from services.query.keyword_index import KeywordHits, KeywordIndex, matched_terms, term_frequency
from services.query.keyword_tokens import query_search_form
from services.query.langbias import LanguageMeans, debias, language_neutral
from services.query.microbatch import MicroBatcher
from services.query.query_translation import translate_question
from services.query.question_vectors import QuestionVectors
from services.query.reflow import reflow
from services.query.renditions import Ranked, collapse
from services.query.scoring import Candidate, ScoringParams, score_candidates
from services.query.vector_cache import VectorCache
from shared.api import MatchedBy, Rendition, Source
from shared.chunkview import chunk_view, page_pdf_of
from shared.embeddings import EmbeddingClient
from shared.lang import detect_language
from shared.scope import Scope, chroma_where, meta_in_scope
from shared.textnorm import normalize_for_search
from shared.vectorstore import VectorStore

# e5-small reads at most 512 tokens; a longer question only costs embedding time (a 4000-character
# question took 6 s), so the embedding sees its first 512 characters (the keyword side sees all).
EMBED_QUERY_CHARS = 512


class Hit(NamedTuple):
    """One retrieved passage: the ``Source``, its full stored text, its keyword score (0..1,
    ``keyword_index``) and, for a Q&A pair, the question-line similarity (cosine after
    language-bias removal; ``None`` for other chunks) and the part of the score that only ranks
    (cosine units: ``entity_weight·entity``, plus ``entity_miss_weight`` when the question names
    another paper, plus ``cross_language_bonus`` when the chunk is in the other language). The
    coverage decision reads the question line and the score without that part: naming a paper
    says which paper, not that it answers, and the language offset only evens out e5's
    preference for the question's own language."""

    source: Source
    text: str
    keyword: float = 0.0
    question: float | None = None
    ranking_bonus: float = 0.0


@lru_cache(maxsize=4096)
def chunk_search_form(text: str) -> str:
    """``normalize_for_search(text)`` of a stored chunk text, cached (the same chunks come back
    for many queries; OpenCC conversion costs ~2 ms per chunk)."""
    return normalize_for_search(text)


@lru_cache(maxsize=4096)
def snippet(text: str, chars: int = 300) -> str:
    """The first ``chars`` characters of ``text`` reflowed (``reflow``: a PDF line wrap joined as
    printed, with no space between two CJK characters), on one line: its paragraphs, list items and
    table rows joined by one space, runs of whitespace collapsed to one. Cached by text (reflowing
    a whole chunk, to learn its line width, cost ~a tenth of a question's CPU time)."""
    flat = " ".join(reflow(text).split())
    return flat if len(flat) <= chars else flat[:chars].rstrip() + "…"


def to_rendition(chunk_id: str, meta: dict[str, Any]) -> Rendition:
    """A collapsed duplicate as a ``Rendition`` (where else the passage is)."""
    view = chunk_view(chunk_id, "", meta)
    return Rendition(chunk_id=chunk_id, document_id=view["document_id"], filename=view.get("filename"),
                     page_number=view["page_number"], pdf_url=view["pdf_url"])


def to_source(chunk_id: str, text: str, meta: dict[str, Any], score: float, matched_by: MatchedBy = "dense",
              terms: list[str] | None = None, also_in: list[Rendition] | None = None,
              entity: list[str] | None = None) -> Source:
    """A scored chunk as a ``Source`` (``score`` rounded to 4 decimals; ``entity``: the name
    terms its document's title shares with the question, ``gazetteer``)."""
    view = chunk_view(chunk_id, text, meta)
    is_qa = meta.get("chunk_kind") == "qa"
    return Source(
        chunk_id=chunk_id, document_id=view["document_id"], filename=view.get("filename"),
        page_number=view["page_number"], score=round(float(score), 4), snippet=snippet(text),
        pdf_url=view["pdf_url"], strategy_type=view.get("strategy_type"),
        question_id=meta.get("question_id") if is_qa else None,
        question_text=meta.get("question_text") if is_qa else None,
        answer=text if is_qa else None,
        topic_section=meta.get("topic_section") or None,
        source_page_range=view.get("source_page_range"), matched_by=matched_by,
        matched_terms=terms or [], matched_entity=entity or [], also_in=also_in or [],
        department=str(meta.get("department") or "default"),
        visibility="shared" if meta.get("visibility") == "shared" else "department",
        ocr=True if meta.get("ocr") is True else None,
        ocr_confidence=float(meta["ocr_confidence"]) if isinstance(meta.get("ocr_confidence"), (int, float)) else None)


def build_where(document_ids: list[str] | None = None, strategy: str | None = None,
                topic_section: str | None = None, lang: str | None = None,
                departments: Scope = None) -> dict[str, Any] | None:
    """Chroma ``where`` filter from the optional restrictions (``None`` when there are none).
    ``departments``: the caller's scope (``shared.scope``): chunks of those departments or of the
    shared library; ``None``: every department."""
    conds: list[dict[str, Any]] = []
    scope = chroma_where(departments)
    if scope is not None:
        conds.append(scope)
    if document_ids:
        conds.append({"document_id": {"$in": list(document_ids)}})
    if strategy:  # the strategy actually used (a question-strategy paper without Q&A is "token")
        conds.append({"strategy_type": strategy})
    if topic_section:
        conds.append({"topic_section": topic_section})
    if lang:
        conds.append({"lang": lang})
    if not conds:
        return None
    return conds[0] if len(conds) == 1 else {"$and": conds}


def _rows(res: Mapping[str, Any], nested: bool) -> list[tuple[str, str, dict[str, Any], Any]]:
    """(id, document, metadata, embedding) rows of a Chroma query (``nested``) or get result."""
    def pick(key: str) -> Any:
        value = res.get(key)
        return value[0] if nested and value is not None and len(value) else value

    ids = pick("ids") or []
    docs = pick("documents")
    metas = pick("metadatas")
    embs = pick("embeddings")
    return [(i, (docs[n] if docs is not None else "") or "", (metas[n] if metas is not None else {}) or {},
             embs[n] if embs is not None else None) for n, i in enumerate(ids)]


QueryVectors = Mapping[str | None, list[float]] | list[tuple[str | None, list[float]]]


class CandidateSearch:
    """The Chroma calls of concurrent questions, micro-batched (``microbatch.MicroBatcher``): per
    collection, filter and ``n``, the first question's search is sent at once and those
    arriving while it is in flight go together in one query request (Chroma answers each query
    vector as if it were alone); the texts of the best candidates likewise, in one ``get``.
    Eight clients' questions then cost a few requests instead of twenty-four.

    Args:
        vectors: the Chroma store (its current generation is read at each request).
        max_batch: most query vectors per request.
    """

    def __init__(self, vectors: VectorStore, max_batch: int = 32) -> None:
        self.vectors = vectors
        self.max_batch = max_batch
        self.requests = 0
        self._batchers: dict[tuple[str, str, int], MicroBatcher[list[float], list[str]]] = {}
        self._texts: MicroBatcher[str, str | None] = MicroBatcher(self._get_texts, 64 * max_batch)

    async def texts(self, ids: list[str]) -> list[str | None]:
        """The stored texts of chunks ``ids`` (``None``: no longer stored), fetched together with
        concurrent questions' (one ``get``; a chunk two questions ranked is fetched once)."""
        return await self._texts.submit(ids)

    async def _get_texts(self, ids: list[str]) -> list[str | None]:
        self.requests += 1
        got = await asyncio.to_thread(self.vectors.get_ids, ids)
        texts = {i: t or "" for i, t in zip(got["ids"], got["documents"] or [], strict=False)}
        return [texts.get(i) for i in ids]

    async def search(self, kind: str, where: dict[str, Any] | None, n: int,
                     query_vecs: list[list[float]]) -> list[list[str]]:
        """The ids of the top ``n`` records of ``kind`` for each of ``query_vecs`` (nearest first)."""
        key = (kind, json.dumps(where, sort_keys=True), n)
        batcher = self._batchers.get(key)
        if batcher is None:
            async def send(batch: list[list[float]]) -> list[list[str]]:
                self.requests += 1
                return await asyncio.to_thread(self.vectors.query_many, kind, batch, n, where)
            batcher = self._batchers[key] = MicroBatcher(send, self.max_batch, key=id)
        try:
            return await batcher.submit(query_vecs)
        finally:
            if batcher.idle:  # filters come and go (document ids): keep only the busy ones
                self._batchers.pop(key, None)


WIDE_MAX = 2000
"""Most ids one unfiltered search may fetch to stand in for a scoped one (``ScopeFilter``)."""


@dataclass
class ScopeFilter:
    """A caller's scope applied after an unfiltered Chroma search instead of inside it.

    Chroma evaluates a ``where`` filter over the whole collection for every query: at 100,000
    chunks a search with a member's department filter took 476 ms at p50 against 13 ms without
    (``services/query/README.md``, "The dense side's scope at 100k"). When the scope holds a
    share ``s`` of the chunks, the top ``2n/s`` (at most :data:`WIDE_MAX`) of an unfiltered
    search are fetched instead and the first ``n`` of the scope kept, each id checked against
    the keyword index's department and visibility codes (``KeywordIndex.in_scope``); an id it
    does not hold yet (a document indexed in the last second) by its metadata in Chroma. When
    fewer than ``n`` of the scope come back, that search is made again with the filter.

    Args:
        keywords: the query service's keyword index (the scope's share and its chunks' codes).
        departments: the caller's scope (``shared.scope``; not ``None``).
        vectors: Chroma, for the metadata of ids the keyword index does not hold.
    """

    keywords: KeywordIndex
    departments: Scope
    vectors: VectorStore

    def wide_n(self, n: int) -> int | None:
        """How many ids an unfiltered search fetches for the scope's top ``n``; ``None`` when
        that would pass :data:`WIDE_MAX` (a small scope: searched with the filter)."""
        share = self.keywords.scope_share(self.departments)
        if share <= 0:
            return None
        wide = max(n, math.ceil(2 * n / share))
        return wide if wide <= WIDE_MAX else None

    def keep(self, ids: list[str], n: int, wide: int) -> list[str] | None:
        """The first ``n`` of ``ids`` (an unfiltered search's top ``wide``, nearest first) in the
        scope; ``None`` when fewer than ``n`` are and the search may have stopped short of more.
        Blocking (may read Chroma): call it in a worker thread.

        Raises:
            chromadb errors when Chroma is down (an id unknown to the keyword index)."""
        kept: list[str] = []
        step = max(4 * n, 100)  # checked a slice at a time: the scope's first n are usually near the top
        for at in range(0, len(ids), step):
            part = ids[at:at + step]
            marks = self.keywords.in_scope(part, self.departments)
            unknown = [cid for cid, ok in zip(part, marks, strict=True) if ok is None]
            if unknown:
                metas = self.vectors.get_metadatas(unknown)
                marks = [ok if ok is not None  # known to the keyword index
                         else cid in metas and meta_in_scope(metas[cid], self.departments)
                         for cid, ok in zip(part, marks, strict=True)]
            kept += [cid for cid, ok in zip(part, marks, strict=True) if ok]
            if len(kept) >= n:
                return kept[:n]
        return None if len(ids) >= wide else kept


async def search_candidates(vectors: VectorStore, query_vecs: QueryVectors, n: int, filters: dict[str, Any],
                            searcher: CandidateSearch | None = None, scope: ScopeFilter | None = None) -> list[str]:
    """The ids of the top-``n`` chunks and top-``n`` question lines for each query vector
    (``query_vecs``: language → the query vector to search that language with, or a list of
    such pairs; ``None`` = no language filter), merged in the order of one search per vector
    and collection. The chunk and question-line searches run at once; each is one request per
    filter holding every query vector (batched with concurrent questions' through
    ``searcher`` when given). ``scope``: when ``filters`` restrict nothing but the caller's
    departments, the scope is applied after an unfiltered search (:class:`ScopeFilter`)."""
    wide = None
    if scope is not None and not any(v for key, v in filters.items() if key != "departments"):
        wide = scope.wide_n(n)
    if scope is not None and wide is not None:
        lists = await _search_lists(vectors, query_vecs, wide, {}, searcher)
        kept = await asyncio.to_thread(lambda: [scope.keep(ids, n, wide) for ids in lists])
        if all(k is not None for k in kept):
            return list(dict.fromkeys(cid for ids in kept if ids is not None for cid in ids))
    return list(dict.fromkeys(cid for ids in await _search_lists(vectors, query_vecs, n, filters, searcher)
                              for cid in ids))


async def _search_lists(vectors: VectorStore, query_vecs: QueryVectors, n: int, filters: dict[str, Any],
                        searcher: CandidateSearch | None) -> list[list[str]]:
    """The top-``n`` ids of each search of :func:`search_candidates`, in its merge order (per
    query vector: chunks, then question lines)."""
    order: list[tuple[str, str, int]] = []
    batches: dict[tuple[str, str], tuple[dict[str, Any] | None, list[list[float]]]] = {}
    for lang, qv in (query_vecs.items() if isinstance(query_vecs, Mapping) else query_vecs):
        where = build_where(lang=lang, **filters)
        for kind in ("chunks", "questions"):
            batch = batches.setdefault((kind, repr(where)), (where, []))
            order.append((kind, repr(where), len(batch[1])))
            batch[1].append(qv)
    keys = list(batches)
    found = await asyncio.gather(*(
        searcher.search(kind, batches[(kind, w)][0], n, batches[(kind, w)][1]) if searcher is not None
        else asyncio.to_thread(vectors.query_many, kind, batches[(kind, w)][1], n, batches[(kind, w)][0])
        for kind, w in keys))
    results = dict(zip(keys, found, strict=True))
    return [results[(kind, w)][i] for kind, w, i in order]


def candidate_records(vectors: VectorStore, ids: list[str], cache: VectorCache | None = None,
                      known: Callable[[list[str]], dict[str, dict[str, Any]]] | None = None) -> list[Candidate]:
    """The chunks ``ids`` as candidates, in that order (an id no longer stored is left out).

    Metadata comes from ``known`` (id list → metadata of the ids it holds: the keyword index's
    copy) and, for ids it does not hold, from one Chroma ``get`` (fetching metadata with the
    search costs Chroma 3× the search itself). Vectors come from ``cache`` when it holds them
    (keyed by id and ``vector_sha``/``question_sha``), else from Chroma. Candidates carry no
    text yet (``text=""``)."""
    cache = cache if cache is not None else VectorCache(0)
    found: dict[str, None] = dict.fromkeys(ids)  # ordered set of chunk ids
    metas: dict[str, dict[str, Any]] = known(list(found)) if known is not None and found else {}
    missing = [cid for cid in found if cid not in metas]
    if missing:  # not in the keyword index yet (indexed in the last seconds)
        metas.update(vectors.get_metadatas(missing))
    vecs: dict[tuple[str, str], np.ndarray] = {}

    def fill(kind: str, shas: dict[str, str]) -> None:
        todo = []
        for cid, sha in shas.items():
            v = cache.get((kind, cid, sha))
            if v is None:
                todo.append(cid)
            else:
                vecs[(kind, cid)] = v
        if todo:  # the metadata is known already: only the vectors are read
            for cid, _, _, emb in _rows(vectors.get_vectors(kind, todo), nested=False):
                if emb is not None:
                    vecs[(kind, cid)] = cache.put((kind, cid, shas[cid]), emb)

    fill("chunks", {cid: str(m.get("vector_sha", "")) for cid, m in metas.items()})
    fill("questions", {cid: str(m.get("question_sha", "")) for cid, m in metas.items()
                       if m.get("chunk_kind") == "qa"})
    return [Candidate(cid, "", metas[cid], vecs[("chunks", cid)], vecs.get(("questions", cid)))
            for cid in metas if ("chunks", cid) in vecs]


def keyword_candidates(hits: KeywordHits, n: int) -> list[str]:
    """The ids of the ``n`` best keyword matches, best first."""
    return hits.top(n)


@dataclass
class Stage:
    """The scored candidates of one question before collapsing (``rank_candidates``): the raw
    query embedding, its language, the language means used, the candidates (unsorted, with
    every signal filled in), the keyword form of the question and its keyword hits; with dense
    query translation, the raw embedding of the translation and its language."""

    embedding: np.ndarray
    lang: str
    means: dict[str, np.ndarray]
    candidates: list[Candidate]
    kw_text: str
    hits: KeywordHits
    entities: dict[str, EntityMatch]
    translation: tuple[np.ndarray, str] | None = None


async def rank_candidates(vectors: VectorStore, embedder: EmbeddingClient | QuestionVectors, question: str, k: int,
                          document_ids: list[str] | None = None, *, means: LanguageMeans | None = None,
                          params: ScoringParams, candidates: int = 40, strategy: str | None = None,
                          topic_section: str | None = None, cache: VectorCache | None = None,
                          keywords: KeywordIndex | None = None, keyword_candidates_n: int = 20,
                          departments: Scope = None, fresh: bool = False,
                          searcher: CandidateSearch | None = None) -> Stage:
    """Embed ``question``, gather its candidates and fill in their keyword and entity signals
    (``retrieve`` without scoring and collapsing; ``bench/retrieval_fit.py`` rescoring them
    under other weights). Arguments as for :func:`retrieve`."""
    text = normalize_for_search(question)
    qlang = detect_language(text)
    alt = None
    if params.translation_weight > 0 and keywords is not None and qlang == "en":  # zh → en: R@1 lost
        snap = keywords.snapshot
        alt = translate_question(query_search_form(question), keywords.lexicon, snap.vocab,
                                 lambda term: term_frequency(snap, term))
    texts = [text] + ([normalize_for_search(alt)] if alt else [])
    questions = embedder if isinstance(embedder, QuestionVectors) else QuestionVectors(embedder, 0, 0)
    filters: dict[str, Any] = {"document_ids": document_ids, "strategy": strategy, "topic_section": topic_section,
                               "departments": departments}
    keyword_job, kw_text = None, text
    if keywords is not None and params.keyword_weight > 0:  # in a worker thread while the question is embedded
        kw_text = query_search_form(question)
        keyword_job = asyncio.ensure_future(asyncio.to_thread(keywords.search, kw_text, **filters))
    try:
        embedded = await questions.embed([t[:EMBED_QUERY_CHARS] for t in texts], fresh=fresh)
        emb = np.asarray(embedded[0], dtype=np.float64)
        mean_map = means.get(departments) if means is not None and params.debias else {}
        q_search = language_neutral(debias(emb, mean_map.get(qlang)), mean_map)
        query_vecs: list[tuple[str | None, list[float]]] = [(None, q_search.tolist())]
        translation = None
        if alt:
            translation = (np.asarray(embedded[1], dtype=np.float64), detect_language(texts[1]))
            query_vecs.append((None, language_neutral(debias(translation[0], mean_map.get(translation[1])),
                                                      mean_map).tolist()))
        scope = (ScopeFilter(keywords, departments, vectors) if keywords is not None and departments is not None
                 else None)
        found = await search_candidates(vectors, query_vecs, max(candidates, k), filters, searcher, scope)
        hits = await keyword_job if keyword_job is not None else KeywordHits({}, {})
    except BaseException:
        if keyword_job is not None:
            keyword_job.cancel()
            await asyncio.gather(keyword_job, return_exceptions=True)
        raise
    cands = await asyncio.to_thread(candidate_records, vectors, keyword_candidates(hits, keyword_candidates_n) + found,
                                    cache, keywords.metadata if keywords is not None else None)
    entities: dict[str, EntityMatch] = {}
    if keywords is not None:
        entities = keywords.snapshot.gazetteer.matches(question, [str(c.meta.get("document_id", "")) for c in cands],
                                                       params.entity_min_named)
    for c in cands:
        c.keyword = hits.scores.get(c.chunk_id, 0.0)
        match = entities.get(str(c.meta.get("document_id", "")))
        c.entity = match.share if match is not None else 0.0
        c.entity_miss = match is not None and match.named and match.share == 0
    return Stage(emb, qlang, mean_map, cands, kw_text, hits, entities, translation)


async def fetch_texts(vectors: VectorStore, ranked: list[Candidate],
                      searcher: CandidateSearch | None = None) -> dict[str, str]:
    """Chunk id → stored text of the ``ranked`` candidates (ids deleted since: absent); with
    ``searcher``, one request with concurrent questions' (``CandidateSearch.texts``)."""
    if searcher is not None:
        texts = await searcher.texts([c.chunk_id for c in ranked])
        return {c.chunk_id: t for c, t in zip(ranked, texts, strict=True) if t is not None}
    got = await asyncio.to_thread(vectors.get_ids, [c.chunk_id for c in ranked])
    return {i: t or "" for i, t in zip(got["ids"], got["documents"] or [], strict=False)}


def finish(stage: Stage, params: ScoringParams, k: int, texts: Mapping[str, str],
           duplicate_threshold: float = 0.8, ranked: list[Candidate] | None = None) -> list[Hit]:
    """Score ``stage``'s candidates under ``params``, collapse renditions and build the top-``k``
    hits (``texts``: chunk id → stored text; a candidate without text is left out). ``ranked``:
    ``top_ranked(stage, params, k)`` when the caller has it already (scoring is not repeated)."""
    if ranked is None:
        ranked = top_ranked(stage, params, k)
    kept = collapse([Ranked(c.chunk_id, str(c.meta.get("document_id", "")), texts[c.chunk_id], c,
                            has_page=page_pdf_of(c.meta) is not None)
                     for c in ranked if c.chunk_id in texts],  # absent: deleted since the index was built
                    k, duplicate_threshold)
    out = []
    for r in kept:
        c, best = r.item, r.best
        terms = matched_terms(stage.kw_text, chunk_search_form(r.text), str(c.meta.get("lang", "")),
                              stage.hits.term_sets)
        match = stage.entities.get(str(c.meta.get("document_id", "")))
        entity = list(match.terms) if match is not None and match.share > 0 else []
        also = [to_rendition(d.chunk_id, d.meta) for d in r.duplicates]
        out.append(Hit(to_source(c.chunk_id, r.text, c.meta, best.score, best.matched_by, terms, also, entity),
                       r.text, best.keyword, best.question, best.ranking_bonus))
    return out


def top_ranked(stage: Stage, params: ScoringParams, k: int) -> list[Candidate]:
    """The best ``max(4k, k + 10)`` candidates of ``stage`` under ``params`` (scored in place)."""
    return score_candidates(stage.embedding, stage.lang, stage.means, stage.candidates, params,
                            stage.translation)[:max(4 * k, k + 10)]


async def retrieve(vectors: VectorStore, embedder: EmbeddingClient | QuestionVectors, question: str, k: int,
                   document_ids: list[str] | None = None, *, means: LanguageMeans | None = None,
                   params: ScoringParams | None = None, candidates: int = 40,
                   strategy: str | None = None, topic_section: str | None = None,
                   cache: VectorCache | None = None, keywords: KeywordIndex | None = None,
                   keyword_candidates_n: int = 20, duplicate_threshold: float = 0.8,
                   departments: Scope = None, fresh: bool = False,
                   searcher: CandidateSearch | None = None) -> list[Hit]:
    """Top-``k`` chunks for ``question``, best first, each with its full stored text (``Hit``).

    The question is normalised (``normalize_for_search``: NFKC, HK characters, Simplified →
    Traditional) exactly as chunks were at index time, embedded, debiased and made
    language-neutral (``langbias.language_neutral``), searched once in the chunk and once in the
    question-line collection; the best keyword (BM25 + dictionary translation) matches join
    the candidates; each candidate's document gets the question's entity match (``gazetteer``:
    the district or programme the question names against the document's title); candidates
    are re-scored exactly by ``scoring.score_candidates``. Renditions of one passage in several
    documents are collapsed into the best one (``renditions``).

    Args:
        embedder: the question's embeddings: ``QuestionVectors`` (the service's: batched with
            concurrent questions, cached) or a plain ``EmbeddingClient`` (one request).
        document_ids / strategy / topic_section: optional filters (``None``: no restriction).
        departments: the caller's scope: only chunks of these departments or of the shared
            library are candidates — dense, question-line and keyword alike, so renditions
            (``also_in``) come from the scope too (``None``: every department).
        means: per-language mean vectors, those of the documents in ``departments`` used
            (``None``: no language-bias removal).
        candidates: candidates fetched per language and collection.
        cache: stored vectors already fetched (``None``: always fetch).
        keywords: the keyword index and its gazetteer (``None``: dense only, no entity match;
            ``params.keyword_weight == 0``: no keyword scores).
        keyword_candidates_n: best keyword matches added to the candidates.
        duplicate_threshold: bigram Jaccard at or above which chunks of two documents are
            one passage (> 1 disables collapsing).
        fresh: embed the question even if its vector is cached (``Cache-Control: no-cache``).
        searcher: the service's ``CandidateSearch`` (batched with concurrent questions);
            ``None``: this question's searches alone.

    Raises:
        openai.APIError / chromadb errors when the embeddings endpoint or Chroma fails.
    """
    params = params or ScoringParams.from_settings()
    stage = await rank_candidates(vectors, embedder, question, k, document_ids, means=means, params=params,
                                  candidates=candidates, strategy=strategy, topic_section=topic_section,
                                  cache=cache, keywords=keywords, keyword_candidates_n=keyword_candidates_n,
                                  departments=departments, fresh=fresh, searcher=searcher)
    ranked = top_ranked(stage, params, k)
    if not ranked:
        return []
    return finish(stage, params, k, await fetch_texts(vectors, ranked, searcher), duplicate_threshold, ranked)

"""The query service's in-memory state follows index events: the keyword index updated
document by document scores exactly as a full rebuild of the same chunks, the language means
updated per document equal a fresh sum of the ``_stats`` records, and the follower reads only
the documents an event names (an in-memory stand-in for Chroma)."""
from __future__ import annotations

import asyncio

import numpy as np
import pytest
from aiokafka import TopicPartition

from services.query import keyword_index
from services.query.follow import Follower, ResumeAt, parse_event
from services.query.keyword_index import KeywordIndex, build_snapshot, keyword_scores
from services.query.langbias import PRIOR_CHUNKS, LanguageMeans
from services.query.lexicon import Lexicon, load_lexicon
from shared import topics
from shared.events import DocumentDeleted, DocumentIndexed
from shared.generation import IndexGeneration, default_generation

TEXTS = {
    "a" * 32: ["私人土地業主可選擇按《收回土地條例》申索法定補償，或接受政府的特惠土地補償。",
               "真正務農人士可獲發特惠農作物補償，金額按作物類別及種植面積計算。",
               "棕地作業者如何物色替代用地？政府正規劃興建多層樓宇。"],
    "b" * 32: ["An employer must take out an insurance policy to cover liabilities for injuries at work.",
               "Ferry patronage on the outlying island routes rose again this year.",
               "Ex gratia allowances are paid to eligible households affected by clearance."],
    "c" * 32: ["政府會向受影響的住戶發放特惠津貼，並提供安置安排。", "網頁須符合 WCAG 2.1 AA 標準。"],
    "d" * 32: ["Land compensation for private landowners follows the Lands Resumption Ordinance.",
               "The harbour ferry routes carry more passengers than last year."],
}
QUERIES = ["特惠補償", "ferry patronage", "What ex-gratia land compensation applies to private landowners?",
           "棕地 補償", "insurance for injuries", "WCAG 2.1 AA", "安置"]


def lang_of(text: str) -> str:
    return "en" if text[:1].isascii() else "zh"


def records(doc_id: str) -> list[tuple[str, str, dict]]:
    return [(f"{doc_id}_{n}", t, {"document_id": doc_id, "lang": lang_of(t), "chunk_index": n})
            for n, t in enumerate(TEXTS[doc_id])]


def every(*doc_ids: str) -> list[tuple[str, str, dict]]:
    return [r for d in doc_ids for r in records(d)]


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return load_lexicon()


def same_scores(index: KeywordIndex, expected_records, lexicon: Lexicon) -> None:
    """Every query scores every chunk exactly (float equality) as a full rebuild does."""
    full = build_snapshot(expected_records)
    assert index.snapshot.ids == full.ids
    for q in QUERIES:
        got = keyword_scores(index.snapshot, lexicon, q)
        want = keyword_scores(full, lexicon, q)
        assert got.scores == want.scores, q
        assert got.term_sets == want.term_sets, q


A, B, C, D = sorted(TEXTS)


def test_adding_a_document_scores_as_a_full_rebuild(lexicon):
    index = KeywordIndex(lexicon)
    index.load(every(A, B))
    index.update({C: records(C)})
    index.update({D: records(D)})
    same_scores(index, every(A, B, C, D), lexicon)


def test_deleting_a_document_scores_as_a_full_rebuild(lexicon):
    index = KeywordIndex(lexicon)
    index.load(every(A, B, C, D))
    index.update({B: []})
    same_scores(index, every(A, C, D), lexicon)
    index.update({"f" * 32: []})  # unknown: nothing happens
    same_scores(index, every(A, C, D), lexicon)


def test_deleting_chunks_scores_as_a_full_rebuild(lexicon):
    index = KeywordIndex(lexicon)
    index.load(every(A, B, C, D))
    index.update(removed_chunks=[f"{B}_1", f"{D}_0"])
    same_scores(index, [r for r in every(A, B, C, D) if r[0] not in {f"{B}_1", f"{D}_0"}], lexicon)
    index.update(removed_chunks=[f"{C}_0", f"{C}_1"])  # every chunk of C: the document goes
    assert C not in index.document_ids


def test_a_reindexed_document_keeps_its_place(lexicon):
    index = KeywordIndex(lexicon)
    index.load(every(A, B, C))
    index.update({B: records(B)})  # a redelivered event: same chunks
    same_scores(index, every(A, B, C), lexicon)


def test_only_the_new_document_is_tokenised(lexicon, monkeypatch):
    index = KeywordIndex(lexicon)
    index.load(every(A, B, C))
    seen: list[str] = []
    real = keyword_index.index_chunk
    monkeypatch.setattr(keyword_index, "index_chunk", lambda cid, t, m: seen.append(cid) or real(cid, t, m))
    index.update({D: records(D)}, removed_chunks=[f"{A}_0"])
    assert seen == [f"{D}_0", f"{D}_1"]


# --- language means -------------------------------------------------------------------------
def stats(doc_id: str, seed: int) -> list[tuple[str, str, list[float], int]]:
    rng = np.random.default_rng(seed)
    return [(doc_id, lang, [float(x) for x in rng.normal(size=8)], int(rng.integers(1, 9)))
            for lang in (("en", "zh") if seed % 2 else ("zh",))]


def fresh_means(recs, prior: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """The means as a fresh sum of the records in order (``VectorStore.language_sums``'s
    arithmetic), shrunk towards ``prior`` (absent: zero) with ``PRIOR_CHUNKS``' weight."""
    prior = prior or {}
    out: dict[str, tuple[list[float], int]] = {}
    for _, lang, vec_sum, count in recs:
        vec, n = out.get(lang, ([0.0] * len(vec_sum), 0))
        out[lang] = ([a + b for a, b in zip(vec, vec_sum, strict=True)], n + count)
    return {lang: ((np.asarray(v, dtype=np.float64) + PRIOR_CHUNKS * prior[lang]) if lang in prior
                   else np.asarray(v, dtype=np.float64)) / (n + PRIOR_CHUNKS) for lang, (v, n) in out.items()}


def assert_means(means: LanguageMeans, recs) -> None:
    want = fresh_means(recs)
    got = means.get()
    assert got.keys() == want.keys()
    assert all(np.array_equal(got[k], want[k]) for k in want)  # bit-identical


def test_language_means_follow_documents_exactly():
    recs = {d: stats(d, n) for n, d in enumerate((A, B, C, D))}
    means = LanguageMeans()
    means.load(recs[A] + recs[B])
    assert_means(means, recs[A] + recs[B])
    means.update({C: {lang: (v, n) for _, lang, v, n in recs[C]}, D: {lang: (v, n) for _, lang, v, n in recs[D]}})
    assert_means(means, recs[A] + recs[B] + recs[C] + recs[D])
    means.update({B: {}})
    assert_means(means, recs[A] + recs[C] + recs[D])
    rewritten = stats(A, 7)  # a chunk of A deleted: its statistics rewritten, last in the collection
    means.update({A: {lang: (v, n) for _, lang, v, n in rewritten}})
    assert_means(means, recs[C] + recs[D] + rewritten)
    means.update({C: {lang: (v, n) for _, lang, v, n in recs[C]}})  # unchanged: keeps its place
    assert_means(means, recs[C] + recs[D] + rewritten)


# --- the follower on an in-memory Chroma ---------------------------------------------------------
def test_language_means_of_a_scope_are_its_documents_and_the_shared_library():
    """A caller's questions are centred on their department's documents (and the shared
    library's), as the "not covered" thresholds were fitted; another department's papers move
    nothing — and a change anywhere drops the cached means."""
    recs = {d: stats(d, n) for n, d in enumerate((A, B, C, D))}
    scopes = {A: ("lands", "department"), B: ("afcd", "department"), C: ("isd", "shared")}
    means = LanguageMeans()
    means.load(recs[A] + recs[B] + recs[C], scopes)
    assert_means(means, recs[A] + recs[B] + recs[C])                 # no scope: every document
    for scope, docs in ((["lands"], [A, C]), (["afcd"], [B, C]), (["lands", "afcd"], [A, B, C]), ([], [C])):
        everyone = fresh_means(recs[A] + recs[B] + recs[C])
        want = {**everyone, **fresh_means([r for d in docs for r in recs[d]], everyone)}  # lacking: everyone's
        got = means.get(scope)
        assert got.keys() == want.keys() and all(np.array_equal(got[k], want[k]) for k in want), scope
    before = means.get(["lands"])
    means.update({D: {lang: (v, n) for _, lang, v, n in recs[D]}}, {D: ("lands", "department")})
    want = fresh_means(recs[A] + recs[C] + recs[D], fresh_means(recs[A] + recs[B] + recs[C] + recs[D]))
    assert all(np.array_equal(means.get(["lands"])[k], want[k]) for k in want)
    assert any(not np.array_equal(before[k], want[k]) for k in want)  # the cache was dropped
    means.update({D: {}})                                              # deleted: out of lands again
    want = fresh_means(recs[A] + recs[C], fresh_means(recs[A] + recs[B] + recs[C]))
    assert all(np.array_equal(means.get(["lands"])[k], want[k]) for k in want)


class FakeVectors:
    """The part of ``VectorStore`` the follower uses, in memory, counting document reads."""

    def __init__(self) -> None:
        self.chunks: dict[str, list[tuple[str, str, dict]]] = {}
        self.stats: dict[str, list[tuple[str, str, list[float], int]]] = {}
        self.reads: list[str] = []

    def put(self, doc_id: str, seed: int) -> None:
        self.chunks[doc_id] = records(doc_id)
        self.stats[doc_id] = stats(doc_id, seed)

    def iter_chunks(self, page: int = 2000):
        return iter([r for recs in self.chunks.values() for r in recs])

    def stats_records(self):
        return [r for recs in self.stats.values() for r in recs]

    def stats_scopes(self, where=None):
        wanted = set(where["document_id"]["$in"]) if where else set(self.stats)
        return {d: ("default", "department") for d in self.stats if d in wanted}

    def document_chunks(self, doc_id: str):
        self.reads.append(doc_id)
        return list(self.chunks.get(doc_id, []))

    def document_stats(self, doc_id: str):
        return {lang: (v, n) for _, lang, v, n in self.stats.get(doc_id, [])}

    def refresh(self) -> IndexGeneration:
        return default_generation("legco_chunks", "e5")


def indexed(doc_id: str, ts: str) -> DocumentIndexed:
    return DocumentIndexed(document_id=doc_id, filename="f.txt", strategy="token", strategy_used="token",
                           file_type="txt", page_count=1, chunk_count=len(TEXTS[doc_id]), ts=ts)


def test_follower_applies_indexed_and_deleted_events(lexicon):
    store = FakeVectors()
    store.put(A, 0)
    store.put(B, 1)
    follower = Follower(store, KeywordIndex(lexicon), LanguageMeans())
    follower.load()
    store.put(D, 3)
    store.put(C, 2)  # indexed after D, but its event comes first in the batch: ordered by ts
    follower.apply([indexed(C, "2026-01-01T00:00:02+00:00"), indexed(D, "2026-01-01T00:00:01+00:00")])
    assert store.reads == [D, C]  # only the documents named are read
    same_scores(follower.keywords, every(A, B, D, C), lexicon)
    assert_means(follower.means, store.stats_records())

    del store.chunks[B], store.stats[B]
    store.reads.clear()
    follower.apply([DocumentDeleted(document_id=B)])
    assert store.reads == []  # a whole document is dropped from memory
    same_scores(follower.keywords, every(A, D, C), lexicon)
    assert_means(follower.means, store.stats_records())

    store.chunks[D] = store.chunks[D][1:]
    store.stats[D] = stats(D, 9)
    follower.apply([DocumentDeleted(document_id=D, chunk_ids=[f"{D}_0"])])
    assert store.reads == []  # chunks dropped from memory, only the statistics re-read
    same_scores(follower.keywords, every(A) + records(D)[1:] + every(C), lexicon)
    assert_means(follower.means, store.stats[A] + store.stats[C] + store.stats[D])


def test_follower_is_idempotent_and_deletion_wins(lexicon):
    store = FakeVectors()
    for n, d in enumerate((A, B, C)):
        store.put(d, n)
    follower = Follower(store, KeywordIndex(lexicon), LanguageMeans())
    follower.load()
    follower.apply([indexed(B, "2026-01-01T00:00:01+00:00")])  # already in the start-up scan
    same_scores(follower.keywords, every(A, B, C), lexicon)
    assert_means(follower.means, store.stats_records())
    # indexed then deleted within one batch (any order): the document is gone
    store.put(D, 3)
    follower.apply([DocumentDeleted(document_id=D, ts="2026-01-01T00:00:03+00:00"),
                    indexed(D, "2026-01-01T00:00:04+00:00")])
    assert D not in follower.keywords.document_ids
    # a late indexed event of a deleted document: Chroma holds nothing of it, nothing is added
    del store.chunks[D], store.stats[D]
    follower.apply([indexed(D, "2026-01-01T00:00:05+00:00")])
    assert D not in follower.keywords.document_ids
    assert_means(follower.means, store.stats_records())


def test_events_parse_by_topic():
    ev = parse_event(topics.DELETED, {"document_id": A, "chunk_ids": None})
    assert isinstance(ev, DocumentDeleted) and ev.chunk_ids is None
    assert isinstance(parse_event(topics.INDEXED, indexed(A, "t").model_dump(mode="json")), DocumentIndexed)


def test_resume_at_seeks_assigned_partitions_to_the_followers_offsets(lexicon):
    follower = Follower(FakeVectors(), KeywordIndex(lexicon), LanguageMeans())
    follower.positions = {TopicPartition(topics.INDEXED, 0): 7, TopicPartition(topics.DELETED, 1): 0}

    class Consumer:
        def __init__(self) -> None:
            self.seeks: list = []

        def seek(self, tp, offset):
            self.seeks.append((tp, offset))

    class Sub:
        consumer = Consumer()

    listener = ResumeAt(follower)
    listener.subscriber = Sub()
    assigned = {TopicPartition(topics.INDEXED, 0), TopicPartition(topics.DELETED, 1),
                TopicPartition(topics.DELETED, 2)}
    asyncio.run(listener.on_partitions_assigned(assigned))
    assert sorted(Sub.consumer.seeks) == sorted([(TopicPartition(topics.INDEXED, 0), 7),
                                                 (TopicPartition(topics.DELETED, 1), 0)])

    class Record:
        def __init__(self, topic, partition, offset):
            self.topic, self.partition, self.offset = topic, partition, offset

    follower.applied([Record(topics.INDEXED, 0, 9), Record(topics.DELETED, 2, 3)])
    assert follower.positions[TopicPartition(topics.INDEXED, 0)] == 10
    assert follower.positions[TopicPartition(topics.DELETED, 2)] == 4

"""The keyword index changed chunk by chunk (``chunk_index``) scores exactly as one built at
once from the same chunks, after any sequence of adds, deletes, chunk deletes and redelivered
events; its BM25 numbers are those of ``bm25s`` (the library it replaced); the gazetteer and the
language means follow documents as a fresh build would; the index saved to disk
(``keyword_store``) comes back without tokenising, and a restarted follower catches up from the
saved offsets to the same index as a full scan."""
from __future__ import annotations

import random
import threading
from pathlib import Path

import bm25s
import numpy as np
import pytest
from aiokafka import TopicPartition

from services.query import chunk_index, keyword_index
from services.query.follow import Follower, offsets_of, resume_offsets
from services.query.gazetteer import Gazetteer, document_name_terms
from services.query.keyword_index import KeywordIndex, Record, build_snapshot, keyword_scores
from services.query.keyword_store import KeywordStore, open_store
from services.query.keyword_tokens import query_search_form
from services.query.langbias import LanguageMeans
from services.query.lexicon import Lexicon, load_lexicon
from shared import topics
from shared.events import DocumentDeleted, DocumentIndexed
from shared.generation import IndexGeneration, default_generation

TITLES = [
    "立法會CB(1)412/2025(03)號文件\n洪水橋∕厦村新發展區 Hung Shui Kiu/Ha Tsuen New Development Area\n發言要點",
    "立法會CB(1)903/2025(02)號文件\n將軍澳第137區發展 Development of Tseung Kwan O Area 137\n發言要點",
    "立法會CB(1)102/2025(03)號文件\n新田科技城 San Tin Technopole\n發言要點",
    "LC Paper No. CB(1)781/2025(05)\nNew Territories North New Town 新界北新市鎮\nSpeaking Notes",
]
BODIES = [
    "私人土地業主可選擇按《收回土地條例》申索法定補償，或接受政府的特惠土地補償。",
    "真正務農人士可獲發特惠農作物補償，金額按作物類別及種植面積計算。",
    "棕地作業者如何物色替代用地？政府正規劃興建多層樓宇。",
    "政府會向受影響的住戶發放特惠津貼，並提供安置安排。",
    "網頁須符合 WCAG 2.1 AA 標準。",
    "An employer must take out an insurance policy to cover liabilities for injuries at work.",
    "Ferry patronage on the outlying island routes rose again this year.",
    "Ex gratia allowances are paid to eligible households affected by clearance.",
    "Land compensation for private landowners follows the Lands Resumption Ordinance.",
    "The harbour ferry routes carry more passengers than last year at Hung Shui Kiu.",
]
QUERIES = ["特惠補償", "ferry patronage", "What ex-gratia land compensation applies to private landowners?",
           "棕地 補償", "insurance for injuries", "WCAG 2.1 AA", "安置", "洪水橋有冇鐵路？",
           "When will the station at HSK open?", "San Tin Technopole land"]
SCOPES = [None, ["lands"], ["afcd", "isd"], []]
DEPARTMENTS = ["lands", "afcd", "isd"]


def lang_of(text: str) -> str:
    return "en" if text[:1].isascii() else "zh"


def document(doc_id: str, seed: int) -> list[Record]:
    """A document of 2-5 chunks: a title chunk, then bodies (two documents may share a title: renditions)."""
    rnd = random.Random(seed)
    title = TITLES[seed % len(TITLES)]
    texts = [title + "\n" + rnd.choice(BODIES)] + rnd.sample(BODIES, rnd.randint(1, 4))
    dept = DEPARTMENTS[seed % 3]
    shared = seed % 5 == 0
    return [(f"{doc_id}_{n}", t, {"document_id": doc_id, "lang": lang_of(t), "chunk_index": n,
                                  "department": dept, **({"visibility": "shared"} if shared else {}),
                                  "strategy_type": "question" if seed % 2 else "token"})
            for n, t in enumerate(texts)]


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return load_lexicon()


def assert_same(index: KeywordIndex, expected: list[Record], lexicon: Lexicon) -> None:
    """Every query, in every scope, scores every chunk as a build at once of ``expected`` does:
    the same floats, in the same order, the same best 5; the same unknown share, term weights
    and entity match."""
    full = KeywordIndex(lexicon)
    full.load(expected)
    assert index.snapshot.ids == full.snapshot.ids
    assert index.chunk_count == full.chunk_count and index.document_ids == full.document_ids
    docs = full.document_ids
    for q in QUERIES:
        kq = query_search_form(q)
        for scope in SCOPES:
            got, want = index.search(kq, departments=scope), full.search(kq, departments=scope)
            assert list(got.scores.items()) == list(want.scores.items()), (q, scope)
            assert got.top(5) == [c for c, _ in sorted(want.scores.items(), key=lambda kv: -kv[1])[:5]], (q, scope)
            assert got.term_sets == want.term_sets
            assert index.unknown_share(kq, scope) == full.unknown_share(kq, scope)
            assert index.query_terms(kq, scope) == full.query_terms(kq, scope)
        got_e = index.snapshot.gazetteer.matches(q, docs, 1.2)
        want_e = full.snapshot.gazetteer.matches(q, docs, 1.2)
        assert {d: (m.score, m.share, m.named, set(m.terms)) for d, m in got_e.items()} == \
               {d: (m.score, m.share, m.named, set(m.terms)) for d, m in want_e.items()}, q
    got_g, want_g = index.snapshot.gazetteer, full.snapshot.gazetteer
    assert got_g.names == want_g.names and got_g.unique_idf == want_g.unique_idf
    assert {t: got_g.idf(t) for n in want_g.names.values() for t in n} == \
           {t: want_g.idf(t) for n in want_g.names.values() for t in n}


def test_bm25_scores_are_those_of_bm25s():
    """Each posting's score is the float ``bm25s`` (Lucene variant) stores for it."""
    records = [r for n in range(12) for r in document(f"d{n}", n)]
    snap = build_snapshot(records)
    index = snap.index
    chunks = [keyword_index.index_chunk(*r) for r in records]
    reference = bm25s.BM25()
    reference.index([c.tokens for c in chunks], show_progress=False)
    ids = snap.ids
    assert ids == [r[0] for r in records]
    position = {cid: n for n, cid in enumerate(ids)}
    for term in reference.vocab_dict:
        if not term:  # bm25s's own empty token
            continue
        tid = index.term_id(term)
        assert tid is not None, term
        rows, scores = index.token_scores(tid)
        want = reference.get_scores([term]).astype(np.float64)
        got = np.zeros(len(ids))
        got[[position[index.chunk_id(r)] for r in rows.tolist()]] = scores
        assert np.array_equal(got, want), term


@pytest.mark.parametrize("slack", [chunk_index.DEAD_SLACK, 0])
def test_any_sequence_of_changes_scores_as_a_build_at_once(lexicon, monkeypatch, slack):
    """Documents added, indexed again (unchanged and changed), deleted, chunks deleted, then
    compared with a build of what is left; with no slack, terms' arrays drop their dead postings
    as soon as they outnumber the live ones."""
    monkeypatch.setattr(chunk_index, "DEAD_SLACK", slack)
    rnd = random.Random(7)
    index = KeywordIndex(lexicon)
    held: dict[str, list[Record]] = {}
    index.load([])
    for step in range(60):
        action = rnd.random()
        if action < 0.5 or len(held) < 3:
            doc_id = f"doc{step}"
            held[doc_id] = document(doc_id, step)
            index.update({doc_id: held[doc_id]})
        elif action < 0.6:
            doc_id = rnd.choice(sorted(held))
            index.update({doc_id: held[doc_id]})  # redelivered: nothing changes, it keeps its place
        elif action < 0.7:
            doc_id = rnd.choice(sorted(held))
            held[doc_id] = document(doc_id, step + 100)  # indexed again with other chunks: keeps its place
            index.update({doc_id: held[doc_id]})
        elif action < 0.85:
            doc_id = rnd.choice(sorted(held))
            del held[doc_id]
            index.update({doc_id: []})
        else:
            doc_id = rnd.choice(sorted(held))
            gone = {r[0] for r in rnd.sample(held[doc_id], rnd.randint(1, len(held[doc_id])))}
            held[doc_id] = [r for r in held[doc_id] if r[0] not in gone]
            if not held[doc_id]:
                del held[doc_id]
            index.update(removed_chunks=sorted(gone))
        if step % 15 == 14:
            assert_same(index, [r for recs in held.values() for r in recs], lexicon)
    assert_same(index, [r for recs in held.values() for r in recs], lexicon)


def test_a_redelivered_document_is_not_tokenised_again(lexicon, monkeypatch):
    index = KeywordIndex(lexicon)
    index.load(document("a", 1) + document("b", 2))
    seen: list[str] = []
    real = keyword_index.index_chunk
    monkeypatch.setattr(keyword_index, "index_chunk", lambda cid, t, m: seen.append(cid) or real(cid, t, m))
    index.update({"b": document("b", 2)})
    index.load(document("b", 2) + document("a", 1))  # a full load takes the tokens it holds
    assert seen == []
    assert index.document_ids == ["b", "a"]


def test_queries_during_updates_see_whole_documents(lexicon):
    """Readers score while a writer adds and deletes documents: no error, and every result is
    that of some whole state (a document's chunks all in, or all out)."""
    index = KeywordIndex(lexicon)
    index.load(document("base", 3))
    errors: list[BaseException] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            try:
                hits = index.search(query_search_form("特惠補償"))
                docs = {cid.rpartition("_")[0] for cid in hits.scores}
                assert docs <= {"base", "x"}
                index.query_terms(query_search_form("ferry patronage"), ["lands"])
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)
                return

    readers = [threading.Thread(target=read) for _ in range(2)]
    for t in readers:
        t.start()
    for n in range(40):
        index.update({"x": document("x", n)} if n % 2 == 0 else {"x": []})
    done.set()
    for t in readers:
        t.join()
    assert errors == []


# --- the gazetteer and the language means --------------------------------------------------
def test_gazetteer_follows_documents_as_a_build_at_once():
    names = {f"d{n}": document_name_terms(TITLES[n % len(TITLES)] + ("\n(NTN)" if n % 3 == 0 else ""))
             for n in range(9)}
    bodies = {d: set(keyword_index.index_chunk(d, BODIES[n], {"chunk_index": 1}).tokens) for n, d in enumerate(names)}
    g = Gazetteer(terms=None)
    for d in names:
        g.add(d, names[d], g.terms.ids(bodies[d]))
    for d in ["d1", "d4", "d0"]:
        g.remove(d, g.terms.ids(bodies[d]))
    left = {d: n for d, n in names.items() if d not in {"d1", "d4", "d0"}}
    fresh = Gazetteer(left, {d: bodies[d] for d in left})
    assert g.names == fresh.names and g.unique_idf == fresh.unique_idf
    every = {t for n in names.values() for t in n.terms}
    assert {t: g.idf(t) for t in every} == {t: fresh.idf(t) for t in every}
    q = "When will HSK station in Tseung Kwan O open?"
    got, want = g.matches(q, list(names)), fresh.matches(q, list(names))
    assert {d: (m.score, m.share, m.named, set(m.terms)) for d, m in got.items()} == \
           {d: (m.score, m.share, m.named, set(m.terms)) for d, m in want.items()}


def stats(doc_id: str, seed: int) -> list[tuple[str, str, list[float], int]]:
    rng = np.random.default_rng(seed)
    return [(doc_id, lang, [float(x) for x in rng.normal(size=8)], int(rng.integers(1, 9)))
            for lang in (("en", "zh") if seed % 2 else ("zh",))]


def test_the_means_of_a_scope_follow_new_and_deleted_documents_exactly():
    """A scope's means, once asked for, are kept up to date by the writer: a new document is
    added to them, a deletion recomputes them — bit-identical to a fresh sum either way."""
    def fresh(recs, scopes, scope):
        m = LanguageMeans()
        m.load(recs, scopes)
        return m.get(scope)

    recs = {f"d{n}": stats(f"d{n}", n) for n in range(6)}
    scopes = {f"d{n}": (DEPARTMENTS[n % 3], "shared" if n == 5 else "department") for n in range(6)}
    means = LanguageMeans()
    means.load([r for d in ("d0", "d1", "d2") for r in recs[d]], {d: scopes[d] for d in ("d0", "d1", "d2")})
    asked = [["lands"], ["afcd", "isd"]]
    for scope in asked:
        means.get(scope)
    held = ["d0", "d1", "d2"]
    for change in ("d3", "d4", "d5", "-d1", "d1", "-d5"):
        doc = change.lstrip("-")
        if change.startswith("-"):
            means.update({doc: {}})
            held.remove(doc)
        else:
            means.update({doc: {lang: (v, n) for _, lang, v, n in recs[doc]}}, {doc: scopes[doc]})
            held.append(doc)
        for scope in [*asked, None]:
            want = fresh([r for d in held for r in recs[d]], {d: scopes[d] for d in held}, scope)
            got = means.get(scope)
            assert got.keys() == want.keys() and all(np.array_equal(got[k], want[k]) for k in want), (change, scope)


# --- the store and the restart -------------------------------------------------------------
def test_the_saved_index_comes_back_without_tokenising(lexicon, tmp_path, monkeypatch):
    path = tmp_path / "keywords.sqlite3"
    index = KeywordIndex(lexicon, KeywordStore(path))
    held = {f"d{n}": document(f"d{n}", n) for n in range(6)}
    index.load([r for recs in held.values() for r in recs])
    index.update({"d7": document("d7", 7), "d2": []})
    index.update(removed_chunks=["d3_1", "d0_0"])
    held["d7"] = document("d7", 7)
    del held["d2"]
    held["d3"] = [r for r in held["d3"] if r[0] != "d3_1"]
    held["d0"] = [r for r in held["d0"] if r[0] != "d0_0"]
    monkeypatch.setattr(keyword_index, "index_chunk", lambda *a: pytest.fail("tokenised"))
    again = KeywordIndex(lexicon, KeywordStore(path))
    assert again.restore()
    monkeypatch.undo()
    assert_same(again, [r for d in again.document_ids for r in held[d]], lexicon)
    assert again.snapshot.ids == index.snapshot.ids


def test_one_process_holds_a_store(tmp_path):
    first = open_store(tmp_path, "replica-a")
    assert first is not None and Path(first.path).name == "keywords-replica-a.sqlite3"
    assert open_store(tmp_path, "replica-a") is None  # held: memory only
    assert open_store(tmp_path, "replica-b") is not None
    assert open_store("", "replica-a") is None


def test_resume_offsets():
    a0, a1, b0 = TopicPartition("a", 0), TopicPartition("a", 1), TopicPartition("b", 0)
    saved = {("a", 0): 5, ("a", 1): 2}
    assert resume_offsets(saved, {a0: 0, a1: 0}, {a0: 9, a1: 2}) == {a0: 5, a1: 2}
    assert resume_offsets(saved, {a0: 0, a1: 0, b0: 0}, {a0: 9, a1: 2, b0: 4}) == {a0: 5, a1: 2, b0: 0}  # new partition
    assert resume_offsets(saved, {a0: 6, a1: 0}, {a0: 9, a1: 2}) is None  # events after it expired
    assert resume_offsets(saved, {a0: 0, a1: 0}, {a0: 3, a1: 2}) is None  # topics recreated
    assert resume_offsets(saved, {a0: 0, a1: 0, b0: 1}, {a0: 9, a1: 2, b0: 4}) is None  # new partition, expired


class Chroma:
    """The part of ``VectorStore`` the follower uses, in memory; counts full scans."""

    def __init__(self) -> None:
        self.chunks: dict[str, list[Record]] = {}
        self.stats: dict[str, list[tuple[str, str, list[float], int]]] = {}
        self.scans = 0
        self.generation = default_generation("legco_chunks", "e5")

    def put(self, doc_id: str, seed: int) -> None:
        self.chunks[doc_id] = document(doc_id, seed)
        self.stats[doc_id] = stats(doc_id, seed)

    def drop(self, doc_id: str) -> None:
        del self.chunks[doc_id], self.stats[doc_id]

    def iter_chunks(self, page: int = 2000):
        self.scans += 1
        return iter([r for recs in self.chunks.values() for r in recs])

    def stats_records(self):
        return [r for recs in self.stats.values() for r in recs]

    def stats_scopes(self, where=None):
        wanted = set(where["document_id"]["$in"]) if where else set(self.stats)
        return {d: ("default", "department") for d in self.stats if d in wanted}

    def document_chunks(self, doc_id: str):
        return list(self.chunks.get(doc_id, []))

    def document_stats(self, doc_id: str):
        return {lang: (v, n) for _, lang, v, n in self.stats.get(doc_id, [])}

    def refresh(self) -> IndexGeneration:
        return self.generation


class Kafka:
    """One partition of each followed topic: published events with their offsets."""

    def __init__(self) -> None:
        self.log: dict[str, list[object]] = {topics.INDEXED: [], topics.DELETED: []}
        self.first = dict.fromkeys(self.log, 0)

    def publish(self, topic: str, event: object) -> None:
        self.log[topic].append(event)

    def offsets(self) -> tuple[dict[TopicPartition, int], dict[TopicPartition, int]]:
        return ({TopicPartition(t, 0): self.first[t] for t in self.log},
                {TopicPartition(t, 0): len(events) for t, events in self.log.items()})

    def consume(self, follower: Follower) -> None:
        """Apply every event from the follower's positions on, one batch per topic."""
        for topic, events in self.log.items():
            start = follower.positions[TopicPartition(topic, 0)]
            batch = events[start:]
            if batch:
                follower.apply(batch)  # type: ignore[arg-type]
                follower.applied([KafkaRecord(topic, 0, n) for n in range(start, len(events))])


class KafkaRecord:
    def __init__(self, topic: str, partition: int, offset: int) -> None:
        self.topic, self.partition, self.offset = topic, partition, offset


def indexed(doc_id: str) -> DocumentIndexed:
    return DocumentIndexed(document_id=doc_id, filename="f.txt", strategy="token", strategy_used="token",
                           file_type="txt", page_count=1, chunk_count=1)


def start(chroma: Chroma, kafka: Kafka, lexicon: Lexicon, path: Path) -> Follower:
    """A query service's start: record offsets, load (or restore) the keyword index."""
    follower = Follower(chroma, KeywordIndex(lexicon, KeywordStore(path)), LanguageMeans())  # type: ignore[arg-type]
    follower.first, follower.positions = kafka.offsets()
    follower.load_keywords()
    return follower


def test_a_restarted_follower_catches_up_from_the_saved_offsets(lexicon, tmp_path, monkeypatch):
    chroma, kafka, path = Chroma(), Kafka(), tmp_path / "k.sqlite3"
    for n in range(4):
        chroma.put(f"d{n}", n)
    first = start(chroma, kafka, lexicon, path)
    assert chroma.scans == 1
    for doc_id, seed in (("d4", 4), ("d5", 5)):
        chroma.put(doc_id, seed)
        kafka.publish(topics.INDEXED, indexed(doc_id))
    chroma.drop("d1")
    kafka.publish(topics.DELETED, DocumentDeleted(document_id="d1"))
    kafka.consume(first)
    saved = offsets_of(first.positions)
    # while the replica is down: one document indexed, a chunk of another deleted
    chroma.put("d6", 6)
    chroma.chunks["d6"] = [(cid, f"{text} 第{n}段新文字", m) for n, (cid, text, m) in enumerate(chroma.chunks["d6"])]
    kafka.publish(topics.INDEXED, indexed("d6"))
    gone = chroma.chunks["d0"][1][0]
    chroma.chunks["d0"] = [r for r in chroma.chunks["d0"] if r[0] != gone]
    kafka.publish(topics.DELETED, DocumentDeleted(document_id="d0", chunk_ids=[gone]))

    seen: list[str] = []
    real = keyword_index.index_chunk
    monkeypatch.setattr(keyword_index, "index_chunk", lambda cid, t, m: seen.append(cid) or real(cid, t, m))
    again = start(chroma, kafka, lexicon, path)
    assert chroma.scans == 1  # restored: Chroma was not scanned
    assert seen == []  # nothing tokenised
    assert offsets_of(again.positions) == saved
    kafka.consume(again)
    assert seen == [r[0] for r in chroma.chunks["d6"]]  # only the document indexed meanwhile
    assert_same(again.keywords, [r for recs in chroma.chunks.values() for r in recs], lexicon)
    # and equal to a replica that scans Chroma afresh
    fresh = start(chroma, kafka, lexicon, tmp_path / "other.sqlite3")
    assert fresh.keywords.snapshot.ids == again.keywords.snapshot.ids


def test_a_saved_index_that_cannot_be_caught_up_is_not_restored(lexicon, tmp_path, monkeypatch):
    """Events after the saved offsets expired, or another generation: Chroma is scanned — but
    the chunks the file holds are not tokenised again."""
    chroma, kafka, path = Chroma(), Kafka(), tmp_path / "k.sqlite3"
    for n in range(3):
        chroma.put(f"d{n}", n)
    start(chroma, kafka, lexicon, path)
    chroma.put("d3", 3)
    chroma.chunks["d3"] = [(cid, f"{text} 第{n}段新文字", m) for n, (cid, text, m) in enumerate(chroma.chunks["d3"])]
    kafka.publish(topics.INDEXED, indexed("d3"))
    kafka.first[topics.INDEXED] = 1  # the event expired before the replica came back
    seen: list[str] = []
    real = keyword_index.index_chunk
    monkeypatch.setattr(keyword_index, "index_chunk", lambda cid, t, m: seen.append(cid) or real(cid, t, m))
    again = start(chroma, kafka, lexicon, path)
    assert chroma.scans == 2 and seen == [r[0] for r in chroma.chunks["d3"]]
    assert_same(again.keywords, [r for recs in chroma.chunks.values() for r in recs], lexicon)
    # another generation: scanned again, and the file now holds it
    chroma.generation = IndexGeneration(1, "legco_chunks_g1", "e5")
    start(chroma, kafka, lexicon, path)
    assert chroma.scans == 3
    assert KeywordStore(path).state().generation == chroma.generation.metadata()
    start(chroma, kafka, lexicon, path)
    assert chroma.scans == 3


def test_keyword_scores_of_an_empty_index(lexicon):
    assert keyword_scores(build_snapshot([]), lexicon, "anything").top(3) == []

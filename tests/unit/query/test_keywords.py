"""Keyword side of retrieval: tokens, the CC-CEDICT lexicon (the real bundled dictionary) and
BM25 keyword scores with query translation, on small hand-made chunk sets."""
from __future__ import annotations

import pytest

from services.query.keyword_index import build_snapshot, keyword_scores, matched_terms, term_sets
from services.query.keyword_tokens import (
    cjk_bigrams,
    covered_runs,
    document_tokens,
    english_stems,
    query_search_form,
    query_words,
)
from services.query.lexicon import Lexicon, load_lexicon
from shared.textnorm import normalize_for_search

CHUNKS = [
    ("zh-land", "私人土地業主可選擇按《收回土地條例》申索法定補償，或接受政府的特惠土地補償。", "zh"),
    ("zh-brown", "棕地作業者如何物色替代用地？政府正規劃興建多層樓宇，以容納物流及車輛維修等棕地作業。", "zh"),
    ("zh-farm", "真正務農人士可獲發特惠農作物補償，金額按作物類別及種植面積計算。", "zh"),
    ("en-ins", "An employer must take out an insurance policy to cover liabilities for injuries at work.", "en"),
    ("en-ferry", "Ferry patronage on the outlying island routes rose again this year.", "en"),
]


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return load_lexicon()


@pytest.fixture(scope="module")
def snap():
    return build_snapshot((cid, text, {"lang": lang, "document_id": cid.split("-")[0]})
                          for cid, text, lang in CHUNKS)


def test_tokens_are_cjk_bigrams_and_english_stems():
    assert cjk_bigrams("棕地作業，地") == ["棕地", "地作", "作業", "地"]
    assert english_stems("The landowners were compensated for compensation") == ["landown", "compens", "compens"]
    assert document_tokens("補償 compensation") == ["補償", "compens"]
    assert document_tokens("政府土\n地") == ["政府", "府土", "土地"]  # a PDF line wrap inside a word
    assert query_words("What ex-gratia rates apply?") == ["ex gratia", "rates", "apply"]
    assert query_search_form("棕地 補償") == "棕地 補償"  # no cross-word bigram 地補


def test_display_terms_occur_in_the_chunk_as_written():
    assert covered_runs("特惠津貼點計", {"特惠", "惠津", "津貼"}, "可獲特惠津貼。") == ["特惠津貼"]
    # 特惠補償 is not in the text (特惠農作物補償): shown as the pieces that are
    assert covered_runs("發放多少特惠補償", {"特惠", "惠補", "補償"}, "特惠農作物補償及惠補") == ["特惠", "補償"]
    # adjacent but not overlapping bigrams are two terms, not one
    assert covered_runs("登記住用", {"登記", "住用"}, "登記）及住用") == ["登記", "住用"]


def test_lexicon_translates_phrases_words_and_compounds(lexicon):
    vocab = {"特惠", "土地", "補償", "私人", "地主", "棕地"}
    sets = {t.source: t.targets for t in lexicon.english_to_chinese(
        "What ex-gratia land compensation applies to private landowners?", vocab)}
    assert sets["ex gratia"] == {"特惠"}  # a two-word gloss is matched before its words
    assert sets["land"] == {"土地"} and sets["compensation"] == {"補償"} and sets["private"] == {"私人"}
    assert sets["landowners"] == {"地主"}
    # not in CC-CEDICT: split into brown (棕) + field (地), kept because 棕地 is in the index
    assert {t.source: t.targets for t in lexicon.english_to_chinese("brownfield operators", vocab)}["brownfield"] \
        == {"棕地"}
    assert lexicon.english_to_chinese("brownfield", {"特惠"})[0].targets == frozenset()


def test_lexicon_segments_chinese_and_translates_to_english_stems(lexicon):
    assert lexicon.segment("僱主買保險")[-1] == "保險"
    sets = {t.source: t.targets for t in lexicon.chinese_to_english("買保險要留意乜嘢", {"insur", "polici"})}
    assert sets["保險"] == {"insur"}
    # a multi-word gloss is a phrase (every stem required), plus its longer words alone — never
    # "ex" alone, which would match "ex-employee"
    tr = {t.source: t.targets for t in lexicon.chinese_to_english("特惠", {"ex", "gratia"})}
    assert tr["特惠"] == {"ex gratia", "gratia"}


def test_repeated_words_count_once(lexicon):
    sets = lexicon.english_to_chinese("compensation compensation compensation", {"補償"})
    assert [t.source for t in sets] == ["compensation"]


def test_english_question_finds_the_chinese_chunk_by_translation(snap, lexicon):
    hits = keyword_scores(snap, lexicon, "What ex-gratia land compensation rates apply to private landowners?")
    zh = {cid: s for cid, s in hits.scores.items() if cid.startswith("zh")}
    assert max(zh, key=zh.get) == "zh-land" and zh["zh-land"] == 1.0  # normalised per language
    assert all(0 < s <= 1 for s in hits.scores.values())
    top = keyword_scores(snap, lexicon, "Where can brownfield operators move their businesses?").scores
    assert max((c for c in top if c.startswith("zh")), key=top.get) == "zh-brown"


def test_a_phrase_target_needs_all_its_words(lexicon):
    snap = build_snapshot([("en-ex", "An ex-employee may claim.", {"lang": "en"}),
                           ("en-eg", "An ex gratia payment is made.", {"lang": "en"})])
    assert set(keyword_scores(snap, lexicon, "特惠").scores) == {"en-eg"}


def test_english_words_inside_chinese_chunks_match(lexicon):
    snap = build_snapshot([("zh-wcag", "網頁須符合 WCAG 2.1 AA 標準。", {"lang": "zh", "chunk_index": 1}),
                           ("zh-other", "網頁設計須便利市民。", {"lang": "zh"})])
    assert set(keyword_scores(snap, lexicon, "WCAG 2.1 AA").scores) == {"zh-wcag"}


def test_chinese_question_finds_the_english_chunk_by_translation(snap, lexicon):
    hits = keyword_scores(snap, lexicon, normalize_for_search("僱主買保險要留意啲乜嘢？"))
    assert "en-ins" in hits.scores and "en-ferry" not in hits.scores


def test_filters_restrict_the_scored_chunks(snap, lexicon):
    hits = keyword_scores(snap, lexicon, "特惠補償", document_ids=["en"])
    assert hits.scores == {}
    hits = keyword_scores(snap, lexicon, "特惠補償", document_ids=["zh"])
    assert set(hits.scores) == {"zh-land", "zh-farm"}


def test_matched_terms_show_own_words_and_translations(snap, lexicon):
    q = query_search_form("What ex-gratia land compensation applies to private landowners?")
    sets = term_sets(lexicon, q, snap.vocab)
    terms = matched_terms(q, normalize_for_search(CHUNKS[0][1]), "zh", sets)
    assert "特惠 (ex gratia)" in terms and "補償 (compensation)" in terms
    q2 = "特惠農作物補償點計"
    terms2 = matched_terms(q2, CHUNKS[2][1], "zh", term_sets(lexicon, q2, snap.vocab))
    assert terms2[0] == "特惠農作物補償"


def test_empty_index_scores_nothing(lexicon):
    assert keyword_scores(build_snapshot([]), lexicon, "anything").scores == {}


def test_department_scope_restricts_the_scored_chunks_and_their_scale(lexicon):
    metas = {"zh-land": ("dept-a", None), "zh-farm": ("dept-b", "department"), "zh-brown": ("ops", "shared"),
             "en-ins": (None, None), "en-ferry": ("dept-b", "department")}
    snap = build_snapshot((cid, text, {"lang": lang, "document_id": cid, **({"department": metas[cid][0]}
                                                                             if metas[cid][0] else {}),
                                       **({"visibility": metas[cid][1]} if metas[cid][1] else {})})
                          for cid, text, lang in CHUNKS)
    everything = keyword_scores(snap, lexicon, "特惠補償")
    assert {"zh-land", "zh-farm"} <= set(everything.scores)
    hits = keyword_scores(snap, lexicon, "特惠補償", departments=["dept-b"])
    assert set(hits.scores) == {"zh-farm"} and hits.scores["zh-farm"] == 1.0  # the best of what dept-b may read
    assert keyword_scores(snap, lexicon, "棕地", departments=["dept-b"]).scores.keys() == {"zh-brown"}  # shared
    # a chunk written before departments existed belongs to "default"
    assert "en-ins" in keyword_scores(snap, lexicon, "insurance policy", departments=["default"]).scores
    assert keyword_scores(snap, lexicon, "insurance policy", departments=["dept-a"]).scores == {}


def test_english_title_words_do_not_match_a_chinese_chunk(lexicon):
    """A Chinese paper's bilingual title line holds the English name; an English question naming
    it must score the chunk that answers, not the title chunk (the entity match counts the name)."""
    title = "立法會CB(1)102/2025(03)號文件\n新田科技城 San Tin Technopole\n背景\n新田科技城的發展。"
    snap = build_snapshot([("st_0", title, {"lang": "zh", "document_id": "st", "chunk_index": 0}),
                           ("st_1", "新田科技城的安置截算日期為2024年。", {"lang": "zh", "document_id": "st",
                                                                 "chunk_index": 1})])
    assert "technopol" in snap.gazetteer.names["st"]  # the entity match still has the name
    assert set(keyword_scores(snap, lexicon, "San Tin Technopole").scores) == set()
    # English words in a Chinese paper's body still match
    body = build_snapshot([("st_1", "新田科技城 San Tin Technopole 的安置。", {"lang": "zh", "document_id": "st",
                                                                  "chunk_index": 1})])
    assert set(keyword_scores(body, lexicon, "San Tin Technopole").scores) == {"st_1"}

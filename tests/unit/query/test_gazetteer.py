"""Entity match: document names from title lines, initialisms, and the question's match."""
from __future__ import annotations

import numpy as np

from services.query.gazetteer import Gazetteer, aliases, document_name_terms, initialisms, title_region
from services.query.keyword_index import KeywordIndex
from services.query.lexicon import Lexicon
from services.query.scoring import Candidate, ScoringParams, score_candidates
from shared.settings import Settings

HSK = ("立法會CB(1)412/2025(03)號文件\n洪水橋∕厦村新發展區 Hung Shui Kiu/Ha Tsuen New\nDevelopment Area\n"
       "立法會發展事務委員會 2025年3月18日會議發言要點及備用問答\n發言要點\n"
       "主席，洪水橋∕厦村新發展區（洪水橋新發展區）佔地約 441 公頃，是北部都會區的核心，鄰近元朗南及新田。")
TKO = "立法會CB(1)903/2025(02)號文件\n將軍澳第137區發展 Development of Tseung Kwan O Area 137\n發言要點\n"
STT = "立法會CB(1)102/2025(03)號文件\n新田科技城 San Tin Technopole\n發言要點\n"
NTN = ("LC Paper No. CB(1)781/2025(05)\nNew Territories North New Town 新界北新市鎮\nSpeaking Notes\n"
       "Chairman, the New Territories North (NTN) New Town covers about 1 500 hectares.")


def test_title_region_keeps_the_title_lines_and_drops_stamp_meeting_line_and_body():
    region = title_region(HSK)
    assert "Hung Shui Kiu" in region and "Development Area" in region
    assert "412" not in region  # the paper stamp (it holds a year)
    assert "會議" not in region  # the meeting line (a date)
    assert "主席" not in region  # body text starts after TITLE_LINES lines or a long line


def test_initialisms_of_capitalised_runs():
    got = initialisms("Hung Shui Kiu/Ha Tsuen New Development Area")
    assert {"hsk", "ht", "nda", "htnda"} <= got.keys()
    assert got["hsk"] == {"hung", "shui", "kiu"}
    assert "tko" in initialisms("Development of Tseung Kwan O Area 137")  # the one-letter O counts
    assert "dt" not in initialisms("Development of Tseung Kwan O")  # "of" breaks the run


def test_aliases_are_bracketed_short_forms_not_numbers():
    assert aliases(HSK) == ["洪水橋新發展區"]
    assert "NTN" in aliases(NTN)
    assert aliases("立法會CB(1)412/2025(03)號文件") == []


def test_document_name_terms_hold_both_languages_and_abbreviations():
    terms = document_name_terms(HSK).terms
    assert {"洪水", "水橋", "hung", "kiu", "hsk"} <= terms
    assert "新田" not in terms  # a neighbour named only in the body is not the paper's name
    assert {"tko", "137", "將軍", "軍澳"} <= document_name_terms(TKO).terms


def gazetteer() -> Gazetteer:
    return Gazetteer({"hsk": document_name_terms(HSK), "tko": document_name_terms(TKO),
                      "stt": document_name_terms(STT), "ntn": document_name_terms(NTN)})


def test_question_naming_a_district_in_english_matches_the_chinese_paper():
    m = gazetteer().matches("When will the Tuen Ma Line station at HSK open?", ["hsk", "tko", "stt"])
    assert m["hsk"].share == 1.0 and "hsk" in m["hsk"].terms
    assert m["tko"].share == 0.0 and m["tko"].named  # a paper the question does not name
    tko = gazetteer().matches("How many flats will TKO Area 137 provide?", ["hsk", "tko"])
    assert tko["tko"].share == 1.0 and tko["hsk"].share < 1.0


def test_chinese_question_matches_the_english_paper_through_its_bilingual_title():
    m = gazetteer().matches("新界北新市鎮有冇鐵路？", ["ntn", "stt"])
    assert m["ntn"].share == 1.0 and m["stt"].share == 0.0


def test_question_naming_no_paper_gives_every_paper_zero():
    m = gazetteer().matches("What is the cut-off date for rehousing?", ["hsk", "tko", "stt"])
    assert all(e.share == 0.0 and not e.named for e in m.values())


def test_simplified_question_matches_after_search_form():
    m = gazetteer().matches("洪水桥第二期收地涉及多少公顷？", ["hsk", "stt"])
    assert m["hsk"].share == 1.0


def test_keyword_index_builds_the_gazetteer_from_first_chunks():
    index = KeywordIndex(Lexicon({}, {}))
    index.load([("d1_0", HSK, {"document_id": "d1", "chunk_index": 0, "lang": "zh"}),
                ("d1_1", "問 A1：新田站何時通車？", {"document_id": "d1", "chunk_index": 1, "lang": "zh"}),
                ("d2_0", STT, {"document_id": "d2", "chunk_index": 0, "lang": "zh"})])
    names = index.snapshot.gazetteer.names
    assert "hsk" in names["d1"] and "新田" not in names["d1"]  # only the first chunk names it
    assert "stt" in names["d2"]


def test_entity_weight_lifts_the_named_paper_and_miss_weight_sinks_the_other():
    v = np.array([1.0, 0.0])
    named = Candidate("a", "", {"lang": "zh", "content_chars": 100}, v, entity=1.0)
    other = Candidate("b", "", {"lang": "zh", "content_chars": 100}, np.array([1.0, 0.05]), entity_miss=True)
    plain = ScoringParams.from_settings(Settings(), entity_weight=0.0, entity_miss_weight=0.0, debias=False)
    assert score_candidates(np.array([0.99, 0.1]), "zh", {}, [named, other], plain)[0].chunk_id == "b"
    fitted = ScoringParams.from_settings(Settings(), entity_weight=0.1, entity_miss_weight=-0.05, debias=False)
    ranked = score_candidates(np.array([0.99, 0.1]), "zh", {}, [named, other], fitted)
    assert ranked[0].chunk_id == "a"
    assert abs(ranked[1].score - (ranked[1].dense - 0.05)) < 1e-9


def test_finish_reports_the_matched_entity_of_the_named_paper_only():
    from services.query.keyword_index import KeywordHits
    from services.query.retrieve import Stage, finish

    meta = {"lang": "zh", "content_chars": 100, "chunk_kind": "qa", "question_id": "A1", "page_number": 1}
    named = Candidate("d1_1", "", {**meta, "document_id": "d1"}, np.array([1.0, 0.0]))
    other = Candidate("d2_1", "", {**meta, "document_id": "d2"}, np.array([0.9, 0.1]))
    g = gazetteer()
    entities = g.matches("When will HSK station open?", ["hsk", "stt"])
    stage = Stage(np.array([1.0, 0.0]), "en", {}, [named, other], "when will hsk station open",
                  KeywordHits({}, {}), {"d1": entities["hsk"], "d2": entities["stt"]})
    named.entity, other.entity_miss = 1.0, True
    params = ScoringParams.from_settings(Settings(), debias=False)
    hits = finish(stage, params, 2, {"d1_1": "問 A1：洪水橋站何時通車？", "d2_1": "問 A1：新田站何時通車？"})
    assert [h.source.chunk_id for h in hits] == ["d1_1", "d2_1"]
    assert hits[0].source.matched_entity == ["hsk"]
    assert hits[1].source.matched_entity == []


def test_a_keyword_snapshot_pickles_with_a_new_unheld_lock():
    """``bench/retrieval_fit.py --cache`` saves the gathered candidates, whose keyword scores hold
    the snapshot's chunk index; its read-write lock is pickled as a new, unheld lock."""
    import pickle

    index = KeywordIndex(Lexicon({}, {}))
    index.load([("d1_0", HSK, {"document_id": "d1", "chunk_index": 0, "lang": "zh"}),
                ("d2_0", STT, {"document_id": "d2", "chunk_index": 0, "lang": "zh"})])
    before = index.snapshot
    with before.index.lock.reading():  # held while pickled: the copy's lock is still free
        after = pickle.loads(pickle.dumps(before))
    with after.index.lock.writing():
        pass
    assert after.ids == before.ids
    question = "When will the Tuen Ma Line station at HSK open?"
    assert after.gazetteer.matches(question, ["d1", "d2"])["d1"].share == 1.0

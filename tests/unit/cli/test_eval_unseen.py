"""The unseen evaluation set (``bench/unseen/papers``): what ``legco eval`` loads from it, and every
query's target pair as the parser and the question splitter produce it from the committed files."""
from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path

import pytest

from bench.unseen.check import PAPERS_DIR, load_sets, pair_problems, split_problems, style_problems
from cli.eval_corpus import document_files, load_queries

SETS = load_sets()


@pytest.fixture(scope="module")
def chunks() -> dict[str, list]:
    """File name → the Q&A and section chunks of the committed paper (parser + question splitter,
    in this process; the papers have no tables, so the table stage would change nothing)."""
    from services.parser.parse import parse_document
    from services.splitter.split import split_document
    from shared.settings import Settings

    settings = Settings()
    out = {}
    for data in SETS:
        path = PAPERS_DIR / data["file"]
        parsed = parse_document(path.read_bytes(), path.name, "unseen", settings).parsed
        out[data["file"]] = split_document(parsed, "question", settings).chunks
    return out


def test_legco_eval_loads_the_set_with_its_labels():
    queries = load_queries([PAPERS_DIR])
    docs = document_files([PAPERS_DIR])
    assert len(docs) == len(SETS) >= 12
    assert {p.suffix for p in docs} == {".pdf", ".docx", ".txt"}
    assert all(q.files[0] in {d.name for d in docs} for q in queries)
    assert len(queries) >= 220
    direction = Counter(f"{q.lang}->{q.doc_lang}" for q in queries)
    style = Counter(q.style for q in queries)
    assert direction["en->zh"] >= 40 and direction["zh->en"] >= 20 and direction["en->en"] >= 20
    assert style["cantonese"] >= 40 and style["simplified"] >= 25 and style["written"] >= 40
    halves = Counter(q.split for q in queries)
    assert set(halves) == {"calibration", "test"} and abs(halves["calibration"] - halves["test"]) <= 2
    assert len(load_queries([PAPERS_DIR], "test")) == halves["test"]


def test_every_paper_has_8_to_20_pairs_and_every_pair_is_aimed_at():
    for data in SETS:
        ids = [p["qa_id"] for p in data["qa_pairs"]]
        assert 8 <= len(ids) <= 20, data["file"]
        assert {q["expected_qa_id"] for q in data["queries"]} == set(ids), data["file"]


def test_every_target_pair_is_in_its_paper_as_the_splitter_chunks_it(chunks):
    problems = [p for data in SETS for p in pair_problems(data, chunks[data["file"]])]
    assert problems == []


def test_query_labels_fit_their_text_and_the_split_is_balanced():
    assert [p for data in SETS for p in style_problems(data)] == []
    assert split_problems(SETS) == []


def test_the_checks_catch_a_wrong_target_and_wrong_labels(chunks):
    data = copy.deepcopy(SETS[0])
    data["queries"][0]["expected_qa_id"] = "Z9"
    data["qa_pairs"][1]["answer_first_sentence"] = "這句話不在文件之內。"
    problems = pair_problems(data, chunks[data["file"]])
    assert any("Z9" in p for p in problems) and any("first answer sentence" in p for p in problems)
    assert any("splitter pairs" in p for p in pair_problems(dict(data, qa_pairs=data["qa_pairs"][1:]),
                                                              chunks[data["file"]]))
    bad = copy.deepcopy(SETS[0])
    by_style = {q["style"]: q for q in bad["queries"]}
    by_style["simplified"]["query"] = "洪水橋第二期收地涉及多少公頃？"  # Traditional
    by_style["cantonese"]["query"] = "洪水橋站的通車日期為何？"  # written, no colloquial word
    by_style["english"]["direction"] = "en->en"
    found = style_problems(bad)
    assert len(found) == 3 and any("not Simplified" in p for p in found)
    lopsided = copy.deepcopy(SETS)
    for q in lopsided[0]["queries"]:
        q["split"] = "test"
    assert split_problems(lopsided)


def test_papers_dir_holds_only_the_set():
    names = {p.name for p in Path(PAPERS_DIR).iterdir()}
    assert names == {d["file"] for d in SETS} | {Path(d["file"]).stem + ".queries.json" for d in SETS}

"""Check the unseen set: every query's target pair is in its paper as the question splitter
chunks it, the splitter finds exactly the paper's pairs, the query files are what the
generator writes, the query styles are what they say, and the split is balanced.

    .cache/venv/bin/python -m bench.unseen.check          # ~1 min: parse → tables → split every paper

Exit code 0 when every check passes, 1 otherwise (each problem printed on its own line).
The pure checks (:func:`pair_problems`, :func:`style_problems`, :func:`split_problems`) are
also run by ``tests/unit/cli/test_eval_unseen.py``.
"""
from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

from bench.unseen.splits import HALVES

PAPERS_DIR = Path(__file__).resolve().parent / "papers"
# Cantonese colloquial words: a query labelled ``cantonese`` must use at least one.
CANTONESE = ("嘅", "咗", "唔", "冇", "咩", "點樣", "點算", "點搞", "點分", "點計", "點保護", "幾時", "幾多", "幾耐",
             "邊", "係咪", "係幾時", "呀", "㗎", "啲", "嗰", "喺", "俾", "有冇", "起樓", "搭車", "返", "要使")
_CJK = re.compile(r"[\u3400-\u9fff]")
# CJK Radicals Supplement characters that Chromium + Noto CJK write into the text layer instead of
# the ideograph (NFKC leaves this block alone, unlike the Kangxi radicals): 民 → ⺠ U+2EA0, 長 → ⻑
# U+2ED1, 青 → ⻘ U+2ED8 were seen in these papers; the others are the same kind. The em dash of
# 將軍澳—藍田隧道 comes out as U+2015 (horizontal bar).
PRINT_GLYPHS = str.maketrans({"⺠": "民", "⻑": "長", "⻘": "青", "⻄": "西", "⻝": "食", "⻩": "黃", "⻬": "齊",
                              "⻰": "龍", "⻮": "齒", "⻣": "骨", "⻤": "鬼", "⺟": "母", "―": "—"})


def squash(text: str) -> str:
    """NFKC (Kangxi radicals of browser-printed PDFs → ideographs), :data:`PRINT_GLYPHS`,
    whitespace removed: the form in which a printed sentence is compared with the extracted text."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).translate(PRINT_GLYPHS))


def load_sets(folder: Path = PAPERS_DIR) -> list[dict[str, Any]]:
    """Every ``*.queries.json`` of ``folder``, sorted by name."""
    return [json.loads(f.read_text(encoding="utf-8")) for f in sorted(folder.glob("*.queries.json"))]


def qa_chunks(chunks: list[Any]) -> dict[str, tuple[str, str, int | None]]:
    """Question id → (question text, chunk text of all its parts, page) of a ``ChunkSet``'s Q&A chunks."""
    out: dict[str, tuple[str, str, int | None]] = {}
    for c in chunks:
        m = c.metadata
        if m.get("chunk_kind") != "qa":
            continue
        qid = str(m["question_id"])
        prev = out.get(qid)
        out[qid] = (str(m.get("question_text", "")), (prev[1] + "\n" if prev else "") + c.text,
                    prev[2] if prev else c.page_number)
    return out


def pair_problems(data: dict[str, Any], chunks: list[Any]) -> list[str]:
    """What is wrong between one query file and its paper's chunks: the splitter's pair ids must
    be the file's ``qa_pairs`` in order; each pair's question and first answer sentence must be
    in its own chunk, and its ``answer_excerpt`` in no other chunk of the paper; each query's target,
    ``expected_question``, ``expected_text`` and ``page`` must match its chunk."""
    name = data["file"]
    found = qa_chunks(chunks)
    problems: list[str] = []
    ids = [p["qa_id"] for p in data["qa_pairs"]]
    if list(found) != ids:
        problems.append(f"{name}: splitter pairs {list(found)} != expected {ids}")
    for p in data["qa_pairs"]:
        got = found.get(p["qa_id"])
        if got is None:
            continue
        question, text, page = got
        if squash(p["question"]) not in squash(question):
            problems.append(f"{name} {p['qa_id']}: question not in the chunk's question_text")
        sentence = squash(p["answer_first_sentence"])
        if sentence not in squash(text):
            problems.append(f"{name} {p['qa_id']}: first answer sentence not in its chunk")
        excerpt = squash(p["answer_excerpt"])
        elsewhere = [k for k, v in found.items() if k != p["qa_id"] and excerpt in squash(v[1])]
        if excerpt not in squash(text) or elsewhere:
            problems.append(f"{name} {p['qa_id']}: answer excerpt not in its chunk or also in {elsewhere}")
        if p["page"] != page:
            problems.append(f"{name} {p['qa_id']}: page {p['page']} != chunk page {page}")
    pairs = {p["qa_id"]: p for p in data["qa_pairs"]}
    for query in data["queries"]:
        pair = pairs.get(query["expected_qa_id"])
        if pair is None:
            problems.append(f"{name} {query['id']}: target {query['expected_qa_id']} is not a pair of the paper")
            continue
        if (query["expected_question"], query["expected_text"], query["page"]) != (
                pair["question"], pair["answer_excerpt"], pair["page"]):
            problems.append(f"{name} {query['id']}: expected_question/expected_text/page differ from the pair")
    return problems


def style_problems(data: dict[str, Any]) -> list[str]:
    """Queries whose text does not fit their labels: ``english`` without CJK; ``simplified``
    unchanged by OpenCC ``t2s`` but changed by ``s2t``; ``cantonese`` with a colloquial word;
    ``written`` without one; ``direction`` = ``lang`` → the paper's ``lang``; no query equal
    to, inside or containing its pair's question."""
    import opencc

    t2s, s2t = opencc.OpenCC("t2s"), opencc.OpenCC("s2t")
    problems: list[str] = []
    for query in data["queries"]:
        text, style, tag = query["query"], query["style"], f"{data['file']} {query['id']}"
        if query["direction"] != f"{query['lang']}->{data['lang']}":
            problems.append(f"{tag}: direction {query['direction']} does not match the languages")
        if (style == "english") != (query["lang"] == "en"):
            problems.append(f"{tag}: style {style} with lang {query['lang']}")
        if style == "english" and _CJK.search(text):
            problems.append(f"{tag}: English query contains Chinese")
        if style != "english" and not _CJK.search(text):
            problems.append(f"{tag}: Chinese-style query without Chinese")
        if style == "simplified" and (t2s.convert(text) != text or s2t.convert(text) == text):
            problems.append(f"{tag}: not Simplified Chinese")
        if style in ("cantonese", "written") and t2s.convert(text) == text:
            problems.append(f"{tag}: {style} query reads as Simplified Chinese")
        colloquial = any(w in text for w in CANTONESE)
        if style == "cantonese" and not colloquial:
            problems.append(f"{tag}: Cantonese query without a colloquial word")
        if style == "written" and colloquial:
            problems.append(f"{tag}: written query with a colloquial word")
        q_text, question = squash(text), squash(query["expected_question"])
        if q_text in question or question in q_text:
            problems.append(f"{tag}: query repeats its question")
    return problems


def split_problems(sets: list[dict[str, Any]]) -> list[str]:
    """The halves must differ by at most one query in every (direction, style) stratum over the
    whole set, and by at most one per stratum within each paper."""
    problems: list[str] = []
    total: Counter[tuple[str, str, str]] = Counter()
    for data in sets:
        per: Counter[tuple[str, str, str]] = Counter()
        for query in data["queries"]:
            if query["split"] not in HALVES:
                problems.append(f"{data['file']} {query['id']}: split {query['split']!r}")
            per[(query["direction"], query["style"], query["split"])] += 1
        total.update(per)
        for d, s in {(d, s) for d, s, _ in per}:
            if abs(per[(d, s, HALVES[0])] - per[(d, s, HALVES[1])]) > 1:
                problems.append(f"{data['file']}: {d} {s} unbalanced between the halves")
    for d, s in {(d, s) for d, s, _ in total}:
        if abs(total[(d, s, HALVES[0])] - total[(d, s, HALVES[1])]) > 1:
            problems.append(f"{d} {s}: unbalanced between the halves over the set")
    return problems


def main() -> int:
    """Run every check through the in-process pipeline (parse → tables → split) and compare the
    committed query files with what the generator writes now."""
    from bench.unseen.content import PAPERS
    from bench.unseen.make_papers import query_file
    from bench.unseen.splits import assign_splits
    from cli.pipeline import split_file
    from shared.settings import Settings

    sets = {d["file"]: d for d in load_sets()}
    problems: list[str] = []
    if sorted(sets) != sorted(p.filename for p in PAPERS):
        problems.append(f"query files {sorted(sets)} != papers {sorted(p.filename for p in PAPERS)}")
    splits = assign_splits(PAPERS)
    for paper in PAPERS:
        data = sets.get(paper.filename)
        if data is None:
            continue
        cs, _ = split_file(PAPERS_DIR / paper.filename, "question", Settings())
        if cs.strategy_used != "question":
            problems.append(f"{paper.filename}: strategy used {cs.strategy_used}")
        problems += pair_problems(data, cs.chunks)
        problems += style_problems(data)
        pages = {p["qa_id"]: p["page"] for p in data["qa_pairs"]}
        if query_file(paper, pages, splits[paper.stem]) != data:
            problems.append(f"{paper.filename}: the committed query file differs from the generator's")
        print(f"{paper.filename}: {len(qa_chunks(cs.chunks))} pairs, {len(data['queries'])} queries")
    problems += split_problems(list(sets.values()))
    for p in problems:
        print(f"PROBLEM {p}")
    n = sum(len(d["queries"]) for d in sets.values())
    print(f"{len(sets)} papers, {n} queries: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

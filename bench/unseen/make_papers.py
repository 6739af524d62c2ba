"""Generate the unseen evaluation set: the briefing papers of ``bench/unseen/content`` written
into ``bench/unseen/papers`` (PDF/DOCX/TXT) with one ``<paper>.queries.json`` each.

Run once from the repository root (the generated files are committed and kept, so the set is
fixed; a new run rewrites them and Chromium stamps new PDF dates, which changes the SHA-256
that ``legco eval`` uses to reuse an indexed document):

    .cache/venv/bin/python -m bench.unseen.make_papers [--only U01_洪水橋厦村新發展區] [--queries-only]

``--queries-only`` rewrites the query files from the papers already written (their bytes, and so
their SHA-256, stay as committed).

Each query file carries, besides ``file``/``lang``/``queries`` (what ``legco eval`` reads):
``title``, ``format``, ``qa_style`` and ``qa_pairs`` (every pair: ``qa_id``, ``topic_section``,
``question``, ``answer_first_sentence``, ``answer_excerpt`` (the first sentences, at least
20 characters: unique to the answer), ``page`` of the question for a PDF, from the pipeline's
own chunking of the written file). Each query: ``id``, ``query``, ``expected_qa_id``, ``lang``,
``direction`` (``zh->en`` = Chinese query, English paper), ``style``, ``split``, ``page``,
``expected_question`` and ``expected_text`` (the pair's ``answer_excerpt``).
"""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from bench.unseen.content import PAPERS
from bench.unseen.model import Paper
from bench.unseen.render import write
from bench.unseen.splits import assign_splits

HERE = Path(__file__).resolve().parent
OUT = HERE / "papers"
_SENTENCE = re.compile(r"^.*?[。！？](?=.)|^.*?[.?!](?= )")
EXCERPT_MIN_CHARS = 20  # non-space characters: "不會。" or "Yes." alone would match other answers


def first_sentence(paragraph: str) -> str:
    """The first sentence of an answer paragraph (Chinese ends at 。！？, English at . ? ! + space;
    the whole paragraph when it has no such end)."""
    m = _SENTENCE.match(paragraph)
    return m.group(0) if m else paragraph


def excerpt(paragraph: str) -> str:
    """The first sentences of an answer paragraph, as many as make :data:`EXCERPT_MIN_CHARS`
    non-space characters (or the whole paragraph): the text that identifies the answer."""
    out = ""
    while paragraph and len(re.sub(r"\s+", "", out)) < EXCERPT_MIN_CHARS:
        sentence = first_sentence(paragraph)
        out, paragraph = out + sentence, paragraph[len(sentence):]
    return out.strip()


def question_pages(path: Path) -> dict[str, int | None]:
    """Question id → page of its question (``None`` for DOCX/TXT), from the in-process pipeline."""
    from cli.pipeline import split_file
    from shared.settings import Settings

    cs, _ = split_file(path, "question", Settings())
    return {str(c.metadata["question_id"]): c.page_number for c in cs.chunks
            if c.metadata.get("chunk_kind") == "qa" and c.metadata.get("part", 1) == 1}


def query_file(paper: Paper, pages: dict[str, int | None], splits: dict[int, str]) -> dict[str, object]:
    """The ``<paper>.queries.json`` content."""
    pairs = {item.qid: (topic, item) for topic, item in paper.pairs()}
    queries = []
    for n, query in enumerate(paper.queries):
        _, item = pairs[query.qid]
        queries.append({"id": f"{paper.stem[:3]}-{n + 1:02d}", "query": query.text, "expected_qa_id": query.qid,
                        "lang": query.lang, "direction": f"{query.lang}->{paper.lang}", "style": query.style,
                        "split": splits[n], "page": pages.get(query.qid), "expected_question": item.question,
                        "expected_text": excerpt(item.answer[0])})
    return {"file": paper.filename, "lang": paper.lang, "title": f"{paper.title_zh} {paper.title_en}",
            "format": paper.fmt, "qa_style": paper.qa_style,
            "qa_pairs": [{"qa_id": item.qid, "topic_section": topic, "question": item.question,
                          "answer_first_sentence": first_sentence(item.answer[0]),
                          "answer_excerpt": excerpt(item.answer[0]), "page": pages.get(item.qid)}
                         for topic, item in paper.pairs()],
            "queries": queries}


def main() -> None:
    """Write every paper (or ``--only`` the named ones) and its query file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None, help="paper stems to write (default: all)")
    ap.add_argument("--queries-only", action="store_true", help="keep the papers, rewrite the query files")
    a = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    splits = assign_splits(PAPERS)
    for paper in PAPERS:
        if a.only and paper.stem not in a.only:
            continue
        path = OUT / paper.filename if a.queries_only else write(paper, OUT)
        pages = question_pages(path)
        missing = [item.qid for _, item in paper.pairs() if item.qid not in pages]
        if missing or len(pages) != len(paper.pairs()):
            raise SystemExit(f"{paper.filename}: the splitter found {sorted(pages)}, expected "
                             f"{[i.qid for _, i in paper.pairs()]}")
        data = query_file(paper, pages, splits[paper.stem])
        (OUT / f"{paper.stem}.queries.json").write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n",
                                                        encoding="utf-8")
        print(f"{paper.filename}: {len(paper.pairs())} pairs, {len(paper.queries)} queries")


if __name__ == "__main__":
    main()

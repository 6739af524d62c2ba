"""The direct answer: taken from the best source, without a language model (pure; no I/O).

* Best source a Q&A pair (question strategy, ``chunk_kind="qa"``): its prepared answer,
  verbatim — the chunk text after its question (a chunk also holds the section title and
  topic header printed above the question, and the ``答 A1：`` / ``A1.`` marker) — reflowed
  (``reflow``) and cut into text, internal notes and follow-ups (``notes``).
* Otherwise (a token chunk, a section of a question-strategy paper): the 2–4 sentences around
  the question's terms (``sentences``), with any part of an internal note still marked as one.

The other Q&A pairs among the sources are *related questions*: where they are, not their answers.
"""
from __future__ import annotations

import re

from services.query.notes import speaking_note, split_notes
from services.query.reflow import reflow
from services.query.sentences import Unit, best_window, join_units, query_terms, units_of
from shared.api import AnswerBlock, DirectAnswer, RelatedQuestion, Source

_ANSWER_MARKER = re.compile(r"^\s*(?:答\s*[A-Z]?\d*\s*[：:︰]|A\d{1,3}\s*[.．:：︰]|Answer\s*[:：])\s*")


def is_qa(source: Source) -> bool:
    """A Q&A pair (``to_source`` sets ``question_id`` and ``answer`` only for Q&A chunks)."""
    return source.question_id is not None and source.answer is not None


def prepared_answer(text: str, question_text: str | None) -> str:
    """The answer part of a Q&A chunk's ``text``: after the question (found ignoring whitespace,
    as PDF line breaks fall anywhere in it) and the answer marker. The whole text when the
    question is not found in it."""
    start = 0
    q = "".join((question_text or "").split())
    if q:
        compact, where = [], []
        for n, ch in enumerate(text):
            if not ch.isspace():
                compact.append(ch)
                where.append(n)
        at = "".join(compact).find(q)
        if at >= 0:
            start = where[at + len(q) - 1] + 1
    return _ANSWER_MARKER.sub("", text[start:], count=1).strip()


def _windowed_blocks(blocks: list[AnswerBlock], wanted: frozenset[str]) -> list[AnswerBlock]:
    """The sentence window over ``blocks``' paragraphs, as blocks of the same kinds."""
    units: list[Unit] = []
    owner: list[int] = []
    para = 0
    for b_idx, b in enumerate(blocks):
        paras = b.text.split("\n\n")
        for u in units_of(paras):
            units.append(Unit(u.text, para + u.paragraph, u.terms))
            owner.append(b_idx)
        para += len(paras)
    start, end = best_window(units, wanted)
    out: list[AnswerBlock] = []
    n = start
    while n < end:
        b_idx, m = owner[n], n
        while m < end and owner[m] == b_idx:
            m += 1
        b = blocks[b_idx]
        out.append(AnswerBlock(kind=b.kind, label=b.label, question=b.question, text=join_units(units[n:m])))
        n = m
    return out


def _blocks_text(blocks: list[AnswerBlock]) -> str:
    """Blocks back to one markdown text, notes in their printed brackets."""
    parts = []
    for b in blocks:
        if b.kind == "text":
            parts.append(b.text)
        elif b.kind == "internal":
            parts.append(f"[{b.label}：{b.text}]")
        else:
            parts.append("\n\n".join(x for x in [f"[{b.label}：{b.question or ''}]", b.text] if x.strip("[]：")))
    return "\n\n".join(parts)


def direct_answer(question: str, source: Source, text: str) -> DirectAnswer:
    """The direct answer from ``source`` (the best one) with its full stored ``text``."""
    if is_qa(source):
        body = reflow(prepared_answer(text, source.question_text))
        blocks = split_notes(body)
    else:
        blocks = _windowed_blocks(split_notes(reflow(text)), query_terms(question, source.matched_terms))
        body = _blocks_text(blocks)
    return DirectAnswer(kind="qa" if is_qa(source) else "passage", chunk_id=source.chunk_id,
                        document_id=source.document_id, filename=source.filename, page_number=source.page_number,
                        pdf_url=source.pdf_url, question_id=source.question_id, question_text=source.question_text,
                        topic=source.topic_section, text=body, blocks=blocks, speaking_note=speaking_note(blocks))


def related_questions(sources: list[Source], best: Source | None) -> list[RelatedQuestion]:
    """The Q&A pairs of ``sources`` other than ``best``, in rank order."""
    return [RelatedQuestion(chunk_id=s.chunk_id, question_id=s.question_id, question_text=s.question_text,
                            topic=s.topic_section, document_id=s.document_id, filename=s.filename,
                            page_number=s.page_number, pdf_url=s.pdf_url, score=s.score)
            for s in sources if is_qa(s) and (best is None or s.chunk_id != best.chunk_id)]

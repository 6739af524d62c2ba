"""Sentences of a passage and the few around a question's match (pure; no I/O).

A token chunk is ~1000 tokens — a page or more. The direct answer from one is the best
``MIN_SENTENCES``–``MAX_SENTENCES`` consecutive sentences: the sentence that shares most of the
question's terms, widened by its better neighbour until the window holds at least
``MIN_SENTENCES`` and, while neighbours still share a term and the window stays under
``MAX_CHARS``, up to ``MAX_SENTENCES``.

Sentences end at ``。！？；`` (and their half-width forms when followed by a space or the end)
and at English ``. ! ?`` followed by a space, with closing quotes and brackets kept on the
sentence; ``No. 8``, ``e.g.``, ``Cap. 282``, ``21.8`` do not end one. A markdown table is one unit,
as is each heading or list item (a paragraph of ``reflow``). Terms: CJK character bigrams and
lower-cased Latin words / figures of the question (``shared.textnorm`` search form on both sides,
so Simplified matches Traditional), plus the source's ``matched_terms`` (its dictionary
translations, so an English question finds its Chinese sentence).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from services.query.reflow import is_table_row
from shared.textnorm import normalize_for_search

MIN_SENTENCES = 2
MAX_SENTENCES = 4
MAX_CHARS = 600
"""A window is widened past ``MIN_SENTENCES`` only while it stays under this many characters."""
HEADING_CHARS = 30

_ABBREVIATIONS = ("no.", "nos.", "e.g.", "i.e.", "cap.", "para.", "paras.", "mr.", "ms.", "mrs.", "dr.",
                  "vs.", "etc.", "art.", "s.", "ss.", "fig.", "p.", "pp.", "ltd.", "co.", "hon.")
_END = re.compile(r"[。！？；]+[」』）”’\])]*|[.!?;]+[\"'”’)\]]*(?=\s|$)")
_WORD = re.compile(r"[a-z0-9][a-z0-9'\-]*")
_STOP = frozenset(("the", "a", "an", "of", "to", "in", "on", "for", "and", "or", "is", "are", "was", "were",
                   "be", "by", "with", "what", "how", "much", "many", "does", "do", "did", "has", "have",
                   "will", "would", "can", "could", "which", "who", "when", "where", "why", "that", "this",
                   "it", "as", "at", "from", "any", "there", "their", "its"))


@dataclass(frozen=True)
class Unit:
    """One sentence (or table, heading, list item) of a passage: its text as printed, the
    paragraph it belongs to (index in the passage), and its text's terms."""

    text: str
    paragraph: int
    terms: frozenset[str]


def split_sentences(paragraph: str) -> list[str]:
    """``paragraph``'s sentences; their concatenation is ``paragraph`` (spaces stay with the
    sentence before them). A table or a paragraph without an end mark is one sentence."""
    if any(is_table_row(ln) for ln in paragraph.split("\n")):
        return [paragraph]
    out, start = [], 0
    for m in _END.finditer(paragraph):
        end = m.end()
        if paragraph[m.start()] == ".":
            word = paragraph[:end].rsplit(None, 1)[-1].lower()
            digits_after = end < len(paragraph) and paragraph[end:end + 1].isdigit()
            if word in _ABBREVIATIONS or digits_after or re.fullmatch(r"[a-z]\.", word):
                continue
        while end < len(paragraph) and paragraph[end] == " ":
            end += 1
        if paragraph[start:end].strip():
            out.append(paragraph[start:end])
            start = end
    if paragraph[start:].strip():
        out.append(paragraph[start:])
    return out or [paragraph]


@lru_cache(maxsize=8192)
def terms_of(text: str) -> frozenset[str]:
    """Search terms of ``text``: CJK character bigrams (single characters of one-character runs)
    and lower-cased Latin words and figures other than stop words, in the search form. Cached by
    text: the direct answer takes the terms of every sentence of the best source, and putting
    each in search form (OpenCC) was a fifth of a question's CPU time; the same chunks come back
    for many questions."""
    norm = normalize_for_search(text).lower()
    terms: set[str] = set()
    for run in re.findall(r"[\u3400-\u9fff\uf900-\ufaff]+", norm):
        if len(run) > 1:
            terms.update(run[i:i + 2] for i in range(len(run) - 1))
        else:
            terms.add(run)
    terms.update(w for w in _WORD.findall(norm) if w not in _STOP and len(w) > 1)
    return frozenset(terms)


def query_terms(question: str, matched_terms: list[str]) -> frozenset[str]:
    """The terms to look for: the question's and those of the source's ``matched_terms``
    (``"特惠 (ex gratia)"`` gives both sides)."""
    extra = " ".join(t.replace("(", " ").replace(")", " ") for t in matched_terms)
    return terms_of(question) | terms_of(extra)


def units_of(paragraphs: list[str]) -> list[Unit]:
    """Every sentence of ``paragraphs``, in order, with its terms."""
    return [Unit(s, n, terms_of(s)) for n, p in enumerate(paragraphs) for s in split_sentences(p)]


def is_heading(units: list[Unit], n: int) -> bool:
    """``units[n]`` is a heading: a paragraph of its own, short (≤ ``HEADING_CHARS``), without
    an end mark and not a table row (``試場安排``, ``Chapter 3``)."""
    u = units[n]
    alone = all(v.paragraph != u.paragraph for m, v in enumerate(units[max(0, n - 1):n + 2], start=max(0, n - 1))
                if m != n)
    text = u.text.strip()
    return alone and len(text) <= HEADING_CHARS and not _END.search(text) and not is_table_row(text)


def best_window(units: list[Unit], wanted: frozenset[str]) -> tuple[int, int]:
    """``(start, end)`` (``units[start:end]``) of the window around the sentence sharing most of
    ``wanted`` (the first such; the first sentence when none shares a term). Headings are not
    sentences: never the centre, not counted, but the one just before the window is kept as its
    context."""
    if not units:
        return 0, 0
    idx = [n for n in range(len(units)) if not is_heading(units, n)] or list(range(len(units)))
    hits = [len(units[n].terms & wanted) for n in idx]
    best = max(range(len(idx)), key=lambda n: (hits[n], -n))
    start, end = best, best + 1
    chars = len(units[idx[best]].text)
    while end - start < MAX_SENTENCES:
        before = hits[start - 1] if start > 0 else -1
        after = hits[end] if end < len(idx) else -1
        if max(before, after) < 0:
            break
        grow_before = before > after or (before == after and before > 0)  # ties: the context before
        extra = len(units[idx[start - 1 if grow_before else end]].text)
        if end - start >= MIN_SENTENCES and (max(before, after) == 0 or chars + extra > MAX_CHARS):
            break
        if grow_before:
            start -= 1
        else:
            end += 1
        chars += extra
    first, last = idx[start], idx[end - 1] + 1
    if first > 0 and is_heading(units, first - 1):
        first -= 1
    return first, last


def join_units(units: list[Unit]) -> str:
    """Units back to markdown: sentences of one paragraph run on, paragraphs separated by a
    blank line."""
    out: list[str] = []
    last = None
    for u in units:
        if last is not None and u.paragraph == last:
            out[-1] += u.text
        else:
            out.append(u.text)
        last = u.paragraph
    return "\n\n".join(x.strip() for x in out)


def sentence_window(paragraphs: list[str], wanted: frozenset[str]) -> str:
    """The best window of ``paragraphs`` (reflowed) for the terms ``wanted`` as markdown."""
    units = units_of(paragraphs)
    start, end = best_window(units, wanted)
    return join_units(units[start:end])

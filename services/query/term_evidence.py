"""Keyword evidence for the "not covered" decision (pure; no I/O): which of the question's
content terms a passage contains, in either language, each term weighted by how rare it is in
the caller's papers.

A question the papers do not answer still finds passages sharing its generic words
(``government``, ``budget``, ``政府``) — the keyword bonus of ranking is normalised per query, so
such a passage gets the full bonus. What it lacks is the question's *specific* terms
(``fireworks``, ``白海豚``). So each content term counts with its BM25 inverse document frequency
in the scope (Lucene's ``ln(1 + (N − df + 0.5) / (df + 0.5))``, ``N`` chunks, ``df`` the chunks
containing the term in any of its forms): a word every paper uses weighs ~1, a word in one chunk
~5, a word in none the most (``ln(1 + 2N + 1)``, ~6.2 for 249 chunks). A passage's *term share* is
the weight of the terms it contains over the weight of all of them (0..1).

The content terms are those of ``keyword_index.unknown_terms``: an English question's words
(stop words out, ``ex-gratia`` one term), a Chinese question's dictionary words of two or more
characters. A term's forms are its own tokens (stems of an English word, bigrams of a Chinese
word) and its CC-CEDICT translations that occur in the index (``lexicon``), so an English
question counts ``特惠`` in a Chinese answer as its ``ex-gratia``.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass

from services.query.keyword_tokens import cjk_bigrams, query_words, stem
from services.query.lexicon import Lexicon
from shared.lang import detect_language

Form = tuple[str, ...]
"""Index tokens that must all occur in a chunk for a term to count as present in it."""


@dataclass(frozen=True)
class QueryTerm:
    """One content term of a question: ``term`` as written (keyword form), ``forms`` (any one of
    them present = the term is present) and ``weight`` (its inverse document frequency, > 0)."""

    term: str
    forms: tuple[Form, ...]
    weight: float


def term_forms(lexicon: Lexicon, query: str, vocab: Container[str]) -> list[tuple[str, tuple[Form, ...]]]:
    """The content terms of ``query`` (keyword form, ``keyword_tokens.query_search_form``) with
    their forms: own tokens first, then the translations found in ``vocab`` (an English word's
    Chinese words: the targets of every dictionary phrase that contains it; a Chinese word's
    English stem phrases)."""
    if detect_language(query) == "en":
        sets = lexicon.english_to_chinese(query, vocab)
        out: list[tuple[str, tuple[Form, ...]]] = []
        for w in query_words(query):
            parts = w.split()
            forms = [tuple(stem(p) for p in parts)]
            forms += [tuple(cjk_bigrams(t)) for s in sets if set(parts) & set(s.source.split())
                      for t in sorted(s.targets)]
            out.append((w, tuple(dict.fromkeys(f for f in forms if f))))
        return out
    return [(s.source, tuple(dict.fromkeys(f for f in [tuple(cjk_bigrams(s.source))]
                                           + [tuple(t.split()) for t in sorted(s.targets)] if f)))
            for s in lexicon.chinese_to_english(query, vocab)]


def inverse_document_frequency(df: int, n: int) -> float:
    """BM25's (Lucene) ``ln(1 + (n − df + 0.5) / (df + 0.5))`` for a term in ``df`` of ``n`` chunks."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def weigh_terms(terms: Iterable[tuple[str, tuple[Form, ...]]], document_frequency: Callable[[tuple[Form, ...]], int],
                n: int) -> list[QueryTerm]:
    """``terms`` (from :func:`term_forms`) with their weights; ``document_frequency(forms)``: the
    chunks of the scope containing any of the forms, ``n``: the chunks of the scope."""
    return [QueryTerm(t, forms, inverse_document_frequency(document_frequency(forms), n)) for t, forms in terms]


def term_share(terms: list[QueryTerm], tokens: Container[str]) -> float:
    """Weight of the ``terms`` present in a passage (``tokens``: its index tokens,
    ``keyword_tokens.document_tokens``) over the weight of all of them; 0.0 without terms (no
    keyword evidence either way)."""
    total = sum(t.weight for t in terms)
    if total <= 0:
        return 0.0
    found = sum(t.weight for t in terms if any(all(tok in tokens for tok in f) for f in t.forms))
    return found / total

"""Keyword tokens for the BM25 index and keyword queries.

Chinese has no spaces, so Chinese text is indexed as overlapping character bigrams (the usual
CJK n-gram indexing of Lucene's CJKAnalyzer and of Elasticsearch's ``cjk_bigram`` filter); a
run of a single CJK character is kept as a unigram. Latin text is lower-cased, stop words are
dropped and words are reduced to their Snowball (Porter 2) English stem, so ``compensation``
and ``compensate`` meet. Texts are expected in the search form (``normalize_for_search``:
NFKC, Hong Kong characters mapped, Traditional script).
"""
from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
LATIN_WORD = re.compile(r"[a-z]+")

# Function words and question words: they carry no topic and would match everywhere.
STOP_WORDS = frozenset("""
a an the of to in on for and or by with at from as is are was were be been being do does did
will would can could should may might must shall what which who whom whose where when why how
whether if than then that this these those there here it its they them their he she his her we
our you your i me my not no any some all each every other such only own same so too very just
also into about over under after before during up down out off again further once more most
much many few both either neither nor but because until while per via etc eg ie s t get got
have has had having new please tell know
""".split())

_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball English stem of a lower-case word (``"landowners"`` → ``"landown"``)."""
    return _STEMMER.stemWord(word)


def english_words(text: str) -> list[str]:
    """Lower-case Latin words of ``text`` that are not stop words (one-letter words dropped)."""
    return [w for w in LATIN_WORD.findall(text.lower()) if len(w) > 1 and w not in STOP_WORDS]


def english_stems(text: str) -> list[str]:
    """Stems of :func:`english_words` in text order (repeats kept, as BM25 counts them)."""
    return [stem(w) for w in english_words(text)]


def cjk_bigrams(text: str) -> list[str]:
    """Overlapping character bigrams of every CJK run of ``text``; a one-character run is
    kept as a unigram (``"棕地作業"`` → ``["棕地", "地作", "作業"]``)."""
    out: list[str] = []
    for run in CJK_RUN.findall(text):
        if len(run) == 1:
            out.append(run)
        out.extend(run[i:i + 2] for i in range(len(run) - 1))
    return out


def document_tokens(text: str) -> list[str]:
    """Index tokens of a chunk's search text: CJK bigrams, then English stems."""
    return cjk_bigrams(text) + english_stems(text)


def covered_runs(query: str, matched: set[str]) -> list[str]:
    """Maximal substrings of the CJK runs of ``query`` covered by the ``matched`` bigrams,
    two characters or longer (``"特惠津貼點計"`` with 特惠, 惠津, 津貼 matched → ``["特惠津貼"]``)."""
    out: list[str] = []
    for run in CJK_RUN.findall(query):
        covered = [False] * len(run)
        for i in range(len(run) - 1):
            if run[i:i + 2] in matched:
                covered[i] = covered[i + 1] = True
        start = None
        for i, c in enumerate(covered + [False]):
            if c and start is None:
                start = i
            elif not c and start is not None:
                if i - start >= 2:
                    out.append(run[start:i])
                start = None
    return list(dict.fromkeys(out))

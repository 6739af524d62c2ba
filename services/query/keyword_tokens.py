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

from shared.textnorm import normalize_for_search

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs (Ext. A, unified, compatibility)
CJK_RUN = re.compile(f"[{HAN}]+")
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
""".split())  # noqa: SIM905 - a list of 130 words reads and diffs better as text

_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball English stem of a lower-case word (``"landowners"`` → ``"landown"``)."""
    stemmed: str = _STEMMER.stemWord(word)
    return stemmed


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


_CJK_LINE_BREAK = re.compile(f"(?<=[{HAN}])[ \t]*\n[ \t]*(?=[{HAN}])")
_PHRASE_WORD = re.compile(r"[a-z]+(?:-[a-z]+)+|[a-z]+")


def join_cjk_lines(text: str) -> str:
    """Line breaks between two CJK characters removed: a PDF wraps Chinese text mid-word
    (``政府土\n地`` is ``政府土地``), which would cut the word's bigram."""
    return _CJK_LINE_BREAK.sub("", text)


def query_search_form(question: str) -> str:
    """The question in search form with the user's own spaces kept: each whitespace-separated
    part is normalised (``normalize_for_search``) on its own, so ``"棕地 補償"`` does not make the
    cross-word bigram 地補 (for chunk text the opposite holds: spaces between Chinese characters
    are extraction noise and are removed)."""
    return " ".join(normalize_for_search(p) for p in question.split())


def document_tokens(text: str) -> list[str]:
    """Index tokens of a chunk's search text: CJK bigrams (line wraps inside Chinese text
    joined first), then English stems."""
    return cjk_bigrams(join_cjk_lines(text)) + english_stems(text)


def query_words(text: str) -> list[str]:
    """The query's own English terms: stop words dropped, hyphenated compounds kept as one
    term with its parts separated by spaces (``"ex-gratia"`` → ``"ex gratia"``)."""
    out = []
    for w in _PHRASE_WORD.findall(text.lower()):
        parts = [p for p in w.split("-") if p]
        if len(parts) == 1 and (len(w) < 2 or w in STOP_WORDS):
            continue
        out.append(" ".join(parts))
    return list(dict.fromkeys(out))


def covered_runs(query: str, matched: set[str], text: str) -> list[str]:
    """Display terms for the query's own Chinese: maximal chains of overlapping ``matched``
    bigrams in the CJK runs of ``query``, kept only where they occur in ``text`` as written;
    a chain that does not is cut into the longest pieces that do (``"特惠津貼點計"`` with 特惠,
    惠津, 津貼 matched → ``["特惠津貼"]`` if the chunk contains 特惠津貼)."""
    out: list[str] = []
    for run in CJK_RUN.findall(query):
        i = 0
        while i < len(run) - 1:
            if run[i:i + 2] not in matched:
                i += 1
                continue
            j = i
            while j + 1 < len(run) - 1 and run[j + 1:j + 3] in matched:
                j += 1
            out.extend(_present_pieces(run[i:j + 2], text))
            i = j + 1
    return list(dict.fromkeys(out))


def _present_pieces(chain: str, text: str) -> list[str]:
    """Greedy longest substrings (≥ 2 characters) of ``chain`` that occur in ``text``."""
    pieces, i = [], 0
    while i < len(chain) - 1:
        for end in range(len(chain), i + 1, -1):
            if chain[i:end] in text:
                pieces.append(chain[i:end])
                i = end
                break
        else:
            i += 1
    return pieces

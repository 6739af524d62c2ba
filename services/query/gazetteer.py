"""Entity match: the district or programme a question names, matched against the name of each
document — a gazetteer learned from the documents' own title lines, no list of places in code.

A document's *name* is the title region of its first chunk (its first ``TITLE_LINES`` lines
of at most ``TITLE_LINE_CHARS`` characters: the paper stamp, the bilingual title line such as
``洪水橋／厦村新發展區 Hung Shui Kiu/Ha Tsuen New Development Area`` and the meeting line) plus the
short forms the first chunk introduces in brackets (``（洪水橋新發展區）``, ``(NTN)``). Its name
terms are the CJK bigrams, English stems and numbers of that text, and the initials of every run
of two or more capitalised English words in it (``Hung Shui Kiu`` → ``hsk``, ``Tseung Kwan O
Area`` → ``tko``, ``San Tin Technopole`` → ``stt``): how officers abbreviate districts.

A question's entity score for a document is the summed IDF of the name terms they share (IDF
over the distinct document names, so 新發展區 or "Development", in many titles, weigh little and
洪水橋 or HSK, in one, much); ``entity_shares`` divides by the best document's score, so the
paper the question names scores 1 and a neighbour naming another district 0. A question that
names no document (best score below ``min_named`` unique-term IDFs) gives every document 0.
"""
from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from services.query.keyword_tokens import HAN, cjk_bigrams, english_words, join_cjk_lines, stem
from services.query.postings import Growable, TermTable
from shared.textnorm import normalize_for_search

TITLE_LINES = 4
TITLE_LINE_CHARS = 100
ALIAS_SCAN_CHARS = 800
_ALIAS = re.compile(r"[（(]([^（）()\n]{2,12})[）)]")
_HAS_NAME = re.compile(f"[A-Za-z{HAN}]")
_NUMBER = re.compile(r"(?<![0-9])[0-9]{2,4}(?![0-9])")
_YEAR = re.compile(r"(?<![0-9])(19|20)[0-9]{2}(?![0-9])")
_CJK = re.compile(f"[{HAN}]")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# A capitalised run is broken by anything that is not a space between words.
_RUN_BREAK = re.compile(r"[^A-Za-z' -]")


def title_region(first_chunk: str) -> str:
    """The first ``TITLE_LINES`` non-empty lines of a document's first chunk, up to the first line
    longer than ``TITLE_LINE_CHARS`` (body text), NFKC-normalised, without the lines holding a
    year (the paper stamp ``立法會CB(1)412/2025(03)號文件`` and the meeting line name the
    committee and date, not the subject)."""
    lines: list[str] = []
    for line in unicodedata.normalize("NFKC", first_chunk).splitlines():
        line = line.strip()
        if not line:
            continue
        if len(line) > TITLE_LINE_CHARS or len(lines) == TITLE_LINES:
            break
        lines.append(line)
    return "\n".join(line for line in lines if not _YEAR.search(line))


def aliases(first_chunk: str) -> list[str]:
    """Short forms introduced in brackets in the first ``ALIAS_SCAN_CHARS`` characters
    (``（洪水橋新發展區）``, ``(NTN)``); brackets holding only digits or symbols are left out."""
    text = unicodedata.normalize("NFKC", first_chunk[:ALIAS_SCAN_CHARS])
    return [a.strip() for a in _ALIAS.findall(text) if _HAS_NAME.search(a)]


def initialisms(text: str) -> dict[str, frozenset[str]]:
    """Lower-case initials of every contiguous run of two or more capitalised English words,
    each with the stems of its words of two or more letters (``"Hung Shui Kiu/Ha Tsuen"`` → hsk,
    hs, sk, ht; a one-letter word such as the O of Tseung Kwan O counts for the initials).
    Lower-case words, punctuation and CJK break runs."""
    out: dict[str, set[str]] = {}
    for segment in _RUN_BREAK.split(text.replace("\n", " ")):
        run: list[str] = []
        for w in [*_WORD.findall(segment), ""]:
            if w[:1].isupper():
                run.append(w)
                continue
            for i in range(len(run)):
                for j in range(i + 2, len(run) + 1):
                    words = run[i:j]
                    out.setdefault("".join(x[0].lower() for x in words), set()).update(
                        stem(x.lower()) for x in words if len(x) >= 2)
            run = []
    return {k: frozenset(v) for k, v in out.items()}


def name_terms(text: str, capitalised_only: bool = False) -> set[str]:
    """Match terms of a name or question: CJK bigrams, English stems, abbreviations written in
    capitals (lower-cased, unstemmed: ``YLS`` → ``yls``) and numbers of 2–4 digits (in search
    form: Simplified → Traditional, NFKC). ``capitalised_only``: English stems of capitalised
    words only (a question names a place as ``San Tin``, not as "common" or "long-term")."""
    form = join_cjk_lines(normalize_for_search(text))
    raw = _WORD.findall(unicodedata.normalize("NFKC", text))
    capitals = {w.lower() for w in raw if len(w) >= 2 and w.isupper()}
    words = english_words(" ".join(w for w in raw if w[:1].isupper())) if capitalised_only else english_words(form)
    return set(cjk_bigrams(form)) | {stem(w) for w in words} | capitals | set(_NUMBER.findall(form))


@dataclass(frozen=True)
class DocumentName:
    """A document's name terms and, for each initialism among them, the stems it abbreviates."""

    terms: frozenset[str]
    parts: Mapping[str, frozenset[str]]


def document_name_terms(first_chunk: str) -> DocumentName:
    """A document's name from its first chunk (``title_region`` + ``aliases`` + ``initialisms``
    of both)."""
    terms: set[str] = set()
    parts: dict[str, frozenset[str]] = {}
    for n in [title_region(first_chunk), *aliases(first_chunk)]:
        abbreviations = initialisms(n)
        terms |= name_terms(n) | abbreviations.keys()
        for k, v in abbreviations.items():
            parts[k] = parts.get(k, frozenset()) | v
    return DocumentName(frozenset(terms), parts)


def _outside(ids: np.ndarray, key_ids: np.ndarray) -> np.ndarray:
    """The ``ids`` that are not among ``key_ids`` (a name's few terms)."""
    return ids[~np.isin(ids, key_ids)] if len(key_ids) else ids


def _is_cjk(term: str) -> bool:
    return bool(_CJK.match(term))


@dataclass(frozen=True)
class EntityMatch:
    """A question's entity score for one document: ``score`` (summed IDF of the shared name
    terms), ``share`` (``score`` / the best document's; 0..1), ``terms`` (shared terms, by
    weight) and ``named`` (the question names some document: the best score reaches
    ``min_named``; a document with ``named`` and ``share`` 0 is one the question does not name)."""

    score: float
    share: float
    terms: tuple[str, ...]
    named: bool = False


@dataclass
class _Group:
    """Documents with one name (renditions of one paper): the name's term ids (sorted), the body
    terms some of its documents hold (sorted ids) with how many hold each, and how many of the
    group's terms (body ∪ name) are Chinese / not."""

    key_ids: np.ndarray
    docs: dict[str, None]
    ids: np.ndarray
    counts: np.ndarray
    cjk: int = 0
    latin: int = 0


_EMPTY_IDS = np.zeros(0, dtype=np.int32)


class Gazetteer:
    """Document id → name terms, weighted by IDF over the distinct documents; kept up to date
    document by document (:meth:`add`, :meth:`remove`), each change costing the document's terms,
    never the collection's.

    A name term's document frequency counts the documents whose name *or text* holds it
    (``bodies``), so a word of a title that every paper uses in its text (補償, 污水, "cost")
    weighs little: a district is named in the title of its paper and in few others' text. A
    term no text holds (an initialism such as ``hsk``) weighs as a term of one name. IDF is per
    script: an English word's frequency is out of the documents with English text (a Chinese
    paper's bilingual title line counts), so "development" is as common as 發展. Renditions of
    one paper (documents with the same name terms) count once. Weights are computed when a
    question asks for them (:meth:`idf`), from counts kept per term.

    Args:
        documents: document id → its name (``document_name_terms``); an initialism's weight is
            capped by the weight of its rarest word (``nda`` of "New Development Area" weighs as
            little as "development", ``hsk`` of "Hung Shui Kiu" as much as "kiu").
        bodies: document id → the index terms of its text (CJK bigrams, English stems;
            ``None``: document frequency over the names only).
        terms: the term table to share (the keyword index's, so bodies are passed as its term
            ids); a new one by default.
    """

    def __init__(self, documents: Mapping[str, DocumentName] | None = None,
                 bodies: Mapping[str, Iterable[str]] | None = None, terms: TermTable | None = None) -> None:
        self.terms = terms if terms is not None else TermTable()
        self.names: dict[str, frozenset[str]] = {}
        self._parts: dict[str, Mapping[str, frozenset[str]]] = {}
        self._group_of: dict[str, frozenset[str]] = {}
        self._groups: dict[frozenset[str], _Group] = {}
        self._body_df = Growable(np.int32, 1024)
        self._title_df: dict[str, int] = {}
        self._per_script = {True: 0, False: 0}
        self._shorts: dict[str, dict[frozenset[str], int]] = {}
        for d, name in (documents or {}).items():
            self.add(d, name, self.terms.ids((bodies or {}).get(d, ())))

    # --- changes --------------------------------------------------------------------------
    def add(self, document_id: str, name: DocumentName, body: np.ndarray = _EMPTY_IDS) -> None:
        """Take in a document's ``name`` and ``body`` (sorted unique term ids of its text, in
        :attr:`terms`). Costs the body's terms (a binary search each in its group's terms), not
        the group's or the collection's. A document already held must be removed first.

        Raises:
            ValueError: the document is held already.
        """
        if document_id in self._group_of:
            raise ValueError(f"{document_id} is in the gazetteer; remove it first")
        self._grow()
        key = name.terms
        group = self._groups.get(key)
        if group is None:
            key_ids = self.terms.ids(key)
            group = self._groups[key] = _Group(key_ids, {}, _EMPTY_IDS, _EMPTY_IDS)
            for t in key:
                self._title_df[t] = self._title_df.get(t, 0) + 1
            self._enter(group, key_ids)
        group.docs[document_id] = None
        body = np.asarray(body, dtype=np.int32)
        at = np.searchsorted(group.ids, body)
        held = at < len(group.ids)
        held[held] = group.ids[at[held]] == body[held]
        group.counts[at[held]] += 1
        new = ~held
        if new.any():
            group.ids = np.insert(group.ids, at[new], body[new])
            group.counts = np.insert(group.counts, at[new], 1)
            self._enter(group, _outside(body[new], group.key_ids))
        self._group_of[document_id] = key
        self.names[document_id] = key
        self._parts[document_id] = name.parts
        for short, words in name.parts.items():
            count = self._shorts.setdefault(short, {})
            count[words] = count.get(words, 0) + 1

    def remove(self, document_id: str, body: np.ndarray = _EMPTY_IDS) -> None:
        """Drop a document (``body``: the term ids it was added with); unknown ids are ignored."""
        key = self._group_of.pop(document_id, None)
        if key is None:
            return
        group = self._groups[key]
        del group.docs[document_id]
        body = np.asarray(body, dtype=np.int32)
        if len(body):
            at = np.searchsorted(group.ids, body)
            group.counts[at] -= 1
            empty = at[group.counts[at] == 0]
            if len(empty):
                self._leave(group, _outside(group.ids[empty], group.key_ids))
                group.ids = np.delete(group.ids, empty)
                group.counts = np.delete(group.counts, empty)
        if not group.docs:
            self._leave(group, group.key_ids)
            for t in key:
                self._title_df[t] -= 1
                if not self._title_df[t]:
                    del self._title_df[t]
            del self._groups[key]
        del self.names[document_id]
        for short, words in self._parts.pop(document_id).items():
            count = self._shorts[short]
            count[words] -= 1
            if not count[words]:
                del count[words]
                if not count:
                    del self._shorts[short]

    def bulk(self, documents: Iterable[tuple[str, DocumentName, np.ndarray]]) -> None:
        """Take in many documents at once into an empty gazetteer — ``(document id, name, body)``
        as for :meth:`add` — one sort per name group instead of an insert per document (a start
        from a saved index)."""
        members: dict[frozenset[str], list[tuple[str, DocumentName, np.ndarray]]] = {}
        for doc in documents:
            members.setdefault(doc[1].terms, []).append(doc)
        every: list[np.ndarray] = []
        for key, docs in members.items():
            key_ids = self.terms.ids(key)
            bodies = [np.asarray(body, dtype=np.int32) for _, _, body in docs]
            ids, counts = np.unique(np.concatenate(bodies), return_counts=True) if bodies else (_EMPTY_IDS, _EMPTY_IDS)
            group = self._groups[key] = _Group(key_ids, {d: None for d, _, _ in docs}, ids.astype(np.int32),
                                               counts.astype(np.int32))
            terms = np.union1d(ids, key_ids).astype(np.int32)
            every.append(terms)
            cjk = int(self.terms.cjk.view()[terms].sum())
            self._script(group, cjk, len(terms) - cjk)
            for t in key:
                self._title_df[t] = self._title_df.get(t, 0) + 1
            for doc_id, name, _ in docs:
                self._group_of[doc_id] = key
                self.names[doc_id] = key
                self._parts[doc_id] = name.parts
                for short, words in name.parts.items():
                    count = self._shorts.setdefault(short, {})
                    count[words] = count.get(words, 0) + 1
        self._grow()
        if every:
            self._body_df.view()[:] += np.bincount(np.concatenate(every), minlength=len(self._body_df)).astype(np.int32)

    def _grow(self) -> None:
        if len(self._body_df) < len(self.terms):
            self._body_df.extend(np.zeros(len(self.terms) - len(self._body_df), dtype=np.int32))

    def _enter(self, group: _Group, ids: np.ndarray) -> None:
        """``ids`` became terms of ``group``: their document frequencies and the group's scripts."""
        self._grow()
        self._body_df.view()[ids] += 1
        cjk = int(self.terms.cjk.view()[ids].sum())
        self._script(group, cjk, len(ids) - cjk)

    def _leave(self, group: _Group, ids: np.ndarray) -> None:
        """``ids`` are no longer terms of ``group``."""
        self._body_df.view()[ids] -= 1
        cjk = int(self.terms.cjk.view()[ids].sum())
        self._script(group, -cjk, cjk - len(ids))

    def _script(self, group: _Group, cjk: int, latin: int) -> None:
        had = group.cjk > 0, group.latin > 0
        group.cjk += cjk
        group.latin += latin
        self._per_script[True] += (group.cjk > 0) - had[0]
        self._per_script[False] += (group.latin > 0) - had[1]

    # --- weights --------------------------------------------------------------------------
    @property
    def unique_idf(self) -> float:
        """The IDF of a term in one document (name) only."""
        return math.log((max(len(self._groups), 1) + 1) / 1.5)

    def _base_idf(self, term: str) -> float:
        if term not in self._title_df:
            return 0.0
        tid = self.terms.get(term)
        df = int(self._body_df.view()[tid]) if tid is not None and tid < len(self._body_df) else 0
        return math.log((max(self._per_script[_is_cjk(term)], 1) + 1) / (df + 0.5))

    def idf(self, term: str) -> float:
        """A name term's weight: ``ln((documents of its script + 1) / (df + 0.5))``, ``df`` the
        distinct names whose name or text holds it; an initialism no more than its rarest word's
        (``max`` of its words' own weights, for every name that abbreviates it); 0 for a term of
        no name."""
        weight = self._base_idf(term)
        for words in self._shorts.get(term, {}):
            if term not in words:
                weight = min(weight, max((self._base_idf(w) for w in words), default=0.0))
        return weight

    @classmethod
    def from_first_chunks(cls, first_chunks: Mapping[str, str],
                          bodies: Mapping[str, Iterable[str]] | None = None) -> Gazetteer:
        """From document id → the text of its first chunk (``bodies``: as for the constructor)."""
        return cls({d: document_name_terms(t) for d, t in first_chunks.items()}, bodies)

    def matches(self, question: str, document_ids: Iterable[str], min_named: float = 0.5) -> dict[str, EntityMatch]:
        """The entity match of ``question`` for each of ``document_ids`` (unknown ids score 0).

        Args:
            min_named: the best document's score below which the question names no document,
                in units of the IDF of a term in one document only (0.5: half such a term).
        """
        q = name_terms(question, capitalised_only=True)
        weights: dict[str, float] = {}

        def weight(t: str) -> float:
            if t not in weights:
                weights[t] = self.idf(t)
            return weights[t]

        raw: dict[str, tuple[float, tuple[str, ...]]] = {}
        for d in dict.fromkeys(document_ids):
            shared = sorted(q & self.names.get(d, frozenset()), key=lambda t: -weight(t))
            raw[d] = (sum(weight(t) for t in shared), tuple(shared))
        best = max((s for s, _ in raw.values()), default=0.0)
        named = best > 0 and best >= min_named * self.unique_idf
        return {d: EntityMatch(s, s / best if named else 0.0, terms, named) for d, (s, terms) in raw.items()}

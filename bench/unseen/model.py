"""The shape of one generated briefing paper and of the queries aimed at its Q&A pairs.

A paper is written once as data (``bench/unseen/content/pNN_*.py``) and laid out as logical
paragraphs (:func:`paragraphs`); the renderers (:mod:`bench.unseen.render`) turn those into a
PDF, DOCX or TXT file. Marker styles (``Paper.qa_style``), as real LegCo papers print them and
as the question splitter reads them:

* ``zh_marked``: ``問 A1：…`` then ``答 A1：…`` (ids ``A1`` … or plain ``1`` …);
* ``zh_q_only``: ``Q1.<TAB>…？`` then the answer text with no answer marker (File L style);
* ``en_marked``: ``Q1. …?`` then ``A1. …``;
* ``en_q_only``: ``Q1. …?`` then the answer text with no answer marker.
"""
from __future__ import annotations

from dataclasses import dataclass, field

QA_STYLES = ("zh_marked", "zh_q_only", "en_marked", "en_q_only")
QUERY_STYLES = ("cantonese", "written", "simplified", "english")


@dataclass(frozen=True)
class QA:
    """One question–answer pair: ``qid`` as the splitter reports it (``A1``, ``1``, ``Q7``);
    ``answer``: paragraphs, the first one printed after the answer marker (if any)."""

    qid: str
    question: str
    answer: tuple[str, ...]


@dataclass(frozen=True)
class Section:
    """A topic line (``(A) 鐵路及交通``, ``住戶安置``) or ``None``, and the pairs under it."""

    topic: str | None
    items: tuple[QA, ...]


@dataclass(frozen=True)
class Query:
    """A retrieval query aimed at the pair ``qid``; ``style`` is one of :data:`QUERY_STYLES`."""

    qid: str
    style: str
    text: str

    @property
    def lang(self) -> str:
        """``en`` for English queries, ``zh`` for the three Chinese styles."""
        return "en" if self.style == "english" else "zh"


@dataclass(frozen=True)
class Paper:
    """One briefing paper. ``fmt``: ``pdf``/``docx``/``txt``; ``lang``: ``zh``/``en``;
    ``letter``: the page-1 header ``(H)`` and footer ``H-<n>`` (PDF); ``date``: footer date
    line ``YYYY-MM-DD``; ``stamp``: the LegCo paper number printed at the top of page 1."""

    stem: str
    fmt: str
    lang: str
    qa_style: str
    letter: str
    date: str
    stamp: str
    title_zh: str
    title_en: str
    subtitle: str
    intro_heading: str
    intro: tuple[str, ...]
    qa_heading: str
    sections: tuple[Section, ...]
    queries: tuple[Query, ...] = field(default=())

    @property
    def filename(self) -> str:
        """The paper's file name in ``bench/unseen/papers``."""
        return f"{self.stem}.{self.fmt}"

    def pairs(self) -> list[tuple[str | None, QA]]:
        """Every pair in document order with its topic line."""
        return [(s.topic, qa) for s in self.sections for qa in s.items]


def qa(qid: str, question: str, *answer: str) -> QA:
    """Shorthand for a :class:`QA` in the content modules."""
    return QA(qid, question, tuple(answer))


def sec(topic: str | None, *items: QA) -> Section:
    """Shorthand for a :class:`Section`."""
    return Section(topic, tuple(items))


def q(qid: str, style: str, text: str) -> Query:
    """Shorthand for a :class:`Query`."""
    if style not in QUERY_STYLES:
        raise ValueError(f"unknown query style {style!r}")
    return Query(qid, style, text)


def _number(qid: str) -> str:
    return qid[1:] if qid.startswith("Q") else qid


def question_line(paper: Paper, item: QA) -> str:
    """The printed question paragraph, marker included (``TAB`` after ``Q1.`` in Q-only styles)."""
    if paper.qa_style == "zh_marked":
        return f"問 {item.qid}：{item.question}"
    if paper.qa_style == "en_marked":
        return f"Q{_number(item.qid)}. {item.question}"
    return f"Q{_number(item.qid)}.\t{item.question}"


def answer_lines(paper: Paper, item: QA) -> list[str]:
    """The printed answer paragraphs, the answer marker on the first one where the style has one."""
    first, *rest = item.answer
    if paper.qa_style == "zh_marked":
        first = f"答 {item.qid}：{first}"
    elif paper.qa_style == "en_marked":
        first = f"A{_number(item.qid)}. {first}"
    return [first, *rest]


def paragraphs(paper: Paper) -> list[tuple[str, str]]:
    """The paper as ``(kind, text)`` paragraphs in print order: the LegCo stamp, one bilingual
    title line (the paper's language first), the subtitle, the speaking points, then the Q&A
    region header and the pairs under their topic lines. Kinds: ``stamp``, ``title``,
    ``subtitle``, ``heading``, ``para``, ``topic``, ``question``, ``answer``."""
    title = f"{paper.title_zh} {paper.title_en}" if paper.lang == "zh" else f"{paper.title_en} {paper.title_zh}"
    out: list[tuple[str, str]] = [("stamp", paper.stamp), ("title", title), ("subtitle", paper.subtitle),
                                  ("heading", paper.intro_heading)]
    out += [("para", p) for p in paper.intro]
    out.append(("heading", paper.qa_heading))
    for s in paper.sections:
        if s.topic:
            out.append(("topic", s.topic))
        for item in s.items:
            out.append(("question", question_line(paper, item)))
            out += [("answer", a) for a in answer_lines(paper, item)]
    return out

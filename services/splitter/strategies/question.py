"""Question strategy ("Chunked by question": one chunk per question–answer pair).

Pipeline: :func:`preprocess.build_body` (clean text + char→page map) →
:func:`items.find_items` (regex/line rules per style, per topic section where a document mixes
styles) → optional LLM verification of boundaries (:mod:`llm_check`) → one chunk per Q&A item
(split into parts by :mod:`sizing` when longer than ``settings.qa_max_chunk_tokens``) plus
``section`` chunks for the narrative in no item — before the first item and at the opening of
each later style region (:mod:`sections`).  A document without Q&A falls
back to the token strategy (``strategy_used="token"``, note + ``qa_fallback`` metadata).
"""
from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from services.splitter.brackets import count_followups, internal_ref_spans
from services.splitter.detect import Item
from services.splitter.items import find_items
from services.splitter.llm_check import BoundaryChecker, accept_reply
from services.splitter.preprocess import Body, build_body
from services.splitter.sections import find_sections
from services.splitter.sizing import pack_parts
from services.splitter.strategies.base import StrategyResult
from services.splitter.strategies.token import TokenStrategy
from services.splitter.tables import contains_table
from services.splitter.tokens import count_tokens
from services.splitter.verification import triggers
from shared.models import Chunk, ParsedDocument
from shared.settings import Settings

log = logging.getLogger("legco.splitter.question")

VerifyProgress = Callable[[int, int], None]
"""Told ``(pairs done, pairs to verify)`` by the verification pass: once with 0 before the first
pair is sent, then after each pair (called from the chunking thread; blocking is fine)."""

FALLBACK_NOTE = "no Q&A pairs detected: fell back to token chunking"
MIN_PAIRS = 3
"""Fewer Q&A pairs than this and the document is chunked by tokens (the seed's rule: a stray
``問 1：`` or two numbered lines do not make a Q&A paper)."""
_CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
_WRAP_CJK = re.compile(rf"(?<=[{_CJK}])\s*\n\s*(?=[{_CJK}])")


def unwrap(text: str) -> str:
    """Join wrapped lines: no space between CJK characters, one space otherwise."""
    text = _WRAP_CJK.sub("", text.strip())
    return re.sub(r"\s+", " ", text)


def _to_verify(items: list[Item]) -> list[tuple[int, Item, Item | None]]:
    """The pairs the verification pass sends, as ``(index, pair, next pair or None)``: a pair
    meeting a Step 4 trigger (``verification``) or without an answer marker, or followed by one
    without; the next pair goes along when it follows directly (not across a style region's
    opening)."""
    out = []
    for n, a in enumerate(items):
        b = items[n + 1] if n + 1 < len(items) and items[n + 1].chunk_start == a.end else None
        if a.verification or a.ambiguous or (b is not None and b.ambiguous):
            out.append((n, a, b))
    return out


def _flat(meta: dict[str, Any]) -> dict[str, Any]:
    """Drop ``None`` values (ChromaDB metadata holds only str/int/float/bool)."""
    return {k: v for k, v in meta.items() if v is not None}


def _subtract(span: tuple[int, int], holes: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out, pos = [], span[0]
    for a, b in holes:
        if b <= pos or a >= span[1]:
            continue
        if a > pos:
            out.append((pos, a))
        pos = max(pos, b)
    if pos < span[1]:
        out.append((pos, span[1]))
    return out


def _join(text: str, spans: list[tuple[int, int]]) -> str:
    return "".join(text[a:b] for a, b in spans)


def _page_range(body: Body, spans: list[tuple[int, int]]) -> tuple[int | None, int | None]:
    spans = [s for s in spans if body.text[s[0]:s[1]].strip()]
    if not spans:
        return None, None
    return body.first_page(*spans[0]), body.last_page(*spans[-1])


class QuestionStrategy:
    """One chunk per Q&A pair; narrative sections as extra chunks; token fallback."""

    name = "question"

    def __init__(self, settings: Settings, llm: BoundaryChecker | None = None,
                 on_verify: VerifyProgress | None = None) -> None:
        self.settings = settings
        self.llm = llm
        self.on_verify = on_verify
        self.heuristic = True

    # ------------------------------------------------------------------ public
    def chunk(self, doc: ParsedDocument) -> StrategyResult:
        """Chunk ``doc`` by question; never raises for documents without Q&A."""
        self.heuristic = not doc.tables_extracted
        body = build_body(doc)
        found = find_items(body)
        items, style = found.items, found.style
        if len(items) < MIN_PAIRS:  # the seed: fewer than 3 pairs is not a Q&A document
            res = TokenStrategy(self.settings).chunk(doc)
            for c in res.chunks:
                c.metadata["qa_fallback"] = True
            note = FALLBACK_NOTE if not items else (f"only {len(items)} Q&A pair{'s' if len(items) > 1 else ''} "
                                                    f"detected (fewer than {MIN_PAIRS}): fell back to token chunking")
            return StrategyResult(res.chunks, "token", [note, *res.notes])
        notes = [f"qa_style={style}: {len(items)} items"]
        for it in items:
            it.verification = triggers(body.text[it.a_start:it.end], self.settings.qa_verification_answer_tokens,
                                       self.heuristic)
        if self.llm is not None:
            moved = self._llm_check(self.llm, body, items, notes)
        else:
            moved = set()
            if due := len(_to_verify(items)):
                notes.append(f"verification skipped: no LLM configured ({due} pairs would have been checked)")
        placed: list[tuple[int, list[Chunk]]] = []  # (start offset in the body, chunks), sorted below
        for start, end in found.narrative:
            for sec in find_sections(body.text, start, end, self.settings.chunk_size_tokens):
                placed.append((sec.start, [self._section_chunk(body, sec.start, sec.end, sec.title)]))
        for idx, it in enumerate(items):
            placed.append((it.chunk_start, self._qa_chunks(body, it, idx, style, idx in moved)))
        chunks = [c for _, group in sorted(placed, key=lambda p: p[0]) for c in group]
        for i, c in enumerate(chunks):
            c.chunk_index = i
        return StrategyResult(chunks, "question", notes)

    # ------------------------------------------------------------------ helpers
    def _llm_check(self, llm: BoundaryChecker, body: Body, items: list[Item], notes: list[str]) -> set[int]:
        """The verification pass: each pair meeting a Step 4 trigger (``verification``) or next to
        a pair without an answer marker is sent with the text after it (the next pair, when it
        follows directly: not across a style region's opening); a moved boundary is applied only
        when the reply keeps every character and the new boundary stays inside the pair's answer
        (no pair lost), else it is logged in ``notes`` and ignored. Returns the indexes (in
        ``items``) of the pairs whose boundary moved. ``on_verify`` is told the pairs done of the
        pairs to send, before the first and after each."""
        moved: set[int] = set()
        text = body.text
        todo = _to_verify(items)
        shifted = 0
        if self.on_verify is not None and todo:
            self.on_verify(0, len(todo))
        for done, (n, a, b) in enumerate(todo, start=1):
            segs = [text[a.chunk_start:a.end]] + ([text[b.chunk_start:b.end]] if b is not None else [])
            reply = llm.check(segs)
            if self.on_verify is not None:
                self.on_verify(done, len(todo))
            if reply is None or b is None:
                continue
            if not accept_reply(segs, reply):
                notes.append(f"LLM boundary reply for {a.qid}/{b.qid} rejected: text not preserved")
                log.warning("verification: boundary reply for %s/%s ignored: text not preserved", a.qid, b.qid)
                continue
            new_b = a.chunk_start + len(reply[0])
            if not (a.a_start < new_b <= b.marker_start):
                notes.append(f"LLM boundary reply for {a.qid}/{b.qid} rejected: boundary outside answer")
                log.warning("verification: boundary reply for %s/%s ignored: outside the answer", a.qid, b.qid)
                continue
            if new_b != a.end:
                a.end = new_b
                b.chunk_start = new_b
                moved.update({n, n + 1})
                shifted += 1
                notes.append(f"LLM moved boundary between {a.qid} and {b.qid}")
        invalid = getattr(llm, "invalid", 0)
        notes.append(f"verification: {len(todo)} pairs sent, {shifted} boundaries moved"
                     + (f", {invalid} invalid replies ignored" if invalid else ""))
        return moved

    def _section_chunk(self, body: Body, start: int, end: int, title: str | None) -> Chunk:
        text = body.text[start:end].strip()
        p0, p1 = _page_range(body, [(start, end)])
        return Chunk(
            chunk_index=0,
            text=text,
            page_number=p0,
            metadata=_flat({
                "strategy_type": "question",
                "chunk_kind": "section",
                "section_title": title,
                "page_number": p0,
                "page_start": p0,
                "page_end": p1,
                "source_page_range": f"{p0}-{p1}" if p0 is not None else None,
                "token_count": count_tokens(text),
                "has_table": contains_table(text, self.heuristic),
                "char_start": start,
                "char_end": end,
            }),
        )

    def _qa_chunks(self, body: Body, it: Item, index: int, doc_style: str, llm_moved: bool) -> list[Chunk]:
        text = body.text
        end = it.end
        while end > it.a_start and text[end - 1].isspace():
            end -= 1
        refs = internal_ref_spans(text, it.a_start, end)
        holes = [] if self.settings.qa_include_internal_refs else refs
        answer_spans = _subtract((it.a_start, end), holes)
        answer_text = _join(text, answer_spans).strip()
        question = unwrap(text[it.q_start:it.q_end])
        head = text[it.chunk_start:it.a_start]
        full = (head + answer_text).strip()
        page = body.page_at(it.marker_start)
        _, last = _page_range(body, [(it.marker_start, end)])
        base = {
            "strategy_type": "question",
            "chunk_kind": "qa",
            "qa_style": it.style,
            "doc_qa_style": doc_style,
            "question_index": index,
            "question_id": it.qid,
            "question_text": question,
            "topic_section": it.topic,
            "page_number": page,
            "page_start": page,
            "page_end": last,
            "source_page_range": f"{page}-{last}" if page is not None else None,
            "answer_contains_table": contains_table(answer_text, self.heuristic),
            "has_table": contains_table(answer_text, self.heuristic),
            "followup_count": count_followups(text[it.a_start:end]),
            "internal_ref_count": len(refs),
            "internal_refs_included": self.settings.qa_include_internal_refs,
            "qa_ambiguous": it.ambiguous,
            "speaker": it.speaker,
            "answered_by": "; ".join(it.answered_by) or None,
            "speakers": "; ".join(it.speakers) or None,
            "llm_boundary_moved": llm_moved,
            "verification_triggers": ",".join(it.verification) or None,
            "char_start": it.chunk_start,
            "char_end": end,
        }
        limit = self.settings.qa_max_chunk_tokens
        if count_tokens(full) <= limit:
            meta = dict(base, part=1, parts=1, token_count=count_tokens(full))
            return [Chunk(chunk_index=0, text=full, embed_text=f"{question}\n{answer_text}",
                          page_number=page, metadata=_flat(meta))]
        prefix = head.strip() + "\n"
        parts = pack_parts(text, answer_spans, prefix, limit)
        chunks = []
        for k, spans in enumerate(parts, start=1):
            part_answer = _join(text, spans).strip()
            part_text = f"{prefix}{part_answer}" if k > 1 else (head + part_answer).strip()
            p0, p1 = _page_range(body, spans)
            meta = dict(
                base,
                part=k,
                parts=len(parts),
                page_start=page if k == 1 else p0,
                page_end=p1,
                source_page_range=(f"{page if k == 1 else p0}-{p1}" if page is not None else None),
                answer_contains_table=contains_table(part_answer, self.heuristic),
                has_table=contains_table(part_answer, self.heuristic),
                token_count=count_tokens(part_text),
            )
            chunks.append(Chunk(chunk_index=0, text=part_text, embed_text=f"{question}\n{part_answer}",
                                page_number=page, metadata=_flat(meta)))
        return chunks

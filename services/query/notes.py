"""Internal notes and follow-ups inside a prepared answer (pure; no I/O).

Briefing papers put two kinds of bracketed blocks inside an answer:

* internal notes — ``[內部參考：…]``, ``[內部補充資料：…]``, ``[For internal reference: …]`` —
  are for the officer and must not be read out;
* follow-ups — ``[如被追問：question？]``, ``[如追問：…]``, ``[If pressed: …]`` — the answer to
  give if a member presses the point. The answer comes after the bracket (it runs to the next
  bracketed block or the end), or inside it after the question (``[如被追問：…？ answer]``).

:func:`split_notes` cuts a reflowed answer (``reflow.reflow``: paragraphs joined by blank lines,
each bracketed block starting a paragraph) into ``AnswerBlock``s of kind ``text``, ``internal``
and ``followup``; :func:`speaking_note` is the answer without its internal notes.
"""
from __future__ import annotations

import re

from shared.api import AnswerBlock

_INTERNAL = re.compile(r"^\[\s*(內部參考|內部補充資料|內部補充|內部資料|For internal reference|Internal reference)"
                       r"\s*(?:資料)?\s*[：:︰]?\s*", re.IGNORECASE)
_FOLLOWUP = re.compile(r"^\[\s*(如被追問|如再追問|如追問|If pressed|If asked)\s*[：:︰]?\s*", re.IGNORECASE)
_QUESTION_END = re.compile(r"[？?]")


def _closing(paras: list[str], start: int) -> tuple[int, int]:
    """Where the bracket opened at the start of ``paras[start]`` closes: (paragraph index,
    character index of the ``]``); the last paragraph's end when it never closes."""
    depth = 0
    for i in range(start, len(paras)):
        for j, ch in enumerate(paras[i]):
            if ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
                if depth == 0:
                    return i, j
    return len(paras) - 1, len(paras[-1])


def split_notes(text: str) -> list[AnswerBlock]:
    """``text`` (reflowed markdown) as blocks in order; consecutive plain paragraphs form one
    ``text`` block. Block texts are markdown without the brackets and markers; a follow-up's
    ``question`` is its question as printed (``None`` when the bracket has no ``？``/``?``).
    A bracket that never closes (the chunk ends first) runs to the end: an internal note cut
    by a chunk boundary is still internal."""
    paras = [p for p in text.split("\n\n") if p.strip()]
    blocks: list[AnswerBlock] = []
    plain: list[str] = []
    i = 0

    def flush() -> None:
        if plain:
            blocks.append(AnswerBlock(kind="text", text="\n\n".join(plain)))
            plain.clear()

    while i < len(paras):
        p = paras[i]
        internal, followup = _INTERNAL.match(p), _FOLLOWUP.match(p)
        if not (internal or followup):
            plain.append(p)
            i += 1
            continue
        flush()
        end_para, end_char = _closing(paras, i)
        marker = internal or followup
        assert marker is not None
        if end_para == i:
            inner = [p[marker.end():end_char]]
        else:
            inner = [p[marker.end():], *paras[i + 1:end_para], paras[end_para][:end_char]]
        body = "\n\n".join(x.strip() for x in inner if x.strip())
        after = paras[end_para][end_char + 1:].strip()  # text after the "]" in its paragraph
        i = end_para + 1
        if internal:
            blocks.append(AnswerBlock(kind="internal", label=internal.group(1), text=body))
            if after:
                plain.append(after)
            continue
        q = _QUESTION_END.search(body)
        question, answer = (body[:q.end()].strip(), body[q.end():].strip()) if q else (body or None, "")
        if answer:  # answered inside the bracket: what follows it is the main answer again
            if after:
                plain.append(after)
        else:  # the answer follows the bracket, up to the next bracketed block
            rest = [after] if after else []
            while i < len(paras) and not paras[i].startswith("["):
                rest.append(paras[i])
                i += 1
            answer = "\n\n".join(rest)
        assert followup is not None
        blocks.append(AnswerBlock(kind="followup", label=followup.group(1), question=question, text=answer))
    flush()
    return blocks


def speaking_note(blocks: list[AnswerBlock]) -> str:
    """The answer to read out: its ``text`` blocks and follow-ups (as ``If pressed: question``
    and the answer), without internal notes."""
    out: list[str] = []
    for b in blocks:
        if b.kind == "text":
            out.append(b.text)
        elif b.kind == "followup":
            out.append("\n\n".join(x for x in [f"If pressed: {b.question}" if b.question else "If pressed:", b.text]
                                   if x))
    return "\n\n".join(out)

"""When a Q&A pair is sent to the LLM verification pass (the seed's Step 4 triggers).

A pair is sent when its answer is over ``qa_verification_answer_tokens`` (2,000) tokens, holds a
nested follow-up (``[如被追問`` / ``[如追問`` / ``[If pressed``), an internal note (``[內部參考`` /
``[內部補充``) or table-like rows (``tables.contains_table``), or when it or the next pair has no
answer marker (its boundary was guessed). The pass itself is ``llm_check`` (the reply) and
``QuestionStrategy._llm_check`` (applying a moved boundary only when no character and no pair is
lost).
"""
from __future__ import annotations

import re

from services.splitter.tables import contains_table
from services.splitter.tokens import count_tokens

FOLLOWUP = re.compile(r"\[\s*(?:如被追問|如追問|If\s+pressed)", re.IGNORECASE)
INTERNAL = re.compile(r"\[\s*(?:內部參考|內部補充|For\s+internal\s+reference)", re.IGNORECASE)


def triggers(answer: str, max_tokens: int, heuristic: bool = True) -> list[str]:
    """The Step 4 triggers ``answer`` meets, in order: ``long``, ``followup``, ``internal_ref``,
    ``table_rows`` (empty: not sent for them)."""
    out = []
    if count_tokens(answer) > max_tokens:
        out.append("long")
    if FOLLOWUP.search(answer):
        out.append("followup")
    if INTERNAL.search(answer):
        out.append("internal_ref")
    if contains_table(answer, heuristic):
        out.append("table_rows")
    return out

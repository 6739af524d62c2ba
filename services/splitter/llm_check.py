"""Optional LLM check of ambiguous Q&A boundaries (a second pass over edge cases only).
Deterministic splitting always comes first; the LLM may only move the
boundary between two adjacent items, and its reply is used only if it keeps every
character of the text (see :func:`accept_reply`).
"""
from __future__ import annotations

import json
import logging
import re
from typing import Protocol, runtime_checkable

from shared.settings import Settings

log = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You check Q&A boundaries in a Hong Kong Legislative Council briefing paper. You get "
    "two consecutive segments of a document as JSON {\"segments\": [first, second]}. The first "
    "should hold one question and its whole answer (including [如被追問…] follow-ups and "
    "[內部參考…] notes); the second starts with the next question or its topic heading. "
    "If the boundary is wrong, move it. Reply only with JSON {\"segments\": [first, second]} "
    "whose concatenation is exactly the input text, character for character."
)


@runtime_checkable
class BoundaryChecker(Protocol):
    """Something that may move the boundary between two adjacent segments."""

    def check(self, segments: list[str]) -> list[str] | None:
        """Return the segments with the boundary possibly moved, or ``None`` to keep them.
        The caller validates the reply with :func:`accept_reply`."""
        ...


def accept_reply(original: list[str], reply: list[str] | None) -> bool:
    """True when ``reply`` only moves boundaries: same number of segments, none empty,
    and exactly the same characters in the same order."""
    if reply is None or not isinstance(reply, list) or len(reply) != len(original):
        return False
    if not all(isinstance(s, str) and s.strip() for s in reply):
        return False
    return "".join(reply) == "".join(original)


class OpenAIBoundaryChecker:
    """:class:`BoundaryChecker` backed by an OpenAI-compatible ``/v1/chat/completions``
    endpoint (``settings.llm_base_url``, ``llm_model``, ``llm_api_key``,
    ``llm_timeout_s``).  Any transport or format error returns ``None`` (keep the
    deterministic result)."""

    def __init__(self, settings: Settings) -> None:
        from openai import OpenAI

        self.model = settings.llm_model
        self.client = OpenAI(
            base_url=settings.llm_base_url,
            api_key=settings.llm_api_key or "none",
            timeout=settings.llm_timeout_s,
            # optional check: a failure keeps the deterministic result
            max_retries=settings.llm_check_retry_attempts - 1,
        )

    def check(self, segments: list[str]) -> list[str] | None:
        """Ask the model for corrected segments; ``None`` on any error."""
        try:
            resp = self.client.chat.completions.create(
                model=self.model,
                temperature=0,
                messages=[
                    {"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": json.dumps({"segments": segments}, ensure_ascii=False)},
                ],
            )
            content = resp.choices[0].message.content or ""
        except Exception as exc:  # noqa: BLE001 - network, HTTP, auth: keep deterministic boundaries
            log.warning("LLM boundary check failed: %s", exc)
            return None
        match = re.search(r"\{.*\}", content, re.DOTALL)
        if not match:
            return None
        try:
            data = json.loads(match.group(0))
        except json.JSONDecodeError:
            return None
        segs = data.get("segments") if isinstance(data, dict) else None
        return segs if isinstance(segs, list) else None

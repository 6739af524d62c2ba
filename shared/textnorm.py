"""Table-driven text normalisation for extracted document text (ingest and query time).

What it fixes (see corpus README "Known extraction quirks"):

* Hong Kong characters that PDF fonts expose as Private Use Area code points
  (e.g. U+E473 → 邨, U+E40C → 衞).  The PUA table is the Big5 EUDC layout used by Windows
  code page 950 / HKSCS fonts (FA40–FEFE → U+E000…, 8E40–A0FE → U+E311…,
  8140–8DFE → U+EEB8…, C6A1–C8FE → U+F6B1…); each PUA code point is mapped back to its
  Big5 byte pair and decoded with Python's ``big5hkscs`` codec, which yields the standard
  Unicode character.  Unmapped PUA code points are left unchanged.
* Word bullet glyphs from the Symbol/Wingdings fonts (U+F0B7, U+F0BE, U+F06C, U+F0FC, …)
  → ordinary bullets.
* U+FFFE, which extractors emit for a soft hyphen at a line break ("sub\\ufffecontractor")
  → removed, as is U+00AD (soft hyphen) and the zero-width no-break space U+FEFF.
* ``\\r\\n`` / ``\\r`` line ends → ``\\n``.
* Kangxi radicals (U+2F00–U+2FD5) and the two CJK radical supplements with a compatibility
  decomposition (U+2E9F, U+2EF3) → the ideograph they stand for (``⽴法會`` → ``立法會``):
  Chromium and some Office exports write them into the text layer for ordinary characters.
* Latin ligatures (U+FB00–U+FB06: ``ﬁ``, ``ﬀ`` …) → their letters.

Every function maps one character to zero or more characters; :func:`normalize_with_map`
also returns, for each output character, the index of the input character it came from,
so callers can keep exact page/offset maps.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

# Word / Symbol-font bullet glyphs (private use) → visible bullets.
BULLET_GLYPHS: dict[str, str] = {
    "\uf0b7": "•",  # Symbol bullet
    "\uf0a7": "▪",  # Wingdings square
    "\uf0be": "—",  # Symbol horizontal bar (used as a dash bullet)
    "\uf06c": "●",  # Wingdings filled circle
    "\uf06e": "■",  # Wingdings filled square
    "\uf0d8": "➢",  # Wingdings arrow
    "\uf0fc": "✓",  # Wingdings check mark
    "\uf0a8": "◆",
    "\uf076": "❖",
}

# Characters that are dropped entirely.
DROPPED: frozenset[str] = frozenset({"\ufffe", "\u00ad", "\ufeff"})

# (first PUA code point, Big5 lead bytes (first, last), first trail byte of first lead)
_EUDC_RANGES: tuple[tuple[int, int, int, int], ...] = (
    (0xE000, 0xFA, 0xFE, 0x40),
    (0xE311, 0x8E, 0xA0, 0x40),
    (0xEEB8, 0x81, 0x8D, 0x40),
    (0xF6B1, 0xC6, 0xC8, 0xA1),
)
_TRAILS: tuple[int, ...] = tuple(range(0x40, 0x7F)) + tuple(range(0xA1, 0xFF))  # 157 per lead


def _pua_to_big5(cp: int) -> bytes | None:
    for base, lead_lo, lead_hi, first_trail in _EUDC_RANGES:
        off = cp - base
        if off < 0:
            continue
        skip = _TRAILS.index(first_trail)  # trails missing from the first lead
        off += skip
        lead = lead_lo + off // len(_TRAILS)
        if lead > lead_hi:
            continue
        return bytes([lead, _TRAILS[off % len(_TRAILS)]])
    return None


@lru_cache(maxsize=4096)
def map_pua(ch: str) -> str:
    """The standard character for a private-use code point ``ch`` (HKSCS/Big5 EUDC table),
    a bullet for Word bullet glyphs, or ``ch`` itself when there is no mapping."""
    if ch in BULLET_GLYPHS:
        return BULLET_GLYPHS[ch]
    cp = ord(ch)
    if not 0xE000 <= cp <= 0xF8FF:
        return ch
    raw = _pua_to_big5(cp)
    if raw is None:
        return ch
    try:
        out = raw.decode("big5hkscs")
    except UnicodeDecodeError:
        return ch
    if len(out) != 1 or 0xE000 <= ord(out) <= 0xF8FF:
        return ch
    return out


# Kangxi radicals, the two CJK radical supplements with a compatibility decomposition and the
# Latin ligatures → their NFKC form (``⽴`` → ``立``, ``ﬁ`` → ``fi``).
_COMPATIBILITY_FOLDS: dict[str, str] = {
    chr(cp): unicodedata.normalize("NFKC", chr(cp))
    for cp in (*range(0x2F00, 0x2FD6), 0x2E9F, 0x2EF3, *range(0xFB00, 0xFB07))
}


def normalize_char(ch: str) -> str:
    """Normalised replacement for one character (may be ``""``, or two letters for a ligature)."""
    if ch in DROPPED:
        return ""
    if ch == "\r":
        return "\n"
    if "\ue000" <= ch <= "\uf8ff":
        return map_pua(ch)
    return _COMPATIBILITY_FOLDS.get(ch, ch)


def normalize_with_map(text: str) -> tuple[str, list[int]]:
    """Normalise ``text`` and return ``(normalised, source_index)`` where
    ``source_index[i]`` is the index in ``text`` of the character that produced output
    character ``i``.  ``\\r\\n`` becomes one ``\\n``."""
    out: list[str] = []
    src: list[int] = []
    n = len(text)
    for i, ch in enumerate(text):
        if ch == "\r" and i + 1 < n and text[i + 1] == "\n":
            continue
        rep = normalize_char(ch)
        for r in rep:
            out.append(r)
            src.append(i)
    return "".join(out), src


@lru_cache(maxsize=1)
def _char_table() -> dict[int, str | None]:
    """:func:`normalize_char` as a ``str.translate`` table (every character it changes)."""
    table: dict[int, str | None] = {ord(ch): None for ch in DROPPED}
    table[ord("\r")] = "\n"
    for cp in range(0xE000, 0xF900):
        mapped = map_pua(chr(cp))
        if mapped != chr(cp):
            table[cp] = mapped
    table.update((ord(ch), folded) for ch, folded in _COMPATIBILITY_FOLDS.items())
    return table


def normalize_text(text: str) -> str:
    """Normalise extracted text: PUA → HK characters, Word bullets → bullets, soft
    hyphens dropped, line ends unified to ``\\n``, Kangxi radicals and Latin ligatures folded. The same text as
    ``normalize_with_map(text)[0]``, without the map (``str.translate``: ~10x faster)."""
    return text.replace("\r\n", "\n").translate(_char_table())


_CJK = r"\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_SPACE = re.compile(rf"(?<=[{_CJK}])[ \t]+(?=[{_CJK}])")


def collapse_cjk_spaces(text: str) -> str:
    """Remove spaces/tabs between two CJK characters (or full-width punctuation), which
    PDF extractors insert spuriously.  Used for comparisons and query text."""
    return _CJK_SPACE.sub("", text)


# --- search normalisation (index and query time) ------------------------------------------

_S2T: Any = None  # opencc.OpenCC, loaded on first use (opencc has no type hints)


def _converter() -> Any:
    global _S2T
    if _S2T is None:
        import opencc

        _S2T = opencc.OpenCC("s2t")
    return _S2T


@lru_cache(maxsize=65536)
def _s2t_piece(piece: str) -> str:
    converted: str = _converter().convert(piece)
    return converted


def _s2t(text: str) -> str:
    """Simplified → Traditional Chinese with OpenCC's ``s2t`` tables (``opencc-python-reimplemented``,
    dictionaries bundled in the wheel; nothing is downloaded).  Already-Traditional text passes
    through (almost) unchanged, so index and query sides meet in the same script.

    OpenCC converts the pieces between its sentence separators one by one (its own
    ``split_chars_re``); the pieces are converted here the same way and remembered (the last
    65,536), as a chunk's sentences recur — in the overlaps of its neighbours, in the running
    headers of every page — and converting is most of the cost of this function."""
    parts = _converter().split_chars_re.split(text)
    return "".join(p if n % 2 else _s2t_piece(p) for n, p in enumerate(parts))


def normalize_for_search(text: str) -> str:
    """The text that is embedded or searched, for chunks and queries alike.

    Steps: :func:`normalize_text` (HK private-use code points → standard characters, Word bullets,
    soft hyphens, line ends); Unicode NFKC (Kangxi radicals such as U+2F00 → 一, full-width Latin
    and digits → ASCII, compatibility ideographs); spaces between CJK characters removed
    (:func:`collapse_cjk_spaces`); Simplified → Traditional Chinese (OpenCC ``s2t``).  The stored
    and displayed chunk text is never replaced by this form.
    """
    t = unicodedata.normalize("NFKC", normalize_text(text))
    return _s2t(collapse_cjk_spaces(t))

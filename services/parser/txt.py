"""Plain-text files: decode UTF-8 (with or without BOM), UTF-16 with BOM, or Big5/cp950/HKSCS.

Decoding is strict (explicit tries, never ``errors="replace"``), so U+FFFD mojibake cannot
be produced. Then the text is cleaned: form feeds and vertical tabs become line breaks,
zero-width spaces go, and a few stray control characters are removed. What is left must
read as language (``reads_as_language``): letters, digits and CJK characters, not one repeated
symbol; a legacy codec's result must also not look mis-decoded. Binary data that happens to
decode (many control characters, or no words) is not text, whatever its name.
"""
from __future__ import annotations

import codecs
import re
from collections import Counter

from shared.errors import DocumentError
from shared.models import PageText

from .textquality import count_control_chars, count_visible_chars, garble_score, strip_control_chars

UNSUPPORTED_ENCODING_REASON = (
    "The text file is not in a supported encoding (UTF-8 or Big5); save it as UTF-8 and "
    "upload it again."
)

# (BOM, codec) pairs checked first; the BOM is removed from the text.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Tried in order without a BOM. cp950 is Microsoft's Big5 (a superset of plain Big5);
# big5hkscs adds the Hong Kong Supplementary Character Set.
_PLAIN_CODECS: tuple[str, ...] = ("utf-8", "cp950", "big5hkscs")


#: Above this share of the visible characters (plus ``STRAY_CONTROLS``), control characters
#: mean binary data, not a text with a few stray ones (a BEL or ESC pasted from a terminal).
MAX_CONTROL_SHARE = 0.02
STRAY_CONTROLS = 2
#: At least this share of the visible characters are letters, digits or CJK characters in text.
MIN_WORD_CHAR_SHARE = 0.30
#: At most this share of the visible characters is one symbol (``""""…`` is not text).
MAX_ONE_SYMBOL_SHARE = 0.50
# Zero-width space, word joiner and a BOM inside the text: invisible, and they split words for
# search (安\u200b置 is not 安置). The zero-width (non-)joiners stay: they belong to emoji
# sequences (👩\u200d💼) and some scripts, and the text must stay as written.
_ZERO_WIDTH_RE = re.compile("[\u200b\u2060\ufeff]")


def reads_as_language(text: str) -> bool:
    """True when ``text`` reads as language: at least ``MIN_WORD_CHAR_SHARE`` of its visible
    characters are letters, digits or CJK characters (``str.isalnum``), and no single other
    character makes up more than ``MAX_ONE_SYMBOL_SHARE`` of them. Whitespace-only text is true
    (an empty document, reported as such later)."""
    visible = [ch for ch in text if not ch.isspace()]
    if not visible:
        return True
    words = sum(ch.isalnum() for ch in visible)
    symbol, top = Counter(ch for ch in visible if not ch.isalnum()).most_common(1)[0] \
        if words < len(visible) else ("", 0)
    return words >= MIN_WORD_CHAR_SHARE * len(visible) and (top <= MAX_ONE_SYMBOL_SHARE * len(visible) or not symbol)


def clean_text(decoded: str) -> str | None:
    """``decoded`` without NUL padding at its end, with ``\r\n``/``\r`` as ``\n``, form feeds as
    a blank line, vertical tabs as ``\n``, zero-width spaces removed and stray control characters removed; ``None`` when
    there are more than ``STRAY_CONTROLS`` plus ``MAX_CONTROL_SHARE`` of the visible characters
    (binary data)."""
    text = decoded.rstrip("\x00")  # padding to a record or block size
    if len(text) < len(decoded) and not text.strip():
        return None  # nothing but NULs: binary
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n\n").replace("\v", "\n")
    text = _ZERO_WIDTH_RE.sub("", text)
    controls = count_control_chars(text)
    if controls > STRAY_CONTROLS + MAX_CONTROL_SHARE * count_visible_chars(text):
        return None
    return strip_control_chars(text) if controls else text


def _plausible(text: str, codec: str) -> bool:
    """Cleaned text is plausible when it reads as language. Strictly decoded UTF-8/UTF-16 may
    be in any script; a legacy Chinese codec's result must also look like zh/en text (a wrong
    guess yields letters of unrelated scripts)."""
    if not reads_as_language(text):
        return False
    return codec.startswith("utf") or not garble_score(text, check_scripts=True).garbled


def try_decode_text(data: bytes) -> tuple[str, str] | None:
    """Decode ``data`` as text, or return None if it is not text in a supported encoding.

    Returns:
        ``(text, codec)``: text without BOM, cleaned by ``clean_text``; ``codec`` is the
        Python codec name that decoded it (``utf-8``, ``cp950``, ...).
    """
    candidates: list[tuple[bytes, str]] = []
    for bom, codec in _BOMS:
        if data.startswith(bom):
            candidates.append((data[len(bom):], codec))
            break
    else:
        candidates.extend((data, codec) for codec in _PLAIN_CODECS)
    for payload, codec in candidates:
        try:
            text = payload.decode(codec)
        except UnicodeDecodeError:
            continue
        cleaned = clean_text(text)
        if cleaned is not None and _plausible(cleaned, codec):
            return cleaned, codec
    return None


def parse_txt(data: bytes) -> tuple[PageText, str]:
    """Decode a text file into one ``PageText`` (``page_number=None``).

    Args:
        data: the file's bytes (non-empty).

    Returns:
        ``(page, codec)``; the page text is the file's text, minus BOM and CRs, with form
        feeds as blank lines and zero-width spaces and stray control characters removed.

    Raises:
        DocumentError: code ``unsupported_encoding`` if no supported encoding fits.
    """
    decoded = try_decode_text(data)
    if decoded is None:
        raise DocumentError(UNSUPPORTED_ENCODING_REASON, code="unsupported_encoding")
    text, codec = decoded
    return PageText(page_number=None, text=text, char_count=len(text)), codec

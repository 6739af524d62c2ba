"""Plain-text files: decode UTF-8 (with or without BOM), UTF-16 with BOM, or Big5/cp950.

Decoding is strict (explicit tries, never ``errors="replace"``), so U+FFFD mojibake cannot
be produced; a result that still looks like binary or mis-decoded text is rejected.
"""
from __future__ import annotations

import codecs

from shared.errors import DocumentError
from shared.models import PageText

from .textquality import garble_score

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


def _plausible(text: str, codec: str) -> bool:
    """Decoded text is plausible when it has no NUL and a low garble score. Strictly
    decoded UTF-8/UTF-16 may be in any script; a legacy Chinese codec's result must also look
    like zh/en text (a wrong guess yields letters of unrelated scripts)."""
    unicode_codec = codec.startswith("utf")
    return "\x00" not in text and not garble_score(text, check_scripts=not unicode_codec).garbled


def try_decode_text(data: bytes) -> tuple[str, str] | None:
    """Decode ``data`` as text, or return None if it is not text in a supported encoding.

    Returns:
        ``(text, codec)``: text without BOM, ``\\r\\n``/``\\r`` turned into ``\\n``;
        ``codec`` is the Python codec name that decoded it (``utf-8``, ``cp950``, ...).
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
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if _plausible(text, codec):
            return text, codec
    return None


def parse_txt(data: bytes) -> tuple[PageText, str]:
    """Decode a text file into one ``PageText`` (``page_number=None``).

    Args:
        data: the file's bytes (non-empty).

    Returns:
        ``(page, codec)``; the page text is the file's text exactly, minus BOM and CRs.

    Raises:
        DocumentError: code ``unsupported_encoding`` if no supported encoding fits.
    """
    decoded = try_decode_text(data)
    if decoded is None:
        raise DocumentError(UNSUPPORTED_ENCODING_REASON, code="unsupported_encoding")
    text, codec = decoded
    return PageText(page_number=None, text=text, char_count=len(text)), codec

"""Normalising extracted text and scoring how garbled it is.

Extractors return text with ``\\r\\n`` (pypdfium2), trailing spaces (pypdf), soft-hyphen
markers (U+FFFE) and, for fonts without a Unicode mapping, control characters or
``(cid:N)`` tokens instead of characters. ``normalise_text`` cleans the harmless part;
``garble_score`` measures the harmful part so a caller can fall back to another extractor or
flag the page for OCR instead of indexing mojibake.
"""
from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass

_CID_RE = re.compile(r"\(cid:\d+\)")
# C0/C1 control characters except TAB and LF (CR is normalised away before scoring).
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# U+FFFE: pypdf's rendering of a soft hyphen in some Word PDFs; U+FEFF: stray BOM/ZWNBSP;
# U+00AD: soft hyphen (invisible when the word is not broken).
_INVISIBLE_RE = re.compile("[\ufffe\ufeff\u00ad]")
_TRAILING_WS_RE = re.compile(r"[ \t\u3000]+\n")
_MANY_BLANK_LINES_RE = re.compile(r"\n{3,}")

# Code point ranges expected in Hong Kong Chinese/English papers. Letters outside them are
# counted as "foreign script": a font whose encoding an extractor mis-decodes turns CJK text
# into Arabic/Syriac/IPA/Telugu look-alikes (seen with pypdf on hk_policy_address_2019_zh.pdf).
_EXPECTED_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x024F),  # ASCII, Latin-1, Latin Extended-A/B
    (0x0300, 0x03FF),  # combining diacritics, Greek (units, symbols)
    (0x1E00, 0x1EFF),  # Latin Extended Additional
    (0x2000, 0x2BFF),  # punctuation, currency, letterlike, arrows, maths, shapes, dingbats
    (0x2E80, 0x2FDF),  # CJK/Kangxi radicals
    (0x2FF0, 0x31FF),  # ideographic description, CJK punctuation, kana, bopomofo, strokes
    (0x3200, 0x4DBF),  # enclosed CJK, compatibility, Extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xE000, 0xF8FF),  # private use (HK characters and Word bullets in some PDFs)
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFE10, 0xFE1F),  # vertical forms
    (0xFE30, 0xFE6F),  # CJK compatibility forms (e.g. U+FE30), small forms
    (0xFF00, 0xFFEF),  # half/full-width forms
    (0x1F000, 0x1FAFF),  # emoji and pictographs
    (0x20000, 0x3FFFF),  # CJK Extensions B-H (HKSCS characters)
)
_RANGE_STARTS = [lo for lo, _ in _EXPECTED_RANGES]

#: Pages whose garble score is at least this are treated as having no usable text layer.
GARBLE_THRESHOLD = 0.10


def normalise_text(text: str) -> str:
    """Return ``text`` with line endings, invisible markers and trailing spaces cleaned.

    ``\\r\\n`` and lone ``\\r`` become ``\\n``; U+FFFE/U+FEFF/U+00AD are removed; spaces at
    line ends are dropped; three or more newlines collapse to two; the result is stripped.
    Text content (including private-use code points used for HK characters) is untouched.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _INVISIBLE_RE.sub("", text)
    text = _TRAILING_WS_RE.sub("\n", text + "\n")
    text = _MANY_BLANK_LINES_RE.sub("\n\n", text)
    return text.strip()


@dataclass(frozen=True)
class GarbleReport:
    """How much of a text is garbage.

    ``bad_chars`` counts control characters, U+FFFD replacement characters, characters
    inside ``(cid:N)`` tokens and letters of unexpected scripts; ``visible_chars`` counts all non-whitespace characters;
    ``score`` is ``bad_chars / visible_chars`` (0.0 for empty text).
    """

    bad_chars: int
    visible_chars: int
    cid_tokens: int

    @property
    def score(self) -> float:
        return self.bad_chars / self.visible_chars if self.visible_chars else 0.0

    @property
    def garbled(self) -> bool:
        """True when the text should not be indexed (score >= GARBLE_THRESHOLD)."""
        return self.score >= GARBLE_THRESHOLD


def garble_score(text: str, check_scripts: bool = True) -> GarbleReport:
    """Score ``text`` (already ``\\r``-free or not; CR is ignored) for extraction garbage.

    The signals are the ones seen on PDFs whose fonts lack a Unicode mapping (no
    ``ToUnicode`` and no usable CMap): pypdf/pypdfium2 emit raw glyph ids as C0 control characters, pdfminer emits
    ``(cid:N)``; broken decoders emit U+FFFD; fonts an extractor mis-decodes turn CJK into
    letters of scripts a HK paper does not use (Arabic, Syriac, IPA, Indic...; see
    ``_EXPECTED_RANGES``). The score is the share of impossible characters; the threshold is
    tuned on the test corpus.
    ``check_scripts=False`` skips the script test (for text known to be decoded correctly,
    e.g. strict UTF-8, where any script is genuine).
    """
    text = text.replace("\r", "")
    foreign = sum(1 for ch in text if not _expected_char(ch)) if check_scripts else 0
    cids = _CID_RE.findall(text)
    cid_chars = sum(len(c) for c in cids)
    without_cid = _CID_RE.sub("", text)
    controls = len(_CONTROL_RE.findall(without_cid))
    replacement = without_cid.count("\ufffd")
    # Tabs/newlines inside garbage are glyph ids too, but they are also legitimate
    # separators, so they are left out of both counts.
    visible = sum(1 for ch in text if not ch.isspace() or _CONTROL_RE.match(ch))
    return GarbleReport(
        bad_chars=cid_chars + controls + replacement + foreign, visible_chars=visible, cid_tokens=len(cids)
    )


def _expected_char(ch: str) -> bool:
    cp = ord(ch)
    i = bisect.bisect_right(_RANGE_STARTS, cp) - 1
    return i >= 0 and cp <= _EXPECTED_RANGES[i][1]


def strip_control_chars(text: str) -> str:
    """Remove isolated control characters (keeps TAB and LF) from otherwise good text."""
    return _CONTROL_RE.sub("", text)


# Where a text splits into the runs an extractor repeats: line breaks and sentence ends.
_SEGMENT_END_RE = re.compile(r"\n|(?<=[。！？；.!?;])\s*")


def informative_chars(text: str) -> int:
    """Visible characters of ``text`` with each segment (a line, or a sentence within one;
    whitespace ignored) counted once: a segment seen before adds nothing. An extractor caught in a
    Form XObject cycle, or drawing overprinted text, repeats the page's lines or sentences many
    times; this is how much it really read, so comparing two extractors' texts by it penalises
    repeated runs instead of rewarding length."""
    seen: set[str] = set()
    total = 0
    for segment in _SEGMENT_END_RE.split(text):
        key = "".join(segment.split())
        if key and key not in seen:
            seen.add(key)
            total += len(key)
    return total


def count_control_chars(text: str) -> int:
    """Number of C0/C1 control characters in ``text`` other than TAB and LF."""
    return len(_CONTROL_RE.findall(text))


def count_visible_chars(text: str) -> int:
    """Number of non-whitespace characters in ``text`` (what "characters per page" counts)."""
    return sum(1 for ch in text if not ch.isspace())


def is_private_use(ch: str) -> bool:
    """True for private-use code points (HK characters / Word bullets in some PDFs)."""
    return unicodedata.category(ch) == "Co"

"""Characters a PDF's font maps wrongly, found by their shapes (issue 18, "every page read right").

A PDF's text is what its fonts' mapping tables (ToUnicode CMaps) say the glyphs are. pypdf and
PDFium read the same table, so a wrong table gives both the same wrong characters and comparing
the extractors finds nothing. The case seen with HK papers: a font whose table gives an HKSCS
character outside the BMP (Ext-B) the code point equal to its Big5-HKSCS code: 𨋢 (Big5-HKSCS
9DF2) is read as 鷲 U+9DF2, 𡃁 (9E63) as 鹣 U+9E63, and the page is indexed with the wrong word.

``GlyphChecker`` looks at each page's text first (microseconds; a page without a candidate costs
nothing more):

* **Candidates**: a BMP character whose code, read as two Big5-HKSCS bytes, is a
  supplementary-plane character (``reinterpretation``: 1,693 code points); only the 1,401
  *rare* ones trigger a check (not a frequent Big5 character: their own Big5 code is outside
  A440-C67E; 鷲 is Big5 F86C, 鹣 is not in Big5); the 292 frequent ones (行 試 評 話 ...) are
  checked only in a font found wrong. Also a private-use character that the HK table
  (``shared.textnorm.map_pua``, which the splitter applies) reads as a standard character: the
  glyph must have that character's shape.
* **Shapes** (``glyphshape``): PDFium renders the glyph alone, upright in its em box, and it is
  compared with the character read and the alternative drawn in the reference fonts
  (``Settings.glyph_reference_fonts``: Noto Sans and Serif CJK HK). The alternative wins when it
  scores at least ``MATCH`` and ``MARGIN`` more than the character read. A wrong glyph makes its
  font suspect: the page's frequent candidates in that font are checked too, and those in fonts
  of the same name on the pages after. Verdicts are kept per font and character on a page.
* **Outcome**: a confirmed character is replaced in the page text and in its position layer
  (the fixes ``GlyphChecker`` returns to ``boxes.iter_page_boxes``), and the page gets a warning
  naming the changes. What cannot be settled is kept as read with a warning for the page:
  U+FFFD, private-use characters of planes 15/16 (no table), a private-use glyph whose shape is
  not its table's character, an alternative that matches about as well as the character read,
  a confirmed character that cannot be placed in the page text.

Without a reference font installed no shape is checked (logged once); the U+FFFD and plane-15/16
warnings, which need no shapes, remain.
"""
from __future__ import annotations

import ctypes
import logging
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from shared.models import PageText
from shared.settings import Settings
from shared.textnorm import BULLET_GLYPHS, map_pua

from .boxes import page_chars

if TYPE_CHECKING:
    from PIL.ImageFont import FreeTypeFont

log = logging.getLogger("legco.parser.glyphmap")

#: A glyph at least this similar (``glyphshape.similarity``, -1..1) to a character's reference
#: has that character's shape ...
MATCH = 0.6
#: ... and it is taken for the alternative only when this much more similar to it than to the
#: character read.
MARGIN = 0.2
#: Different (font, character) pairs shape-checked on one page at most (a bound on the cost).
MAX_CHECKS_PER_PAGE = 200
#: The frequent range of Big5 (its level-1 characters).
BIG5_FREQUENT = (0xA440, 0xC67E)


def _big5_code(ch: str) -> int | None:
    try:
        raw = ch.encode("big5")
    except UnicodeEncodeError:
        return None
    return int.from_bytes(raw, "big") if len(raw) == 2 else None


@cache
def reinterpretation(ch: str) -> str | None:
    """The supplementary-plane character that the code of the BMP character ``ch`` is as two
    Big5-HKSCS bytes (鷲 U+9DF2 -> 9DF2 -> 𨋢), or None."""
    code = ord(ch)
    if not 0x8140 <= code <= 0xFEFE or not (0x40 <= code & 0xFF <= 0x7E or 0xA1 <= code & 0xFF <= 0xFE):
        return None
    try:
        decoded = code.to_bytes(2, "big").decode("big5hkscs")
    except UnicodeDecodeError:
        return None
    return decoded if len(decoded) == 1 and ord(decoded) > 0xFFFF else None


def is_frequent(ch: str) -> bool:
    """Whether ``ch`` is a frequent Big5 character (level 1, Big5 A440-C67E)."""
    code = _big5_code(ch)
    return code is not None and BIG5_FREQUENT[0] <= code <= BIG5_FREQUENT[1]


def is_rare(ch: str) -> bool:
    """Whether ``ch`` has a ``reinterpretation`` and is not a frequent Big5 character."""
    return reinterpretation(ch) is not None and not is_frequent(ch)


@dataclass(frozen=True)
class Tables:
    """Every character with a ``reinterpretation``: ``reinterpret`` (character -> it), split
    into ``rare`` (1,401: they trigger a check) and ``frequent`` (292: 行 試 評 話 ...)."""

    reinterpret: dict[str, str]
    rare: frozenset[str]
    frequent: frozenset[str]


@cache
def tables() -> Tables:
    """``Tables`` (~40 ms: every Big5-HKSCS code decoded; the checks ask ``reinterpretation``
    character by character instead)."""
    reinterpret = {chr(c): alt for c in range(0x8140, 0xFEFF) if (alt := reinterpretation(chr(c)))}
    rare = frozenset(ch for ch in reinterpret if is_rare(ch))
    return Tables(reinterpret, rare, frozenset(reinterpret) - rare)


def pua_alternative(ch: str) -> str | None:
    """The standard character the HK private-use table reads ``ch`` as (``map_pua``), or None
    when ``ch`` is not a private-use character it maps (nor a Word bullet, mapped elsewhere)."""
    if not "\ue000" <= ch <= "\uf8ff" or ch in BULLET_GLYPHS:
        return None
    mapped = map_pua(ch)
    return mapped if mapped != ch else None


def alternative(ch: str) -> str | None:
    """What a glyph read as ``ch`` may be instead: its ``reinterpretation``, its private-use
    table character, or None (not a candidate)."""
    return reinterpretation(ch) or pua_alternative(ch)


def triggers(ch: str) -> bool:
    """Whether ``ch`` makes its page checked: a rare reinterpretable or a mapped private-use
    character."""
    return is_rare(ch) or pua_alternative(ch) is not None


#: Where the reinterpretable and private-use characters are: nothing outside is a candidate.
_MAYBE_RE = re.compile("[\u8140-\ufefe]")
#: Characters that cannot be checked: U+FFFD, planes 15/16 (private use).
UNVERIFIABLE_RE = re.compile("[\ufffd\U000f0000-\U0010ffff]")


def text_triggers(text: str) -> bool:
    """Whether ``text`` holds a character that ``triggers`` a check (microseconds a page)."""
    return any(triggers(ch) for ch in set(_MAYBE_RE.findall(text)))


# ----------------------------------------------------------------------------- one page


WRONG, RIGHT, UNSURE = "wrong", "right", "unsure"


@dataclass(frozen=True)
class _Occurrence:
    """One candidate character on a page: PDFium index, the character read, its font
    (PDFium's handle, the same object for the same font while the page is open) and name."""

    index: int
    char: str
    font: int
    font_name: str


@dataclass
class PageVerdicts:
    """A page's shape checks: PDFium index -> (verdict, character read, alternative), and the
    names of the fonts found wrong there."""

    verdicts: dict[int, tuple[str, str, str]] = field(default_factory=dict)
    wrong_fonts: set[str] = field(default_factory=set)


def _font_of(textpage: pdfium.PdfTextPage, index: int) -> tuple[int, str]:
    obj = pdfium_c.FPDFText_GetTextObject(textpage.raw, index)
    font = pdfium_c.FPDFTextObj_GetFont(obj) if obj else None
    handle = (ctypes.cast(font, ctypes.c_void_p).value or 0) if font else 0
    name = ctypes.create_string_buffer(256)
    flags = ctypes.c_int()
    pdfium_c.FPDFText_GetFontInfo(textpage.raw, index, name, 256, ctypes.byref(flags))
    return handle, name.value.decode("latin-1")


def decide(read_score: float | None, alt_score: float | None, private_use: bool) -> str:
    """The verdict on a glyph read as a character (similarity ``read_score`` to its reference)
    that may be an alternative (``alt_score``); a score is None when no reference font has the
    character or the glyph has no ink. A ``private_use`` character has no reference shape: its
    glyph must be the alternative's."""
    if private_use:
        return RIGHT if alt_score is not None and alt_score >= MATCH else UNSURE
    if alt_score is None:
        return RIGHT
    if alt_score >= MATCH and alt_score - (read_score or 0.0) >= MARGIN:
        return WRONG
    return UNSURE if alt_score >= MATCH else RIGHT


class _PageChecker:
    """Shape checks on one open page, each (font, character) once."""

    def __init__(self, page: pdfium.PdfPage, textpage: pdfium.PdfTextPage, fonts: tuple[FreeTypeFont, ...]) -> None:
        from . import glyphshape

        self.shape = glyphshape
        self.page, self.textpage, self.fonts = page, textpage, fonts
        self.display = glyphshape.display_affine(page)
        self.done: dict[tuple[int, str], str] = {}
        self.result = PageVerdicts()

    def check(self, occurrences: Iterable[_Occurrence]) -> None:
        for occ in occurrences:
            if occ.index in self.result.verdicts:
                continue
            alt = alternative(occ.char) or ""
            key = (occ.font, occ.char)
            if key not in self.done:
                if len(self.done) >= MAX_CHECKS_PER_PAGE:  # unchecked: a private-use one stays in doubt
                    if pua_alternative(occ.char):
                        self.result.verdicts[occ.index] = (UNSURE, occ.char, alt)
                    continue
                self.done[key] = self._verdict(occ, alt)
            verdict = self.done[key]
            self.result.verdicts[occ.index] = (verdict, occ.char, alt)
            if verdict == WRONG and occ.font_name:
                self.result.wrong_fonts.add(occ.font_name)

    def _verdict(self, occ: _Occurrence, alt: str) -> str:
        shape = self.shape
        font = pdfium_c.FPDFTextObj_GetFont(pdfium_c.FPDFText_GetTextObject(self.textpage.raw, occ.index))
        metrics = shape.font_metrics(font) if font else shape.CJK_EM_BOX
        image = shape.glyph_image(self.page, self.textpage, occ.index, self.display, metrics)
        glyph = shape.ink_vector(image) if image is not None else None
        private_use = "\ue000" <= occ.char <= "\uf8ff"
        if glyph is None:
            return UNSURE if private_use else RIGHT
        return decide(None if private_use else shape.best_similarity(glyph, occ.char, self.fonts),
                      shape.best_similarity(glyph, alt, self.fonts), private_use)


def check_page(page: pdfium.PdfPage, textpage: pdfium.PdfTextPage, chars: list[tuple[int, str]],
               fonts: tuple[FreeTypeFont, ...], wrong_font_names: frozenset[str] = frozenset()) -> PageVerdicts:
    """Shape-check the candidates of one PDFium page (``textpage`` its text page, ``chars``
    its ``boxes.page_chars``): every character that ``triggers``, then the frequent
    reinterpretable ones in the fonts found wrong on the page and in fonts named in
    ``wrong_font_names``."""
    occurrences = []
    for index, ch in chars:
        if alternative(ch):
            handle, name = _font_of(textpage, index)
            occurrences.append(_Occurrence(index, ch, handle, name))
    checker = _PageChecker(page, textpage, fonts)
    checker.check(o for o in occurrences if triggers(o.char) or (o.font_name and o.font_name in wrong_font_names))
    wrong = {font for (font, _), verdict in checker.done.items() if verdict == WRONG}
    if wrong:
        checker.check(o for o in occurrences if is_frequent(o.char) and o.font in wrong)
    return checker.result


# ----------------------------------------------------------------------------- the document


def _shown(ch: str) -> str:
    """``ch`` for a message: itself, or ``U+XXXX`` for a private-use or replacement character."""
    return f"U+{ord(ch):04X}" if ch == "\ufffd" or "\ue000" <= ch <= "\uf8ff" or ord(ch) >= 0xF0000 else ch


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def page_warnings(number: int, replaced: list[tuple[str, str]], doubtful: list[str]) -> list[str]:
    """The sentences about page ``number``: the characters read from their shapes instead
    (``replaced``: (read, right) per character) and those kept as read that may be wrong."""
    out = []
    if replaced:
        pairs = ", ".join(f"{a} → {b}" + (f" ×{n}" if n > 1 else "") for (a, b), n in Counter(replaced).items())
        verb = "was" if len(replaced) == 1 else "were"
        out.append(f"Page {number}: {_count(len(replaced), 'character')} the PDF's font maps wrongly {verb} "
                   f"read from their shapes instead ({pairs}).")
    if doubtful:
        chars = ", ".join(_shown(ch) + (f" ×{n}" if n > 1 else "") for ch, n in Counter(doubtful).items())
        one = len(doubtful) == 1
        out.append(f"Page {number}: {_count(len(doubtful), 'character')} ({chars}) may be mapped wrongly by the "
                   f"PDF's font: {'its printed shape' if one else 'their printed shapes'} could not be matched, "
                   f"so {'it was' if one else 'they were'} kept as read.")
    return out


def apply_verdicts(text: str, pdfium_text: list[tuple[int, str]], result: PageVerdicts
                   ) -> tuple[str, list[tuple[str, str]], list[str]]:
    """``text`` (the page text chosen, from either extractor) with the characters ``result``
    found wrong replaced; returns it, the (read, right) pairs replaced, and the characters that
    stay doubtful (unsure verdicts; wrong ones that cannot be placed in ``text``).

    ``pdfium_text``: ``boxes.page_chars`` of the page. A character whose every PDFium
    occurrence is wrong (with one right character) is replaced everywhere in ``text``; one also
    read right elsewhere on the page is replaced occurrence by occurrence when ``text`` has as
    many of it as PDFium's text (both in reading order), else it stays and is doubtful."""
    doubtful = [read for verdict, read, _ in result.verdicts.values() if verdict == UNSURE]
    wrong: dict[str, dict[int, str]] = {}
    for index, (verdict, read, alt) in result.verdicts.items():
        if verdict == WRONG:
            wrong.setdefault(read, {})[index] = alt
    replaced: list[tuple[str, str]] = []
    for read, at in wrong.items():
        seen = [i for i, ch in pdfium_text if ch == read]
        alts = set(at.values())
        if len(at) == len(seen) and len(alts) == 1:
            (alt,) = alts
            replaced += [(read, alt)] * text.count(read)
            text = text.replace(read, alt)
        elif text.count(read) == len(seen):
            parts = text.split(read)
            text = parts[0] + "".join(at.get(i, read) + part for i, part in zip(seen, parts[1:], strict=True))
            replaced += [(read, at[i]) for i in seen if i in at]
        else:
            doubtful += [read] * len(at)
    return text, replaced, doubtful


class GlyphChecker:
    """The document's shape checks, page by page as the position-layer pass loads each page
    (``boxes.iter_page_boxes(data, checker)``), so no page is loaded twice.

    ``pages``: the document's ``PageText`` list (1-based ``page_number``); a page whose
    characters are repaired is replaced in it (``model_copy``) when it is checked. A font found
    wrong makes its frequent characters checked on the pages after (fonts of the same name).
    """

    def __init__(self, pages: list[PageText], settings: Settings) -> None:
        self.pages = pages
        self.font_paths = tuple(settings.glyph_reference_fonts)
        self.wrong_names: set[str] = set()
        self.fixes: dict[int, dict[int, str]] = {}
        self._notes: dict[int, tuple[list[tuple[str, str]], list[str]]] = {}

    def __call__(self, number: int, page: pdfium.PdfPage) -> dict[int, str] | None:
        """Check page ``number`` (1-based), open in PDFium as ``page``, if its text holds a
        candidate; returns its fixes for the position layer (PDFium index -> character)."""
        if not self.wants(number):
            return None
        from .glyphshape import reference_fonts

        fonts = reference_fonts(self.font_paths)
        if not fonts:
            return None
        text = self.pages[number - 1].text
        try:
            textpage = page.get_textpage()
            try:
                chars = page_chars(textpage)
                verdicts = check_page(page, textpage, chars, fonts, frozenset(self.wrong_names))
            finally:
                textpage.close()
        except Exception:  # the check is an aid: a page it cannot render or compare is parsed as read
            log.warning("page %d: the glyph check failed; its text is kept as read", number, exc_info=True)
            return None
        self.wrong_names |= verdicts.wrong_fonts
        new_text, replaced, doubtful = apply_verdicts(text, chars, verdicts)
        if new_text != text:
            old = self.pages[number - 1]
            self.pages[number - 1] = old.model_copy(update={"text": new_text, "char_count": len(new_text)})
        self._notes[number] = (replaced, doubtful)
        fixes = {index: alt for index, (verdict, _, alt) in verdicts.verdicts.items() if verdict == WRONG}
        if fixes:
            self.fixes[number] = fixes
        return fixes or None

    def wants(self, number: int) -> bool:
        """Whether page ``number`` (1-based) is to be checked: reference fonts are configured
        and its text holds a candidate (``text_triggers``, or a frequent reinterpretable
        character once a font was found wrong)."""
        if not self.font_paths or not 1 <= number <= len(self.pages):
            return False
        text = self.pages[number - 1].text
        return text_triggers(text) or bool(self.wrong_names) and any(
            reinterpretation(ch) and is_frequent(ch) for ch in set(_MAYBE_RE.findall(text)))

    def warnings(self) -> list[str]:
        """The sentences for the user (``page_warnings``), in page order: the pages checked,
        and every page whose text holds U+FFFD or plane-15/16 private-use characters."""
        out: list[str] = []
        for page in self.pages:
            if page.page_number is None:
                continue
            replaced, doubtful = self._notes.get(page.page_number, ([], []))
            out += page_warnings(page.page_number, replaced, doubtful + UNVERIFIABLE_RE.findall(page.text))
        return out


def check_glyphs(data: bytes, pages: list[PageText], settings: Settings) -> tuple[list[PageText], GlyphChecker]:
    """``GlyphChecker`` run over every page of the PDF ``data`` on its own (the parser runs it
    inside the position-layer pass instead); returns the repaired copy of ``pages`` and the
    checker (``fixes``, ``warnings()``). A PDF or page PDFium cannot open is left as it is."""
    checker = GlyphChecker(list(pages), settings)
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError:
        return checker.pages, checker
    try:
        for i in range(len(doc)):
            if not checker.wants(i + 1):
                continue
            try:
                page = doc[i]
            except pdfium.PdfiumError:
                continue
            try:
                checker(i + 1, page)
            finally:
                page.close()
    finally:
        doc.close()
    return checker.pages, checker

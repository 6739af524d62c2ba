"""A PDF glyph's shape compared with a character's: PDFium renders the glyph, Pillow draws the
character in a reference font, and both become comparable vectors (``glyphmap`` decides with
them). Imported only when a page has a character to check; Pillow and plain Python (no numpy,
whose import alone would cost the parse child ~0.1-0.4 s per document).

* ``glyph_image``: PDFium's rendering of the page inside one character's em box, upright (the
  character's text matrix undone), ``GLYPH_PX`` pixels an em.
* ``reference_fonts`` / ``reference_vectors``: the reference fonts (``Settings.glyph_reference_fonts``)
  and a character drawn in each at ``REFERENCE_PX``.
* ``ink_vector`` / ``similarity``: an image cut to its ink box, centred on a square, scaled to
  ``GRID`` x ``GRID``, blurred, as a zero-mean unit vector; the correlation of two (-1..1).

Figures (Noto Serif CJK HK printed by Chromium; Noto Sans and Serif CJK HK as references): the
glyph of 𨋢 read as 鷲 scores 0.26 against 鷲 and 0.95 against 𨋢, a genuine 鷲 0.93 and 0.27;
the 邨 of the corpus's papers 0.74-0.97 against 邨 and at most 0.25 against 𨫢 (its Big5-HKSCS
reading).
"""
from __future__ import annotations

import ctypes
import logging
import math
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

from .boxes import display_mapping

log = logging.getLogger("legco.parser.glyphmap")

#: Side of the square the glyph and the references are compared on (pixels).
GRID = 32
#: Pixels per em the PDF glyph is rendered at, and the reference glyphs' size in pixels.
GLYPH_PX = 48
REFERENCE_PX = 96
#: An image whose ink contrasts less than this with its background (0-255) has no glyph.
MIN_CONTRAST = 48

Vector = tuple[float, ...]


def similarity(a: Vector | None, b: Vector | None) -> float:
    """Correlation (-1..1) of two ``ink_vector``s; 0.0 when either is missing."""
    if a is None or b is None:
        return 0.0
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


def _rules(mask: Image.Image) -> tuple[list[int], list[int]]:
    """The rows and columns of ``mask`` (mode L, 255 = ink) in its outer quarter that are inked
    across at least 97 % of the width (height): ruling lines such as a table border or an
    underline (an ideograph's strokes leave its side bearings blank)."""
    width, height = mask.size
    row_ink = mask.resize((1, height), Image.Resampling.BOX).tobytes()  # each row's mean
    col_ink = mask.resize((width, 1), Image.Resampling.BOX).tobytes()
    rows = [y for y in (*range(height // 4), *range(height - height // 4, height)) if row_ink[y] >= 0.97 * 255]
    cols = [x for x in (*range(width // 4), *range(width - width // 4, width)) if col_ink[x] >= 0.97 * 255]
    return rows, cols


def ink_vector(gray: Image.Image) -> Vector | None:
    """The comparable form of a glyph image: ``gray`` (mode L, any background) as its ink (the
    difference from the border's median), ruling lines dropped (``_rules``), cut to its ink
    box, centred on a square, scaled to ``GRID`` x ``GRID``, blurred (radius 1 pixel), as a
    zero-mean unit vector of ``GRID``² floats. None when the image has no ink (contrast under
    ``MIN_CONTRAST``)."""
    width, height = gray.size
    if width < 2 or height < 2:
        return None
    border = sorted([*gray.crop((0, 0, width, 1)).tobytes(), *gray.crop((0, height - 1, width, height)).tobytes(),
                     *gray.crop((0, 0, 1, height)).tobytes(), *gray.crop((width - 1, 0, width, height)).tobytes()])
    background = border[len(border) // 2]
    ink = gray.point([abs(v - background) for v in range(256)])
    high = ink.getextrema()[1]  # (low, high) for a one-band image
    strongest = float(high) if isinstance(high, int | float) else 0.0
    if strongest < MIN_CONTRAST:
        return None
    mask = ink.point([255 if v > 0.3 * strongest else 0 for v in range(256)])
    rows, cols = _rules(mask)
    if rows or cols:
        draw = ImageDraw.Draw(mask)
        for y in rows:
            draw.line([(0, y), (width - 1, y)], fill=0)
        for x in cols:
            draw.line([(x, 0), (x, height - 1)], fill=0)
    image = ImageChops.multiply(ink, mask)
    box = image.getbbox()
    if box is None:
        return None
    image = image.crop(box)
    side = max(image.size)
    square = Image.new("L", (side, side))
    square.paste(image, ((side - image.size[0]) // 2, (side - image.size[1]) // 2))
    small = square.resize((GRID, GRID), Image.Resampling.BOX).filter(ImageFilter.GaussianBlur(1))
    values = [float(v) for v in small.tobytes()]
    mean = math.fsum(values) / len(values)
    centred = [v - mean for v in values]
    norm = math.sqrt(math.fsum(v * v for v in centred))
    return tuple(v / norm for v in centred) if norm > 0 else None


def _load(path: str) -> ImageFont.FreeTypeFont:
    """``path`` at ``REFERENCE_PX``: a collection's first face named "... HK" (not Mono), else
    its first "... TC", else its first face.

    Raises:
        OSError: the file is not a font FreeType reads.
    """
    first: ImageFont.FreeTypeFont | None = None
    tc: ImageFont.FreeTypeFont | None = None
    for index in range(32):
        try:
            font = ImageFont.truetype(path, REFERENCE_PX, index=index)
        except OSError:
            if first is None:
                raise
            break
        name = str(font.getname()[0])
        first = first or font
        if "Mono" not in name and name.endswith(" HK"):
            return font
        if "Mono" not in name and name.endswith(" TC"):
            tc = tc or font
    assert first is not None
    return tc or first


@cache
def reference_fonts(paths: tuple[str, ...]) -> tuple[ImageFont.FreeTypeFont, ...]:
    """The fonts of ``paths`` that exist and load (``_load``); logs once per process which were
    found, or that no shape will be checked."""
    fonts = []
    for path in paths:
        if not Path(path).is_file():
            continue
        try:
            fonts.append(_load(path))
        except OSError as e:
            log.warning("glyph reference font %s cannot be loaded: %s", path, e)
    if fonts:
        log.info("glyph shapes checked against %s", ", ".join(str(f.getname()[0]) for f in fonts))
    else:
        log.warning("no glyph reference font (GLYPH_REFERENCE_FONTS=%s): the shapes of characters a "
                    "PDF's font may map wrongly are not checked", ",".join(paths))
    return tuple(fonts)


def _draw(font: ImageFont.FreeTypeFont, ch: str) -> Image.Image:
    """``ch`` drawn black on white in ``font``, with room around it (mode L)."""
    canvas = Image.new("L", (REFERENCE_PX * 3 // 2, REFERENCE_PX * 3 // 2), 255)
    ImageDraw.Draw(canvas).text((REFERENCE_PX // 4, REFERENCE_PX // 8), ch, font=font, fill=0)
    return canvas


@lru_cache(maxsize=16)
def _notdef(font: ImageFont.FreeTypeFont) -> bytes:
    """What ``font`` draws for a character it has no glyph for (its .notdef box)."""
    return _draw(font, "\U0010fffd").tobytes()


@lru_cache(maxsize=4096)
def reference_vectors(ch: str, fonts: tuple[ImageFont.FreeTypeFont, ...]) -> tuple[Vector, ...]:
    """``ink_vector`` of ``ch`` drawn in each of ``fonts`` that has a glyph for it (a font
    without one draws its .notdef box, recognised by drawing a character no font has)."""
    out = []
    for font in fonts:
        canvas = _draw(font, ch)
        if canvas.tobytes() == _notdef(font):
            continue
        vector = ink_vector(canvas)
        if vector is not None:
            out.append(vector)
    return tuple(out)


def best_similarity(glyph: Vector | None, ch: str, fonts: tuple[ImageFont.FreeTypeFont, ...]) -> float | None:
    """The highest ``similarity`` of ``glyph`` to ``ch`` in any reference font; None when no
    reference font has ``ch``."""
    refs = reference_vectors(ch, fonts)
    return max(similarity(glyph, r) for r in refs) if refs else None


# ----------------------------------------------------------------------------- PDFium glyphs


@dataclass(frozen=True)
class Affine:
    """A PDF matrix: x' = a x + c y + e, y' = b x + d y + f."""

    a: float
    b: float
    c: float
    d: float
    e: float
    f: float

    def __matmul__(self, o: Affine) -> Affine:
        """``self`` after ``o``."""
        return Affine(self.a * o.a + self.c * o.b, self.b * o.a + self.d * o.b,
                      self.a * o.c + self.c * o.d, self.b * o.c + self.d * o.d,
                      self.a * o.e + self.c * o.f + self.e, self.b * o.e + self.d * o.f + self.f)

    def inverse(self) -> Affine:
        """Raises ZeroDivisionError for a singular matrix."""
        det = self.a * self.d - self.b * self.c
        a, b, c, d = self.d / det, -self.b / det, -self.c / det, self.a / det
        return Affine(a, b, c, d, -(a * self.e + c * self.f), -(b * self.e + d * self.f))


def display_affine(page: pdfium.PdfPage) -> Affine:
    """PDF user space -> the coordinates ``FPDF_RenderPageBitmapWithMatrix`` applies its matrix
    to: the displayed page (``boxes.display_mapping``), scaled to the whole points PDFium
    truncates its size to."""
    to_display, width, height = display_mapping(page)
    o, x, y = to_display(0.0, 0.0), to_display(1.0, 0.0), to_display(0.0, 1.0)
    sx = math.floor(width) / width if width >= 1 else 1.0
    sy = math.floor(height) / height if height >= 1 else 1.0
    display = Affine(x[0] - o[0], x[1] - o[1], y[0] - o[0], y[1] - o[1], o[0], o[1])
    return Affine(sx, 0, 0, sy, 0, 0) @ display


@dataclass(frozen=True)
class FontMetrics:
    """A font's ascent and descent in em (descent negative)."""

    ascent: float
    descent: float


CJK_EM_BOX = FontMetrics(0.88, -0.12)


def font_metrics(font: ctypes.c_void_p) -> FontMetrics:
    """``font``'s (a PDFium ``FPDF_FONT``) ascent and descent as PDFium reports them, or
    ``CJK_EM_BOX`` when they are implausible."""
    ascent, descent = ctypes.c_float(), ctypes.c_float()
    if (pdfium_c.FPDFFont_GetAscent(font, 1.0, ctypes.byref(ascent))
            and pdfium_c.FPDFFont_GetDescent(font, 1.0, ctypes.byref(descent))
            and 0.5 <= ascent.value <= 1.2 and -0.5 <= descent.value <= 0.0
            and 0.9 <= ascent.value - descent.value <= 1.5):
        return FontMetrics(ascent.value, descent.value)
    return CJK_EM_BOX


def glyph_image(page: pdfium.PdfPage, textpage: pdfium.PdfTextPage, index: int, display: Affine,
                metrics: FontMetrics) -> Image.Image | None:
    """PDFium's rendering (mode L, ``GLYPH_PX`` pixels wide) of the page inside character
    ``index``'s em box, upright: the character's text matrix (rotation, italic shear) is undone;
    the box runs from the character's origin one em right and from ``metrics``' descent to its
    ascent (4 % more each way), so a full-width neighbour stays outside. ``display``:
    ``display_affine(page)``. None for a degenerate matrix or size."""
    matrix = pdfium_c.FS_MATRIX()
    x, y = ctypes.c_double(), ctypes.c_double()
    if not (pdfium_c.FPDFText_GetMatrix(textpage.raw, index, ctypes.byref(matrix))
            and pdfium_c.FPDFText_GetCharOrigin(textpage.raw, index, ctypes.byref(x), ctypes.byref(y))):
        return None
    k = math.sqrt(abs(matrix.a * matrix.d - matrix.b * matrix.c))
    em = pdfium_c.FPDFText_GetFontSize(textpage.raw, index) * k
    if k < 1e-6 or not 1.0 <= em <= 2000.0:
        return None
    upright = Affine(matrix.a / k, matrix.b / k, matrix.c / k, matrix.d / k, x.value, y.value).inverse()
    scale = GLYPH_PX / em
    top, bottom = (metrics.ascent + 0.04) * em, (metrics.descent - 0.04) * em
    m = Affine(scale, 0, 0, -scale, 0, scale * top) @ upright @ display.inverse()
    width, height = GLYPH_PX, math.ceil(scale * (top - bottom))
    bitmap = pdfium.PdfBitmap.new_native(width, height, pdfium_c.FPDFBitmap_Gray)
    try:
        bitmap.fill_rect((255, 255, 255, 255), 0, 0, width, height)
        fs_matrix = pdfium_c.FS_MATRIX(m.a, m.b, m.c, m.d, m.e, m.f)
        clip = pdfium_c.FS_RECTF(0.0, 0.0, float(width), float(height))
        pdfium_c.FPDF_RenderPageBitmapWithMatrix(bitmap.raw, page.raw, ctypes.byref(fs_matrix),
                                                 ctypes.byref(clip), 0)
        return Image.frombytes("L", (width, height), bytes(bitmap.buffer), "raw", "L", bitmap.stride)
    finally:
        bitmap.close()

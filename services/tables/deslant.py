"""Straighten slanted (oblique or italic) text lines for a second OCR pass.

Tesseract's ``chi_tra`` model reads upright CJK well but slanted CJK (the fixtures' ``[內部參考：…]``
notes, set in a synthetic italic) as Latin garbage at word confidences of 0-40. For such a line
:func:`estimate_shear` finds the horizontal shear that makes its strokes upright again and
:func:`shear` applies it; :func:`stack_lines` puts several straightened lines on one white image
so that a single Tesseract call reads them all (``ocr.TesseractEngine`` does this for the
low-confidence lines of a page).

A shear ``s`` maps an output pixel ``(x, y)`` of a line image of height ``h`` to the input pixel
``(x + s·(y − h/2), y)``: ``s < 0`` straightens text leaning to the right (its tops shifted
right by ``|s|`` pixels per pixel of height), ``s > 0`` text leaning left, ``0`` changes nothing.
Pure functions of PIL images and numpy; no I/O.
"""
from __future__ import annotations

import numpy as np
from PIL import Image

SHEARS: tuple[float, ...] = tuple(round(-0.35 + 0.05 * i, 2) for i in range(15))
"""Candidate shears, -0.35..+0.35 in steps of 0.05 (±19°; synthetic italics lean ~12°, 0.21)."""


def estimate_shear(line: Image.Image, shears: tuple[float, ...] = SHEARS, ink_below: int = 128) -> float:
    """The shear (from ``shears``) that makes the strokes of a one-line text image most upright.

    Ink is every pixel darker than ``ink_below`` (0..255 grey). For each candidate the ink is
    sheared and summed per column; upright vertical strokes pile into few columns, so the
    candidate with the largest sum of squared column counts wins (ties go to the smallest
    ``|s|``; an image without ink gives 0.0). Cost: O(ink pixels · candidates), ~1 ms for one
    line of a 200 DPI page.

    Args:
        line: the line image (any PIL mode; converted to grey), text roughly horizontal.
        shears: candidates (see the module docstring for the sign).
        ink_below: grey level under which a pixel counts as ink.
    """
    grey = np.asarray(line.convert("L"))
    ys, xs = np.nonzero(grey < ink_below)
    if xs.size == 0:
        return 0.0
    h = grey.shape[0]
    pad = int(np.ceil(max(abs(s) for s in shears) * h)) + 1
    best, best_score = 0.0, -1.0
    for s in sorted(shears, key=abs):
        cols = xs - np.rint(s * (ys - h / 2)).astype(np.int64) + pad
        score = float(np.square(np.bincount(cols).astype(np.float64)).sum())
        if score > best_score:
            best, best_score = s, score
    return best


def shear(line: Image.Image, s: float) -> Image.Image:
    """``line`` sheared by ``s`` (module docstring), same size, grey, bicubic, white fill."""
    grey = line.convert("L")
    w, h = grey.size
    return grey.transform((w, h), Image.Transform.AFFINE, (1, s, -s * h / 2, 0, 1, 0),
                          resample=Image.Resampling.BICUBIC, fillcolor=255)


def stack_lines(lines: list[Image.Image], gap: int = 40) -> tuple[Image.Image, list[tuple[int, int]]]:
    """One white grey image holding ``lines`` top to bottom, ``gap`` pixels apart and from the
    edges, left-aligned; and each line's (top, bottom) rows in it (bottom exclusive).

    Raises:
        ValueError: ``lines`` is empty.
    """
    if not lines:
        raise ValueError("no lines to stack")
    width = max(im.width for im in lines) + 2 * gap
    height = sum(im.height for im in lines) + gap * (len(lines) + 1)
    out = Image.new("L", (width, height), 255)
    slots: list[tuple[int, int]] = []
    y = gap
    for im in lines:
        out.paste(im.convert("L"), (gap, y))
        slots.append((y, y + im.height))
        y += im.height + gap
    return out, slots

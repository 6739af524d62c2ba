"""Local OCR of a scanned page image with Tesseract (Debian's ``tesseract-ocr`` 5 and its
``chi-tra``/``chi-sim``/``eng`` language packages: the models come from the packages, nothing is
downloaded at run time). Blocking and CPU-bound: call from a worker thread.

Why Tesseract and not ``rapidocr-onnxruntime``: ``bench/ocr_compare.py`` (figures in
``services/tables/README.md``).

The CLI is run once per page (``tesseract stdin stdout -l LANGS --psm 6 tsv``) with
``OMP_THREAD_LIMIT=1`` (one core per page; the stage scales by workers, like the vision path).
Its TSV gives one row per word with a confidence 0..100; words of a line are joined without a
space between two CJK characters (Tesseract splits Chinese text into one "word" per character).
Page segmentation mode 6 (one uniform block of text) suits the single-column LegCo papers: on the
real scanned paper mode 3 (automatic layout) broke paragraphs into fragments and read some as
Latin garbage (pages 1, 3, 5: 19-42 stray Latin letters against 0-12, fewer CJK characters, lower
confidence); on the fixture scans both read the same (mean 0.925 vs 0.922).

**Second pass for low-confidence lines** (``reread_below``): Tesseract reads slanted (oblique or
italic) CJK as Latin garbage at line confidences of 14-40 where upright lines read at 75-96.
Every line whose length-weighted confidence is under ``reread_below`` (70) is cut out of the page
(its word boxes, padded), straightened (``deslant.estimate_shear`` / ``deslant.shear``: upright
lines keep shear 0), and all such lines of the page are read together in **one** more Tesseract
call on a stack of them (``deslant.stack_lines``); a line takes the new reading when its
confidence is at least ``reread_gain`` (10) points higher. Pages without such lines cost nothing
more. On the bench's fixture scans this lifts the italic pages from 0.744/0.787 to 0.985/0.960
(``bench/ocr_compare.py``; figures in ``services/tables/README.md``).
"""
from __future__ import annotations

import io
import logging
import os
import re
import shutil
import subprocess
import time
import unicodedata
from dataclasses import dataclass, replace
from typing import Protocol

from PIL import Image

from services.tables.deslant import estimate_shear, shear, stack_lines

DEFAULT_LANGS = "chi_tra+eng"
_WS = re.compile(r"\s+")
log = logging.getLogger("legco.tables")
LineKey = tuple[int, int, int]


class OcrError(RuntimeError):
    """The OCR engine is missing, timed out or failed on a page."""


@dataclass(frozen=True)
class OcrResult:
    """One page read by OCR: ``text`` (lines joined by ``\\n``, paragraphs by a blank line),
    ``confidence`` (0..1, mean of the words' confidences weighted by their length; 0.0 when no
    text was found), ``seconds`` (wall clock of the engine calls), ``lines_reread`` (lines read a
    second time, straightened) and ``lines_replaced`` (of those, lines that took the new reading)."""

    text: str
    confidence: float
    seconds: float
    lines_reread: int = 0
    lines_replaced: int = 0


class OcrEngine(Protocol):
    """Reads one page image: :class:`TesseractEngine`, or a fake in tests."""

    def read(self, image: Image.Image) -> OcrResult:
        """OCR one page image. Raises :class:`OcrError` when the engine fails."""
        ...


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def _join_words(words: list[str]) -> str:
    """One line's words: no space between two wide (CJK) characters, one space otherwise."""
    out = ""
    for w in words:
        if out and not (_wide(out[-1]) or _wide(w[0])):
            out += " "
        out += w
    return out


@dataclass(frozen=True)
class Word:
    """One word of Tesseract's TSV (level 5): ``line`` = (``block_num``, ``par_num``,
    ``line_num``), its box in pixels (``left``, ``top``, ``width``, ``height``), ``conf`` 0..100
    and ``text`` (stripped, never empty)."""

    line: LineKey
    left: int
    top: int
    width: int
    height: int
    conf: float
    text: str


def tsv_words(tsv: str) -> list[Word]:
    """The non-empty words of Tesseract's TSV output (header row first), in output order; rows
    that are not words (level ≠ 5), short or with an unparsable number are skipped."""
    out: list[Word] = []
    for row in tsv.splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or cols[0] != "5":
            continue
        word = cols[11].strip()
        if not word:
            continue
        try:
            out.append(Word((int(cols[2]), int(cols[3]), int(cols[4])), int(cols[6]), int(cols[7]),
                            int(cols[8]), int(cols[9]), float(cols[10]), word))
        except ValueError:
            continue
    return out


def group_lines(words: list[Word]) -> dict[LineKey, list[Word]]:
    """Words by their line key, each line's words in the given order."""
    lines: dict[LineKey, list[Word]] = {}
    for w in words:
        lines.setdefault(w.line, []).append(w)
    return lines


def line_confidence(words: list[Word]) -> float:
    """Mean confidence (0..100, negatives as 0) of ``words`` weighted by their length; 0.0 for
    no words."""
    chars = sum(len(w.text) for w in words)
    return sum(max(w.conf, 0.0) * len(w.text) for w in words) / chars if chars else 0.0


def lines_text(lines: dict[LineKey, list[Word]]) -> tuple[str, float]:
    """(text, confidence 0..1) of lines in key order: lines joined by ``\\n``, a blank line
    between paragraphs (``block_num``, ``par_num``), words by :func:`_join_words`."""
    parts: list[str] = []
    last_par: tuple[int, int] | None = None
    for key in sorted(lines):
        if last_par is not None and key[:2] != last_par:
            parts.append("")
        parts.append(_join_words([w.text for w in lines[key]]))
        last_par = key[:2]
    words = [w for ws in lines.values() for w in ws]
    return "\n".join(parts).strip(), line_confidence(words) / 100


def parse_tsv(tsv: str) -> tuple[str, float]:
    """(text, confidence 0..1) from Tesseract's TSV output (header row first; level 5 rows are
    words: ``block_num``, ``par_num``, ``line_num``, ``conf`` 0..100, ``text``)."""
    return lines_text(group_lines(tsv_words(tsv)))


def line_box(words: list[Word], width: int, height: int) -> tuple[int, int, int, int]:
    """The crop (left, top, right, bottom) of a line on a ``width`` x ``height`` page: its words'
    bounding box padded by one line height left and right (room for a shear) and half of it
    above and below, clipped to the page."""
    left = min(w.left for w in words)
    top = min(w.top for w in words)
    right = max(w.left + w.width for w in words)
    bottom = max(w.top + w.height for w in words)
    h = bottom - top
    return max(0, left - h), max(0, top - h // 2), min(width, right + h), min(height, bottom + h // 2)


def assign_to_slots(words: list[Word], slots: list[tuple[int, int]], gap: int) -> list[list[Word]]:
    """The words read from a :func:`deslant.stack_lines` image, per slot: a word belongs to the
    slot whose rows, widened by ``gap / 2`` each way, hold its vertical centre (else none).
    Within a slot words are ordered by their own line key, then left to right."""
    out: list[list[Word]] = [[] for _ in slots]
    for w in words:
        centre = w.top + w.height / 2
        for i, (top, bottom) in enumerate(slots):
            if top - gap / 2 <= centre < bottom + gap / 2:
                out[i].append(w)
                break
    return [sorted(ws, key=lambda w: (w.line, w.left)) for ws in out]


class TesseractEngine:
    """Tesseract through its CLI, with a second pass for low-confidence lines (module docstring).

    Args:
        langs: Tesseract language names joined with ``+`` (installed traineddata).
        timeout_s: seconds one page may take (both passes together) before :class:`OcrError`.
        binary: the ``tesseract`` executable (looked up on ``PATH``).
        psm: Tesseract's page segmentation mode (6: one uniform block; 3: automatic layout).
        reread_below: line confidence (0..100) under which a line is straightened and read
            again; 0 turns the second pass off.
        reread_gain: confidence points (0..100) by which the second reading of a line must beat
            the first to replace it.
    """

    STACK_GAP = 40
    """White pixels between (and around) the lines stacked for the second pass."""

    def __init__(self, langs: str = DEFAULT_LANGS, timeout_s: float = 120.0, binary: str = "tesseract",
                 psm: int = 6, reread_below: float = 70.0, reread_gain: float = 10.0) -> None:
        self.psm = psm
        self.langs = langs
        self.timeout_s = timeout_s
        self.binary = binary
        self.reread_below = reread_below
        self.reread_gain = reread_gain

    def available(self) -> bool:
        """True when the executable is on ``PATH`` and every language in ``langs`` is installed."""
        exe = shutil.which(self.binary)
        if exe is None:
            return False
        try:
            out = subprocess.run([exe, "--list-langs"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            return False
        have = {line.strip() for line in out.splitlines()[1:]}
        return all(lang in have for lang in self.langs.split("+"))

    def _tsv(self, image: Image.Image, timeout_s: float) -> str:
        """Tesseract's TSV for one grey image (``--psm self.psm``, one thread).

        Raises:
            OcrError: the executable is missing, the call took over ``timeout_s`` seconds or
                exited non-zero.
        """
        buf = io.BytesIO()
        image.convert("L").save(buf, format="PNG")
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        try:
            proc = subprocess.run([self.binary, "stdin", "stdout", "-l", self.langs, "--psm", str(self.psm), "tsv"],
                                  input=buf.getvalue(), capture_output=True, timeout=timeout_s, env=env)
        except FileNotFoundError as e:
            raise OcrError(f"{self.binary} not found: install tesseract-ocr (scripts/deps.sh ocr)") from e
        except subprocess.TimeoutExpired as e:
            raise OcrError(f"OCR took longer than {timeout_s:g} s") from e
        if proc.returncode != 0:
            raise OcrError(f"tesseract exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-300:]}")
        return proc.stdout.decode("utf-8", errors="replace")

    def read(self, image: Image.Image) -> OcrResult:
        """OCR one page image (any PIL mode; 200-300 DPI reads best): the page, then its
        low-confidence lines straightened (:meth:`reread`) while time is left.

        Raises:
            OcrError: the executable is missing, the first pass timed out or exited non-zero (a
                failing second pass keeps the first reading).
        """
        t0 = time.perf_counter()
        grey = image.convert("L")
        lines = group_lines(tsv_words(self._tsv(grey, self.timeout_s)))
        reread = replaced = 0
        left_s = self.timeout_s - (time.perf_counter() - t0)
        if self.reread_below > 0 and left_s > 1:
            try:
                lines, reread, replaced = self.reread(grey, lines, left_s)
            except OcrError as e:
                log.warning("OCR second pass failed, first reading kept: %s", e)
        text, conf = lines_text(lines)
        return OcrResult(text=text, confidence=conf, seconds=time.perf_counter() - t0,
                         lines_reread=reread, lines_replaced=replaced)

    def reread(self, page: Image.Image, lines: dict[LineKey, list[Word]],
               timeout_s: float) -> tuple[dict[LineKey, list[Word]], int, int]:
        """Read the lines of ``page`` under ``reread_below`` confidence again, straightened, in
        one Tesseract call on a stack of them; a line takes the new words (re-keyed to its own
        line) when their confidence beats its own by ``reread_gain``.

        Returns:
            (the lines, a new dict; lines read again; lines replaced).

        Raises:
            OcrError: the second call failed or took over ``timeout_s`` seconds.
        """
        low = [k for k in sorted(lines) if line_confidence(lines[k]) < self.reread_below]
        if not low:
            return lines, 0, 0
        crops = []
        for key in low:
            crop = page.crop(line_box(lines[key], page.width, page.height))
            crops.append(shear(crop, estimate_shear(crop)))
        stacked, slots = stack_lines(crops, self.STACK_GAP)
        second = assign_to_slots(tsv_words(self._tsv(stacked, timeout_s)), slots, self.STACK_GAP)
        out = dict(lines)
        replaced = 0
        for key, words in zip(low, second, strict=True):
            if words and line_confidence(words) >= line_confidence(lines[key]) + self.reread_gain:
                out[key] = [replace(w, line=key) for w in words]
                replaced += 1
        return out, len(low), replaced


def _norm(text: str) -> str:
    return _WS.sub("", unicodedata.normalize("NFKC", text))


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions cost 1). O(len(a)·len(b))."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def char_accuracy(text: str, reference: str) -> float:
    """1 - edit distance / reference length, both NFKC-normalised without whitespace, floored at
    0 (1.0 when both are empty, 0.0 when only the reference is)."""
    t, r = _norm(text), _norm(reference)
    if not r:
        return 1.0 if not t else 0.0
    return max(0.0, 1 - edit_distance(t, r) / len(r))

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
"""
from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import unicodedata
from dataclasses import dataclass
from typing import Protocol

from PIL import Image

DEFAULT_LANGS = "chi_tra+eng"
_WS = re.compile(r"\s+")


class OcrError(RuntimeError):
    """The OCR engine is missing, timed out or failed on a page."""


@dataclass(frozen=True)
class OcrResult:
    """One page read by OCR: ``text`` (lines joined by ``\\n``, paragraphs by a blank line),
    ``confidence`` (0..1, mean of the words' confidences weighted by their length; 0.0 when no
    text was found) and ``seconds`` (wall clock of the engine call)."""

    text: str
    confidence: float
    seconds: float


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


def parse_tsv(tsv: str) -> tuple[str, float]:
    """(text, confidence 0..1) from Tesseract's TSV output (header row first; level 5 rows are
    words: ``block_num``, ``par_num``, ``line_num``, ``conf`` 0..100, ``text``)."""
    lines: dict[tuple[int, int, int], list[str]] = {}
    weighted, chars = 0.0, 0
    rows = tsv.splitlines()
    for row in rows[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or cols[0] != "5":
            continue
        word = cols[11].strip()
        if not word:
            continue
        try:
            conf = float(cols[10])
        except ValueError:
            continue
        key = (int(cols[2]), int(cols[3]), int(cols[4]))
        lines.setdefault(key, []).append(word)
        weighted += max(conf, 0.0) / 100 * len(word)
        chars += len(word)
    parts: list[str] = []
    last_par: tuple[int, int] | None = None
    for key in sorted(lines):
        if last_par is not None and key[:2] != last_par:
            parts.append("")
        parts.append(_join_words(lines[key]))
        last_par = key[:2]
    return "\n".join(parts).strip(), (weighted / chars if chars else 0.0)


class TesseractEngine:
    """Tesseract through its CLI.

    Args:
        langs: Tesseract language names joined with ``+`` (installed traineddata).
        timeout_s: seconds one page may take before :class:`OcrError`.
        binary: the ``tesseract`` executable (looked up on ``PATH``).
        psm: Tesseract's page segmentation mode (6: one uniform block; 3: automatic layout).
    """

    def __init__(self, langs: str = DEFAULT_LANGS, timeout_s: float = 120.0, binary: str = "tesseract",
                 psm: int = 6) -> None:
        self.psm = psm
        self.langs = langs
        self.timeout_s = timeout_s
        self.binary = binary

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

    def read(self, image: Image.Image) -> OcrResult:
        """OCR one page image (any PIL mode; 200-300 DPI reads best).

        Raises:
            OcrError: the executable is missing, the call timed out or exited non-zero.
        """
        import time

        buf = io.BytesIO()
        image.convert("L").save(buf, format="PNG")
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        t0 = time.perf_counter()
        try:
            proc = subprocess.run([self.binary, "stdin", "stdout", "-l", self.langs, "--psm", str(self.psm), "tsv"],
                                  input=buf.getvalue(), capture_output=True, timeout=self.timeout_s, env=env)
        except FileNotFoundError as e:
            raise OcrError(f"{self.binary} not found: install tesseract-ocr (scripts/deps.sh ocr)") from e
        except subprocess.TimeoutExpired as e:
            raise OcrError(f"OCR took longer than {self.timeout_s:g} s") from e
        if proc.returncode != 0:
            raise OcrError(f"tesseract exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-300:]}")
        text, conf = parse_tsv(proc.stdout.decode("utf-8", errors="replace"))
        return OcrResult(text=text, confidence=conf, seconds=time.perf_counter() - t0)


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

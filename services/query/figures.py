"""The answer guard's figures: every amount, percentage, date part and count in a text, as a
number, so that 15萬, 150,000, 十五萬 and 0.15 million are the same figure.

A generated answer may only state figures its sources state (``unsupported``); a small model
turned 150,000 into 100,000 once. What counts as a figure:

* Arabic numbers with thousands separators and decimals (``150,000``, ``120 000``, ``12.5``; in
  a source, spaced groups count both joined and apart: ``1878 999`` is a hotline), scaled by a
  multiplier after them: ``萬`` 10⁴, ``億`` 10⁸, ``千`` 10³, ``百萬`` 10⁶, ``thousand``,
  ``million``, ``billion`` (``0.15 million`` = 150,000, ``42 億`` = 4,200,000,000); a ``%`` /
  ``百分之`` figure is its number (``百分之十五`` = 15);
* Chinese numerals of two characters or more, or one followed by a multiplier (``十五萬``,
  ``一百二十``, ``兩億``); digit-by-digit years are read as written (``二〇二七`` = 2027). A lone
  ``一`` / ``三`` is a word more often than a figure (一般, 三思) and is not one;
* not figures: citation marks ``[1]``, list numbers at the start of a line (``1.``, ``2)``),
  digits inside codes (``A1``, ``Q7``; the ``1`` of ``CB(1)``).

Two figures are equal when their values differ by less than 10⁻⁶ of the larger.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_ZH_DIGITS = {"零": 0, "〇": 0, "○": 0, "一": 1, "二": 2, "兩": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000}
_ZH_BIG = {"萬": 10**4, "万": 10**4, "億": 10**8, "亿": 10**8}
_ZH_CHARS = "".join(_ZH_DIGITS) + "".join(_ZH_UNITS) + "".join(_ZH_BIG)

_MULT = {"萬": 1e4, "万": 1e4, "億": 1e8, "亿": 1e8, "千": 1e3, "百萬": 1e6, "百万": 1e6, "千萬": 1e7, "千万": 1e7,
         "thousand": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9}
_CITATION = re.compile(r"\[\d{1,3}\]")
_ENUMERATOR = re.compile(r"(?m)^\s*\d{1,2}[.)、]\s+")
_ARABIC = re.compile(
    r"(?<![A-Za-z0-9.,(])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?![\d.,])"
    r"|\d+(?:\.\d+)?)(?![\d(])"
    r"\s*(百萬|百万|千萬|千万|萬|万|億|亿|千|thousand\b|million\b|billion\b|mn\b|bn\b)?", re.IGNORECASE)
_ARABIC_APART = re.compile(_ARABIC.pattern.replace(r"|\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?![\d.,])", ""),
                           re.IGNORECASE)
_CHINESE = re.compile(rf"[{_ZH_CHARS}]+")


@dataclass(frozen=True)
class Figure:
    """One figure: ``text`` as printed, ``value`` as a number."""

    text: str
    value: float


def chinese_number(s: str) -> float | None:
    """The value of a run of Chinese numerals (``十五萬`` → 150000, ``二〇二七`` → 2027), or
    ``None`` when ``s`` is not one."""
    if not s or any(c not in _ZH_CHARS for c in s):
        return None
    if all(c in _ZH_DIGITS for c in s) and len(s) > 1:  # read digit by digit: 二〇二七
        return float("".join(str(_ZH_DIGITS[c]) for c in s))
    total, section, digit = 0, 0, 0
    for c in s:
        if c in _ZH_DIGITS:
            digit = _ZH_DIGITS[c]
        elif c in _ZH_UNITS:
            section += (digit or 1) * _ZH_UNITS[c]
            digit = 0
        elif _ZH_BIG[c] == 10**4:  # 萬: the part since the last 億, times ten thousand
            total += (section + digit) * 10**4
            section, digit = 0, 0
        else:  # 億: everything so far, times a hundred million
            total = (total + section + digit) * 10**8
            section, digit = 0, 0
    return float(total + section + digit)


def figures(text: str, spaced_groups: bool = True) -> list[Figure]:
    """The figures of ``text`` in order (see the module docstring for what counts).
    ``spaced_groups``: digit groups separated by a space are one number (``120 000`` =
    120,000, as LegCo papers print them); ``False`` reads them apart (``1878 999``)."""
    text = _ENUMERATOR.sub(" ", _CITATION.sub(" ", text))
    out: list[Figure] = []
    for m in (_ARABIC if spaced_groups else _ARABIC_APART).finditer(text):
        value = float(re.sub(r"[,\s]", "", m.group(1)))
        if m.group(2):
            value *= _MULT[m.group(2).lower()]
        out.append(Figure(m.group(0).strip(), value))
    for m in _CHINESE.finditer(text):
        run = m.group(0)
        if len(run) == 1 and run not in _ZH_BIG and text[m.end():m.end() + 1] not in _ZH_BIG:
            continue
        if run in _ZH_BIG or run in _ZH_UNITS:  # a multiplier on its own (after Arabic digits: taken above)
            continue
        number = chinese_number(run)
        if number is not None:
            out.append(Figure(run, number))
    return out


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1.0)


def unsupported(answer: str, sources: list[str]) -> list[Figure]:
    """The figures of ``answer`` that no text of ``sources`` states (in answer order, each once)."""
    known = [f.value for s in sources for apart in (False, True) for f in figures(s, not apart)]
    missing: list[Figure] = []
    for f in figures(answer):
        if not any(_same(f.value, k) for k in known) and all(not _same(f.value, m.value) for m in missing):
            missing.append(f)
    return missing

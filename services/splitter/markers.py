"""Line patterns for Q&A markers and headings (the marker variants LegCo papers use).
All patterns apply to one stripped line of the cleaned body."""
from __future__ import annotations

import re
import unicodedata

_COLON = r"[：:︰]"
_ID = r"([A-Z]{0,2}\s?\d{1,3})"

# 問 A1：… / 答 A1：… / 問1： (colon ： : or ︰, spaces optional)
ZH_Q = re.compile(rf"^問\s*{_ID}\s*{_COLON}\s*")
ZH_A = re.compile(rf"^答\s*{_ID}\s*{_COLON}\s*")
# Q1. / Q1 / Q1: followed by text or end of line
EN_Q = re.compile(r"^Q\s?(\d{1,3})(?:\s*[.:：、)]\s*|\s+|$)")
EN_A = re.compile(r"^A\s?(\d{1,3})(?:\s*[.:：、)]\s*|\s+|$)")
# O1<TAB>title (File E "Others")
OTHERS = re.compile(r"^O\s?(\d{1,2})(?:\s*[.:：、)]\s*|\s+)(?=\S)")

FOLLOWUP = re.compile(r"\[\s*(?:如被追問|如追問|If\s+pressed)", re.IGNORECASE)
INTERNAL_REF = re.compile(r"\[\s*(?:內部參考|內部補充資料|For\s+internal\s+reference)", re.IGNORECASE)

# Heading lines that may sit just above a question.
QA_REGION_HEADER = re.compile(
    r"^(?:備用問答|備用問題|問答|常見問題|Q\s*&\s*A|(?:Standby\s+)?Questions?\s+and\s+Answers?"
    r"|Frequently\s+Asked\s+Questions.*|議員質詢的(?:口頭|書面)答覆|(?:ORAL|WRITTEN)\s+ANSWERS?\s+TO\s+QUESTIONS)$",
    re.IGNORECASE,
)
LETTER_TOPIC = re.compile(r"^[(（](?:[A-Z]|[IVX]{1,5})[)）]\s*\S.{0,70}$")
OTHERS_TOPIC = re.compile(r"^.{0,20}[(（]\s*Others\s*[)）]$|^其他$", re.IGNORECASE)
# A numbered topic heading, in every numbering LegCo papers use: ``A.``, ``IV.``, ``1.`` / ``2.1``,
# ``一、`` / ``（一）`` / ``甲、``, ``第一部分：``, ``Part 1`` / ``Section 2`` / ``Chapter III``, and an
# appendix's title (``附件：…`` / ``附件一 …`` / ``Annex A: …`` / ``Appendix II …``). Only a short line
# that ends no sentence, above a question, is taken as one (``detect._is_topic``).
NUMBERED_TOPIC = re.compile(
    r"^(?:[A-Z][.．]\s*|[IVX]{1,5}[.．]\s*|\d{1,2}(?:\.\d{1,2})*(?:[.．、]\s*|\s+)"
    r"|[一二三四五六七八九十]{1,3}[、.．]\s*|[(（][一二三四五六七八九十]{1,3}[)）]\s*|[甲乙丙丁戊己庚辛壬癸][、.．]\s*"
    r"|第[一二三四五六七八九十\d]{1,3}(?:部分|部|章|節)[：:]?\s*"
    r"|(?:Part|Section|Chapter)\s+(?:\d{1,2}|[IVX]{1,5}|[A-Z])\b[.:：–—-]?\s*"
    r"|(?:附件|附錄)[一二三四五六七八九十\d]{0,3}\s*[：:]?\s*"
    r"|(?:Annex|Appendix)\b(?:\s+(?:\d{1,2}|[IVX]{1,5}|[A-Z])\b)?\s*[.:：–—-]?\s*)\S.{0,60}$")
# An unnumbered English heading line: a capital, then up to 12 words of letters (no sentence end;
# Hansard question titles run to 9: "Land resumption in Hung Shui Kiu New Development Area").
# (the Latin ligatures ﬁ/ﬂ of PDF text layers count as letters)
EN_TOPIC = re.compile(r"^[A-Z][A-Za-z\ufb00-\ufb06’'&,/()\-]*(?:\s+[A-Za-z\ufb00-\ufb06’'&,/()\-]+){0,11}$")
CJK_TOPIC = re.compile(r"^[\u3400-\u9fff／/、・及和與 ]{2,16}$")
SENTENCE_END = re.compile(r"[。！？!?；;.:：，,）)\]」』]$")


_RADICALS = {cp: folded for cp in (*range(0x2E80, 0x2EF4), *range(0x2F00, 0x2FD6), *range(0xF900, 0xFB00),
                                    *range(0x2F800, 0x2FA20))
             if len(folded := unicodedata.normalize("NFKC", chr(cp))) == 1 and folded != chr(cp)}
# CJK radicals supplement forms NFKC leaves alone, with an unambiguous Traditional ideograph
# (Unicode's EquivalentUnifiedIdeograph.txt): Chromium writes 局⻑ for 局長.
_RADICALS.update({ord(r): u for r, u in zip("⻑⻘⻝⻄⻆⻤⻣⺠⺝⻁⺓⺊⺌⻌⻏⻖⺕⻂⻃",
                                             "長青食西角鬼骨民月虎幺卜小辶阝阝彐衤覀", strict=True)})


def fold_radicals(s: str) -> str:
    """``s`` with Kangxi radicals, CJK radical supplements and CJK compatibility ideographs
    replaced by the ideographs they stand for (``⽔`` U+2F54 → ``水``, ``料`` U+F9BE → ``料``), one
    character for one, so offsets hold. Browser-printed papers' text layers carry them (Chromium
    with Noto CJK writes ``備⽤問答`` for 備用問答), and a heading or marker must be recognised
    either way."""
    return s.translate(_RADICALS)


def normalize_id(raw: str) -> str:
    """Marker id without inner spaces (``"A 1"`` → ``"A1"``)."""
    return re.sub(r"\s+", "", raw)

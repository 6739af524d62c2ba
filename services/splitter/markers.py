"""Line patterns for Q&A markers and headings (the marker variants LegCo papers use).
All patterns apply to one stripped line of the cleaned body."""
from __future__ import annotations

import re

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
    r"^(?:備用問答|備用問題|問答|常見問題|Q\s*&\s*A|Questions?\s+and\s+Answers?|Frequently\s+Asked\s+Questions.*)$",
    re.IGNORECASE,
)
LETTER_TOPIC = re.compile(r"^[(（](?:[A-Z]|[IVX]{1,5})[)）]\s*\S.{0,70}$")
OTHERS_TOPIC = re.compile(r"^.{0,20}[(（]\s*Others\s*[)）]$|^其他$", re.IGNORECASE)
CJK_TOPIC = re.compile(r"^[\u3400-\u9fff／/、・及和與 ]{2,16}$")
SENTENCE_END = re.compile(r"[。！？!?；;.:：，,）)\]」』]$")


def normalize_id(raw: str) -> str:
    """Marker id without inner spaces (``"A 1"`` → ``"A1"``)."""
    return re.sub(r"\s+", "", raw)

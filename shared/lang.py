"""Language of a text for retrieval purposes: ``"zh"`` (Chinese, any script) or ``"en"``
(everything else written mainly in Latin script).

The rule is a character count, not a model: a text is Chinese when at least 15 % of its
non-space characters are CJK ideographs (U+3400–U+9FFF, U+F900–U+FAFF).  Chinese papers with
English terms stay ``zh``; an English question quoting one Chinese name stays ``en``.
"""
from __future__ import annotations

LANGUAGES: tuple[str, ...] = ("zh", "en")
CJK_SHARE = 0.15


def cjk_share(text: str) -> float:
    """Share (0..1) of CJK ideographs among the non-whitespace characters of ``text``."""
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return 0.0
    cjk = sum(1 for c in chars if "\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff")
    return cjk / len(chars)


def detect_language(text: str) -> str:
    """``"zh"`` when ``text`` is mainly Chinese (see module doc), else ``"en"``."""
    return "zh" if cjk_share(text) >= CJK_SHARE else "en"

"""normalize_for_search (index and query side) and the language rule."""
from __future__ import annotations

from shared.lang import detect_language
from shared.textnorm import normalize_for_search


def test_kangxi_radicals_and_full_width_forms():
    assert normalize_for_search("\u2f00\u2f08") == "一人"  # KANGXI RADICAL ONE, MAN
    assert normalize_for_search("ＡＢＣ１２３") == "ABC123"


def test_hk_private_use_characters():
    assert normalize_for_search("\ue473") == "邨"
    assert normalize_for_search("\ue40c生") == "衞生"


def test_simplified_meets_traditional():
    assert normalize_for_search("员工返工受伤，排水系统") == normalize_for_search("員工返工受傷，排水系統")
    assert normalize_for_search("古洞北 新發展區") == "古洞北新發展區"  # spurious CJK space


def test_language_rule():
    assert detect_language("私人土地業主可獲多少土地補償？") == "zh"
    assert detect_language("What ex-gratia rates apply to private land?") == "en"
    assert detect_language("Where is 古洞北 on the map of the New Territories?") == "en"
    assert detect_language("") == "en"


def test_fast_paths_give_the_library_s_text():
    """normalize_text (str.translate) equals the character map it replaced, and _s2t (piece by
    piece, remembered) equals OpenCC's conversion of the whole text — on real page text and on
    random strings of the characters that matter (line ends, dropped, private use, Simplified,
    OpenCC's separators)."""
    import random
    from pathlib import Path

    import opencc

    from shared.textnorm import _s2t, normalize_text, normalize_with_map

    library = opencc.OpenCC("s2t")
    corpus = Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus" / "fixtures"
    texts = [p.read_text(encoding="utf-8") for p in sorted(corpus.glob("*.txt"))]
    alphabet = [*"\r\n \t\ufffe\u00ad\ufeff\ue473\ue40c\uf0b7\uf8ff", *"员工返工受伤干后发面台里",
                *"，。、-.？!（）《》abc12", "\r\n"]
    rnd = random.Random(3)
    texts += ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 60))) for _ in range(500)]
    for text in texts:
        assert normalize_text(text) == normalize_with_map(text)[0]
        assert _s2t(text) == library.convert(text)
        assert _s2t(text) == library.convert(text)  # remembered pieces

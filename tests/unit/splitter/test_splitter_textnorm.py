"""shared.textnorm: table-driven normalisation."""
from shared.textnorm import collapse_cjk_spaces, map_pua, normalize_text, normalize_with_map


def test_pua_hk_characters():
    assert map_pua("\ue473") == "邨" and map_pua("\ue40c") == "衞"
    assert normalize_text("屋\ue473") == "屋邨"


def test_bullets_soft_hyphen_line_ends():
    assert normalize_text("\uf0b7 a\uf0be b\uf06c c\uf0fc d") == "• a— b● c✓ d"
    assert normalize_text("sub\ufffecontractor\r\nx") == "subcontractor\nx"


def test_map_back_to_source():
    text, src = normalize_with_map("a\r\nb\ufffec")
    assert text == "a\nbc" and [src[i] for i in range(len(text))] == [0, 2, 3, 5]


def test_collapse_cjk_spaces():
    assert collapse_cjk_spaces("新 發 展 區 約 615 公頃") == "新發展區約 615 公頃"

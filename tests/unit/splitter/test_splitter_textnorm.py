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


def test_kangxi_radicals_and_ligatures_fold_to_what_they_stand_for():
    # Chromium writes Kangxi radicals into browser-printed PDFs' text layer (⽴ U+2F74 for 立)
    assert normalize_text("⽴法會⼤廈 ⺟") == "立法會大廈 母"
    assert normalize_text("ﬁle ﬀect ﬂow") == "file ffect flow"
    text, src = normalize_with_map("aﬁb")
    assert text == "afib" and src == [0, 1, 1, 2]
    # the ideographs themselves, other radicals-supplement forms and CJK compatibility ideographs stay
    assert normalize_text("立 ⺀ 豈") == "立 ⺀ 豈"

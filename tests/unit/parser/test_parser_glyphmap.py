"""Supplementary-plane (HKSCS Ext-B) characters and characters a PDF's font maps wrongly (issue 18),
on generated files (``tests/fixtures/fidelity``, printed by Chromium) and the corpus:

* a PDF that maps 𨋢 and 𡃁 right keeps them in its text and its position layer;
* a PDF whose font maps them to their Big5-HKSCS codes (鷲 U+9DF2, 鹣 U+9E63) is read from the
  glyphs' shapes: 𨋢 and 𡃁 in the text and the layer, with a warning for the page, while a
  genuine 鷲 on the same page stays;
* a page with genuine 鷲 and 鹣 and the frequent 行 and 試 is read as it is, without a warning;
* private-use characters: one whose shape is its HK table character passes, one whose shape is
  not and one of plane 15 are warned about;
* the corpus's real papers and fixtures: the shapes are checked where there is a candidate (邨)
  and nothing is changed or warned about.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path

from services.parser.glyphmap import check_glyphs, tables, text_triggers
from services.parser.parse import ParseOutput, parse_document, parse_to_spool
from services.parser.pdf import extract_pdf_text
from services.parser.spool import page_boxes_path
from shared.models import PageBoxes
from shared.settings import Settings
from tests.fixtures.fidelity.make_fidelity import (
    hkscs_control,
    hkscs_ext_b,
    hkscs_ext_b_mismapped,
    hkscs_pua,
)

FONT_NOTE = "the PDF's font"  # in every warning of the glyph check, in no other


def nfkc(text: str) -> str:
    """Chromium writes some ideographs as Kangxi radicals (⼤ U+2F24 for 大), which pypdf keeps."""
    return unicodedata.normalize("NFKC", text)


def layer_text(out: ParseOutput, page: int = 1) -> str:
    return "\n".join(line.t for line in out.page_boxes[page].lines)


def test_supplementary_plane_characters_mapped_right_are_read_and_stored_in_the_layer(tmp_path: Path) -> None:
    """PDFium gives 𨋢 two character indices (a UTF-16 surrogate pair); the layer held the two
    halves as two lone surrogates, which no UTF-8 writer takes, so writing the layer failed the
    whole parse."""
    name, data = hkscs_ext_b()
    spooled = parse_to_spool(data, name, "doc-ext-b", Settings(), str(tmp_path))
    text = nfkc(spooled.parsed.pages[0].text)
    assert "大廈𨋢" in text and "𡃁仔" in text
    assert spooled.parsed.warnings == []
    layer = PageBoxes.model_validate_json(page_boxes_path(tmp_path, 1).read_bytes())
    runs = "".join(line.t for line in layer.lines)
    assert "大廈𨋢（升降機）" in runs and "𡃁仔" in runs
    assert not any("\ud800" <= ch <= "\udfff" for ch in runs)
    for line in layer.lines:
        assert len(line.x) == len(line.t) + 1
        if (i := line.t.find("𨋢")) >= 0:  # one character, about one em (14 pt) wide
            assert 12 < line.x[i + 1] - line.x[i] < 16


def test_both_extractors_read_the_mismapped_glyphs_as_other_characters() -> None:
    """The bug, as the generated file shows it to the two libraries."""
    pages = extract_pdf_text(hkscs_ext_b_mismapped()[1], Settings()).pages
    text = nfkc(pages[0].text)
    assert "大廈鷲" in text and "鹣仔" in text and "𨋢" not in text


def test_characters_the_font_maps_wrongly_are_read_from_their_shapes() -> None:
    name, data = hkscs_ext_b_mismapped()
    out = parse_document(data, name, "doc-mismapped", Settings())
    text = nfkc(out.parsed.pages[0].text)
    assert text.count("大廈𨋢") == 2 and "𡃁仔" in text and "禿鷲" in text  # the genuine 鷲 stays
    assert "鷲（" not in text and "鹣" not in text
    right_name, right_data = hkscs_ext_b()
    right = parse_document(right_data, right_name, "doc-right", Settings())
    assert out.parsed.pages[0].text == right.parsed.pages[0].text  # as if the font mapped them right
    assert out.parsed.pages[0].char_count == len(out.parsed.pages[0].text)
    assert out.parsed.warnings == [
        "Page 1: 3 characters the PDF's font maps wrongly were read from their shapes instead (鷲 → 𨋢 ×2, 鹣 → 𡃁)."]
    layer = layer_text(out)  # the position layer says the same
    assert layer.count("大廈𨋢") == 2 and "𡃁仔" in layer and "禿鷲" in layer and "鹣" not in layer
    assert layer == layer_text(right)


def test_a_page_of_genuine_rare_and_frequent_candidates_is_read_as_it_is() -> None:
    name, data = hkscs_control()
    expected = extract_pdf_text(data, Settings()).pages[0].text
    assert text_triggers(expected)  # 鷲 and 鹣: the page is checked
    out = parse_document(data, name, "doc-control", Settings())
    assert out.parsed.warnings == []
    assert out.parsed.pages[0].text == expected
    text = nfkc(expected)
    assert all(ch in text for ch in "鷲鹣行試邨")
    assert {"行", "試"} <= tables().frequent and {"鷲", "鹣"} <= tables().rare


def test_private_use_characters_whose_shape_is_not_their_table_character_are_warned_about() -> None:
    name, data = hkscs_pua()
    out = parse_document(data, name, "doc-pua", Settings())
    texts = [p.text for p in out.parsed.pages]
    assert "\ue473" in texts[0] and "\ue473" in texts[1] and "\U000f0041" in texts[2]  # kept as read
    assert out.parsed.warnings == [
        "Page 1: 1 character (U+E473) may be mapped wrongly by the PDF's font: its printed shape could not "
        "be matched, so it was kept as read.",  # a 𨋢, which the HK table would index as 邨
        "Page 3: 1 character (U+F0041) may be mapped wrongly by the PDF's font: its printed shape could not "
        "be matched, so it was kept as read.",  # plane 15: no table
    ]  # page 2: its U+E473 is printed as 邨, the table's character


def test_without_a_reference_font_shapes_are_not_checked() -> None:
    name, data = hkscs_ext_b_mismapped()
    out = parse_document(data, name, "doc-no-fonts", Settings(glyph_reference_fonts=["/nonexistent/font.ttc"]))
    assert "大廈鷲" in nfkc(out.parsed.pages[0].text) and out.parsed.warnings == []


CORPUS_PDFS = ["real/cn_landuse_standard_table_zh.pdf", "real/hk_brplus_rgbc_fulllist_zh.pdf",
               "real/hk_csb_coai_exam_venues_reply_zh.pdf", "real/hk_isd_pr_remarks_sfs_media_session_en.pdf",
               "real/hk_ld_ec_ordinance_guide_faq_en.pdf", "real/hk_legco_sub_710-02_tables_zh.pdf",
               "real/hk_legco_sub_710-06_zh.pdf", "real/hk_legco_sub_710-11_scanned_zh.pdf",
               "real/hk_policy_address_2019_zh.pdf", "fixtures/A_詳細數字一覽表.pdf",
               "fixtures/B_古洞北粉嶺北新發展區概覽.pdf", "fixtures/E_基礎設施.pdf", "fixtures/L_補償及安置安排.pdf"]


def test_the_corpus_is_checked_and_nothing_is_changed_or_warned_about(
        corpus: Path, parse_corpus: Callable[[str], ParseOutput]) -> None:
    """Every replacement and every doubt gives a warning, so no warning means no character was
    changed; checking the parsed pages again finds nothing either. 20 pages of these papers hold
    a candidate (邨, whose Big5-HKSCS reading is 𨫢): their shapes are checked."""
    assert sorted(p.name for p in corpus.glob("real/*.pdf")) == sorted(p[5:] for p in CORPUS_PDFS if p[:5] == "real/")
    checked = 0
    for rel in CORPUS_PDFS:
        parsed = parse_corpus(rel).parsed
        assert not [w for w in parsed.warnings if FONT_NOTE in w], rel
        pages, checker = check_glyphs((corpus / rel).read_bytes(), parsed.pages, Settings())
        assert pages == parsed.pages and checker.fixes == {} and checker.warnings() == [], rel
        checked += sum(1 for p in parsed.pages if text_triggers(p.text))
    assert checked >= 10


def test_a_glyph_check_that_fails_leaves_the_page_as_read(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The check is an aid: a page it cannot render or compare is parsed as the extractors read
    it, never failed."""
    import services.parser.glyphmap as glyphmap

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("rendering failed")

    monkeypatch.setattr(glyphmap, "check_page", broken)
    name, data = hkscs_ext_b_mismapped()
    out = parse_document(data, name, "doc-check-fails", Settings())
    text = nfkc(out.parsed.pages[0].text)
    assert "大廈鷲" in text and "𨋢" not in text
    assert not any(FONT_NOTE in w for w in out.parsed.warnings)

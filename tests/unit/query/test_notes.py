"""Internal notes and follow-ups inside a prepared answer."""
from __future__ import annotations

from services.query.notes import speaking_note, split_notes
from services.query.reflow import reflow

# L_補償及安置安排.pdf, Q7 (abridged): two follow-ups answered after their bracket, an internal
# note over two paragraphs, then the main answer again.
Q7 = ("合資格的業務經營者可按其作業面積及類別領取特惠津貼。\n"
      "[如被追問：為何露天作業的津貼率遠低於構築物內的作業？]\n"
      "構築物內的作業一般涉及較多的機器及裝修投資。\n"
      "[如追問：政府會否提供額外補償？]\n"
      "特惠津貼的目的是協助業務經營者遷移。\n"
      "[內部參考：截至 2024 年 3 月，約 45 個業務經營者不合資格。\n\n"
      "地政總署正覆核其中 12 宗個案，應避免評論。]\n"
      "我們會繼續與業務經營者保持溝通。")


def test_followups_internal_notes_and_text_in_order():
    blocks = split_notes(reflow(Q7))
    assert [(b.kind, b.label) for b in blocks] == [("text", None), ("followup", "如被追問"), ("followup", "如追問"),
                                                   ("internal", "內部參考"), ("text", None)]
    assert blocks[1].question == "為何露天作業的津貼率遠低於構築物內的作業？"
    assert blocks[1].text == "構築物內的作業一般涉及較多的機器及裝修投資。"
    assert blocks[3].text == ("截至 2024 年 3 月，約 45 個業務經營者不合資格。\n\n"
                              "地政總署正覆核其中 12 宗個案，應避免評論。")
    assert blocks[4].text == "我們會繼續與業務經營者保持溝通。"


def test_a_followup_answered_inside_its_bracket():
    text = ("特惠津貼並非按業務的市值計算。\n\n"
            "[如被追問：政府會否參考新加坡的做法？各地的土地制度各有不同，不宜直接比較。]\n\n"
            "其後的段落。")
    blocks = split_notes(text)
    assert [b.kind for b in blocks] == ["text", "followup", "text"]
    assert blocks[1].question == "政府會否參考新加坡的做法？"
    assert blocks[1].text == "各地的土地制度各有不同，不宜直接比較。"


def test_english_markers_and_an_unclosed_note_runs_to_the_end():
    blocks = split_notes("The allowance is paid once.\n\n[For internal reference: 12 cases are under review.]\n\n"
                         "[If pressed: Will the rate rise?]\n\nNo change is planned.\n\n[內部補充資料：預算約 58 億元")
    assert [(b.kind, b.label) for b in blocks] == [("text", None), ("internal", "For internal reference"),
                                                   ("followup", "If pressed"), ("internal", "內部補充資料")]
    assert blocks[2].text == "No change is planned." and blocks[3].text == "預算約 58 億元"


def test_speaking_note_leaves_out_internal_notes():
    note = speaking_note(split_notes(reflow(Q7)))
    assert "45 個業務經營者" not in note and "地政總署正覆核" not in note
    assert note.startswith("合資格的業務經營者")
    assert "If pressed: 為何露天作業的津貼率遠低於構築物內的作業？\n\n構築物內的作業" in note
    assert note.endswith("我們會繼續與業務經營者保持溝通。")


def test_text_without_notes_is_one_block():
    assert [b.kind for b in split_notes("一段。\n\n另一段。")] == ["text"]

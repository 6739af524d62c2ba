"""Reflowing PDF lines into paragraphs: joins, kept breaks, tables closed."""
from __future__ import annotations

from services.query.reflow import join_lines, reflow

# L_補償及安置安排.pdf, p. 2, as the parser gives it (lines wrapped by the PDF).
BACKGROUND = ("二、背景\n"
              "2. 新發展區涉及收回約 260 公頃私人土地及清理約 110 公頃政府土\n"
              "地。為使受影響人士得到更合理的照顧，政府於 2018 年 5 月推\n"
              "出經改善的一般特惠補償及安置安排（經改善安排），適用於新\n"
              "發展區及其他政府發展項目。\n"
              "3. 經改善安排的主要原則是「先安置、後清拆」，即在清拆前為合\n"
              "資格的住戶提供安置。")


def test_cjk_lines_join_without_a_space_and_numbered_paragraphs_stay():
    out = reflow(BACKGROUND).split("\n\n")
    assert out == ["二、背景",
                   "2. 新發展區涉及收回約 260 公頃私人土地及清理約 110 公頃政府土地。"
                   "為使受影響人士得到更合理的照顧，政府於 2018 年 5 月推出經改善的一般特惠補償及安置安排"
                   "（經改善安排），適用於新發展區及其他政府發展項目。",
                   "3. 經改善安排的主要原則是「先安置、後清拆」，即在清拆前為合資格的住戶提供安置。"]


def test_latin_words_join_with_one_space_and_a_short_line_ends_its_paragraph():
    text = ("Injury by Accident\n"
            "If an employee sustains an injury or dies as a result of an accident\n"
            "arising out of and in the course of his employment, his employer is in\n"
            "general liable to pay compensation.\n"
            "Occupational Disease\n"
            "An employee suffering incapacity arising from an occupational disease\n"
            "is entitled to the same compensation.")
    assert reflow(text).split("\n\n") == [
        "Injury by Accident",
        "If an employee sustains an injury or dies as a result of an accident arising out of and in the course "
        "of his employment, his employer is in general liable to pay compensation.",
        "Occupational Disease",
        "An employee suffering incapacity arising from an occupational disease is entitled to the same compensation."]


def test_joins_between_scripts_and_hyphens():
    assert join_lines("約 1,180", "個墳墓") == "約 1,180 個墳墓"    # a figure and a CJK word: a space, as printed
    assert join_lines("政府土", "地。") == "政府土地。"
    assert join_lines("要求：", "WCAG 2.1") == "要求：WCAG 2.1"      # next to full-width punctuation: none
    assert join_lines("ex-", "gratia allowance") == "ex-gratia allowance"  # a compound's hyphen is kept
    assert join_lines("compen\u00ad", "sation") == "compensation"       # a soft hyphen is dropped
    assert join_lines("the", "employer") == "the employer"


def test_a_table_is_closed_before_the_prose_after_it():
    text = ("不選擇安置的合資格住戶可領取一次過的特惠現金津貼，金額按住\n"
            "戶人數計算，現行津貼額如下：\n"
            "| 住戶人數 | 特惠現金津貼（元） |\n"
            "| --- | --- |\n"
            "| 1 人 | 680,000 |\n"
            "津貼額每年按甲類消費物價指數調整。領取現金津貼的住戶在兩年\n"
            "內不可申請公共租住房屋。")
    out = reflow(text)
    assert "| 1 人 | 680,000 |\n\n津貼額每年" in out                        # a blank line closes the table
    assert "如下：\n\n| 住戶人數 | 特惠現金津貼（元） |\n| --- | --- |\n| 1 人 | 680,000 |" in out
    assert "在兩年內不可申請" in out


def test_markers_list_items_and_notes_start_paragraphs():
    text = ("問 C1：新發展區的食水及沖廁水供應安排為何？\n"
            "答 C1：\n"
            "⚫ 食水：水務署會在古洞北及粉嶺北各興建一個食水配水庫，容量\n"
            "分別約 4.1 萬及 1.5 萬立方米。\n"
            "⚫ 沖廁水：新發展區距離海岸較遠，未能經濟地以海水沖廁。我們\n"
            "會由 2026 年起以再造水供應沖廁。\n"
            "[如被追問：再造水的水費如何釐定？]\n"
            "政府的政策是再造水的水費會低於食水水費，以鼓勵市民使用。水\n"
            "務署現正檢討具體收費水平。")
    assert reflow(text).split("\n\n") == [
        "問 C1：新發展區的食水及沖廁水供應安排為何？", "答 C1：",
        "⚫ 食水：水務署會在古洞北及粉嶺北各興建一個食水配水庫，容量分別約 4.1 萬及 1.5 萬立方米。",
        "⚫ 沖廁水：新發展區距離海岸較遠，未能經濟地以海水沖廁。我們會由 2026 年起以再造水供應沖廁。",
        "[如被追問：再造水的水費如何釐定？]",
        "政府的政策是再造水的水費會低於食水水費，以鼓勵市民使用。水務署現正檢討具體收費水平。"]


def test_blank_lines_are_kept_as_paragraph_breaks_and_a_question_line_ends_at_its_question_mark():
    text = ("Q12. 業界批評津貼水平遠低於市值，政府會否提高津貼率？\n"
            "特惠津貼並非按業務的市值計算，其目的是協助業務經營者應付遷\n"
            "移的開支。\n\n第二段。")
    assert reflow(text).split("\n\n") == ["Q12. 業界批評津貼水平遠低於市值，政府會否提高津貼率？",
                                          "特惠津貼並非按業務的市值計算，其目的是協助業務經營者應付遷移的開支。",
                                          "第二段。"]


def test_spaces_pdfium_puts_between_cjk_characters_go():
    assert reflow("試 場 的 人 手 安 排\n每個 試 場 設 有 1 名 主 考 員") == "試場的人手安排\n\n每個試場設有 1 名主考員"

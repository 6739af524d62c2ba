import { describe, expect, it } from 'vitest';
import { joinLines, reflow } from './reflow';

// The cases of tests/unit/query/test_reflow.py (the query service's reflow of the answer), with
// the same expected paragraphs: the cards and the answer read the same.

// L_補償及安置安排.pdf, p. 2, as the parser gives it (lines wrapped by the PDF).
const BACKGROUND =
  '二、背景\n' +
  '2. 新發展區涉及收回約 260 公頃私人土地及清理約 110 公頃政府土\n' +
  '地。為使受影響人士得到更合理的照顧，政府於 2018 年 5 月推\n' +
  '出經改善的一般特惠補償及安置安排（經改善安排），適用於新\n' +
  '發展區及其他政府發展項目。\n' +
  '3. 經改善安排的主要原則是「先安置、後清拆」，即在清拆前為合\n' +
  '資格的住戶提供安置。';

describe('reflow', () => {
  it('joins CJK lines without a space and keeps numbered paragraphs', () => {
    expect(reflow(BACKGROUND).split('\n\n')).toEqual([
      '二、背景',
      '2. 新發展區涉及收回約 260 公頃私人土地及清理約 110 公頃政府土地。' +
        '為使受影響人士得到更合理的照顧，政府於 2018 年 5 月推出經改善的一般特惠補償及安置安排' +
        '（經改善安排），適用於新發展區及其他政府發展項目。',
      '3. 經改善安排的主要原則是「先安置、後清拆」，即在清拆前為合資格的住戶提供安置。',
    ]);
  });

  it('joins Latin words with one space; a short line ends its paragraph', () => {
    const text =
      'Injury by Accident\n' +
      'If an employee sustains an injury or dies as a result of an accident\n' +
      'arising out of and in the course of his employment, his employer is in\n' +
      'general liable to pay compensation.\n' +
      'Occupational Disease\n' +
      'An employee suffering incapacity arising from an occupational disease\n' +
      'is entitled to the same compensation.';
    expect(reflow(text).split('\n\n')).toEqual([
      'Injury by Accident',
      'If an employee sustains an injury or dies as a result of an accident arising out of and in the course ' +
        'of his employment, his employer is in general liable to pay compensation.',
      'Occupational Disease',
      'An employee suffering incapacity arising from an occupational disease is entitled to the same compensation.',
    ]);
  });

  it('joins across scripts and hyphens as printed', () => {
    expect(joinLines('約 1,180', '個墳墓')).toBe('約 1,180 個墳墓'); // a figure and a CJK word: a space
    expect(joinLines('政府土', '地。')).toBe('政府土地。');
    expect(joinLines('上水及', '粉嶺')).toBe('上水及粉嶺');
    expect(joinLines('要求：', 'WCAG 2.1')).toBe('要求：WCAG 2.1'); // next to full-width punctuation: none
    expect(joinLines('ex-', 'gratia allowance')).toBe('ex-gratia allowance'); // a compound's hyphen is kept
    expect(joinLines('compen\u00ad', 'sation')).toBe('compensation'); // a soft hyphen is dropped
    expect(joinLines('the', 'employer')).toBe('the employer');
    expect(joinLines('香港', '\u{20000}')).toBe('香港\u{20000}'); // a CJK Extension B character is wide
  });

  it('closes a table before the prose after it', () => {
    const text =
      '不選擇安置的合資格住戶可領取一次過的特惠現金津貼，金額按住\n' +
      '戶人數計算，現行津貼額如下：\n' +
      '| 住戶人數 | 特惠現金津貼（元） |\n' +
      '| --- | --- |\n' +
      '| 1 人 | 680,000 |\n' +
      '津貼額每年按甲類消費物價指數調整。領取現金津貼的住戶在兩年\n' +
      '內不可申請公共租住房屋。';
    const out = reflow(text);
    expect(out).toContain('| 1 人 | 680,000 |\n\n津貼額每年');
    expect(out).toContain('如下：\n\n| 住戶人數 | 特惠現金津貼（元） |\n| --- | --- |\n| 1 人 | 680,000 |');
    expect(out).toContain('在兩年內不可申請');
  });

  it('starts a paragraph at markers, list items and notes', () => {
    const text =
      '問 C1：新發展區的食水及沖廁水供應安排為何？\n' +
      '答 C1：\n' +
      '⚫ 食水：水務署會在古洞北及粉嶺北各興建一個食水配水庫，容量\n' +
      '分別約 4.1 萬及 1.5 萬立方米。\n' +
      '⚫ 沖廁水：新發展區距離海岸較遠，未能經濟地以海水沖廁。我們\n' +
      '會由 2026 年起以再造水供應沖廁。\n' +
      '[如被追問：再造水的水費如何釐定？]\n' +
      '政府的政策是再造水的水費會低於食水水費，以鼓勵市民使用。水\n' +
      '務署現正檢討具體收費水平。';
    expect(reflow(text).split('\n\n')).toEqual([
      '問 C1：新發展區的食水及沖廁水供應安排為何？',
      '答 C1：',
      '⚫ 食水：水務署會在古洞北及粉嶺北各興建一個食水配水庫，容量分別約 4.1 萬及 1.5 萬立方米。',
      '⚫ 沖廁水：新發展區距離海岸較遠，未能經濟地以海水沖廁。我們會由 2026 年起以再造水供應沖廁。',
      '[如被追問：再造水的水費如何釐定？]',
      '政府的政策是再造水的水費會低於食水水費，以鼓勵市民使用。水務署現正檢討具體收費水平。',
    ]);
  });

  it('keeps blank lines as paragraph breaks; a question line ends at its question mark', () => {
    const text =
      'Q12. 業界批評津貼水平遠低於市值，政府會否提高津貼率？\n' +
      '特惠津貼並非按業務的市值計算，其目的是協助業務經營者應付遷\n' +
      '移的開支。\n\n第二段。';
    expect(reflow(text).split('\n\n')).toEqual([
      'Q12. 業界批評津貼水平遠低於市值，政府會否提高津貼率？',
      '特惠津貼並非按業務的市值計算，其目的是協助業務經營者應付遷移的開支。',
      '第二段。',
    ]);
  });

  it('removes the spaces pdfium puts between CJK characters, not those next to figures', () => {
    expect(reflow('試 場 的 人 手 安 排\n每個 試 場 設 有 1 名 主 考 員')).toBe('試場的人手安排\n\n每個試場設有 1 名主考員');
    // A source's snippet comes with its line breaks collapsed to spaces.
    expect(reflow('會否增加上水及 粉嶺一帶的水浸風險？ Flooding risk')).toBe('會否增加上水及粉嶺一帶的水浸風險？ Flooding risk');
  });
});

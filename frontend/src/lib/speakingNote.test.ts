import { describe, expect, it } from 'vitest';
import { Packer } from 'docx';
import { strFromU8, unzipSync } from 'fflate';
import {
  buildSpeakingNote,
  directSpeakingText,
  noteFilename,
  speakingText,
  withoutInternalNotes,
} from './speakingNote';
import { speakingNoteMarkdown } from './speakingNoteMarkdown';
import { speakingNoteDocument, speakingNoteDocx } from './speakingNoteDocx';
import { noteLabels } from './noteLabels';
import { i18n } from '../i18n';
import { makeSource } from '../test/utils';
import type { DirectAnswer, QueryResponse } from '../types';

const INTERNAL = '約 45 個業務經營者不合資格，此資料不宜主動公開。';

const direct: DirectAnswer = {
  kind: 'qa',
  chunk_id: 'doc-2_0',
  document_id: 'doc-2',
  filename: '補償及安置安排.pdf',
  page_number: 7,
  pdf_url: '/api/v1/documents/doc-2/pages/7.pdf',
  question_id: 'Q7',
  question_text: '受影響的業務經營者可獲多少特惠津貼？',
  topic: '(B) 業務經營者',
  text: 'the reflowed answer, with its notes',
  blocks: [
    { kind: 'text', text: '合資格的業務經營者可領取**特惠津貼**。\n\n| 類別 | 津貼率 |\n| --- | --- |\n| 露天 | 500 |', label: null, question: null },
    { kind: 'internal', text: INTERNAL, label: '內部參考', question: null },
    { kind: 'followup', text: '構築物內的作業遷移成本較高。', label: '如被追問', question: '為何露天作業的津貼率較低？' },
  ],
  speaking_note: '',
};

function response(overrides: Partial<QueryResponse> = {}): QueryResponse {
  return {
    answer: 'markdown for the CLI',
    answer_mode: 'extractive',
    notice: null,
    llm_model: null,
    sources: [
      makeSource({ chunk_id: 'doc-2_0', document_id: 'doc-2', filename: '補償及安置安排.pdf', page_number: 7,
        source_page_range: [7, 8], question_id: 'Q7', question_text: '受影響的業務經營者可獲多少特惠津貼？',
        snippet: `passage with its note ${INTERNAL}` }),
      makeSource(),
    ],
    covered: true,
    direct,
    related: [],
    closest: [],
    coverage: null,
    keyword_search: true, guard: null,
    ...overrides,
  };
}

const QUESTION = '業務經營者的津貼是多少？';

/** The note's words as exported from the English and from the Chinese interface. */
const EN = noteLabels(i18n.getFixedT('en'));
const ZH = noteLabels(i18n.getFixedT('zh-HK'));

describe('buildSpeakingNote', () => {
  it('takes the prepared answer with its question id, keeps the follow-up and leaves the internal note out', () => {
    const note = buildSpeakingNote(QUESTION, response());
    expect(note.covered).toBe(true);
    expect(note.answer).toMatchObject({ kind: 'qa', questionId: 'Q7', topic: '(B) 業務經營者', page: 7,
      filename: '補償及安置安排.pdf' });
    expect(note.answer?.parts.map((p) => p.kind)).toEqual(['text', 'followup']);
    expect(note.internalLeftOut).toBe(1);
    expect(JSON.stringify(note)).not.toContain('45 個');
    expect(note.sources).toEqual([
      { filename: '補償及安置安排.pdf', page: 7, endPage: 8, questionId: 'Q7', questionText: '受影響的業務經營者可獲多少特惠津貼？' },
      { filename: 'budget.pdf', page: 3, endPage: null, questionId: null, questionText: null },
    ]);
  });

  it('labels a follow-up as "If pressed" in the copied text, as the server\'s speaking_note does', () => {
    const text = speakingText(buildSpeakingNote(QUESTION, response()).answer?.parts ?? [], EN);
    expect(text).toBe(
      '合資格的業務經營者可領取**特惠津貼**。\n\n| 類別 | 津貼率 |\n| --- | --- |\n| 露天 | 500 |\n\n' +
        'If pressed: 為何露天作業的津貼率較低？\n\n構築物內的作業遷移成本較高。',
    );
    expect(directSpeakingText(direct, EN)).toBe(text);
  });

  it('says "not covered" with no answer and no sources', () => {
    const note = buildSpeakingNote(QUESTION, response({ covered: false, direct: null, closest: [makeSource()] }));
    expect(note).toEqual({ question: QUESTION, covered: false, answer: null, sources: [], internalLeftOut: 0 });
    expect(noteFilename(note, 'md')).toBe('speaking-note-not-covered.md');
  });

  it('strips internal notes from an answer that comes without blocks (an LLM answer)', () => {
    const answer = `甲。\n\n[內部參考：${INTERNAL}\n\n仍是內部資料。] 之後公開。\n\n[如被追問：乙？] 丙。`;
    const note = buildSpeakingNote(QUESTION, response({ direct: null, answer, answer_mode: 'llm' }));
    expect(note.answer?.kind).toBe('answer');
    expect(speakingText(note.answer?.parts ?? [], EN)).toBe('甲。\n\n之後公開。\n\n[如被追問：乙？] 丙。');
    expect(note.internalLeftOut).toBe(1);
  });

  it('drops an internal note that never closes to the end', () => {
    expect(withoutInternalNotes('公開。\n\n[For internal reference: not for release\n\nstill internal')).toEqual({
      text: '公開。',
      dropped: 1,
    });
  });

  it('names the file after the question id', () => {
    expect(noteFilename(buildSpeakingNote(QUESTION, response()), 'docx')).toBe('speaking-note-Q7.docx');
  });
});

describe('speakingNoteMarkdown', () => {
  it('writes the question, the prepared answer under its id, the follow-up and the sources, without the internal note', () => {
    const md = speakingNoteMarkdown(buildSpeakingNote(QUESTION, response()), EN);
    expect(md).toBe(
      [
        '# Speaking note',
        `**Question:** ${QUESTION}`,
        '## Answer',
        '**Q7** 受影響的業務經營者可獲多少特惠津貼？',
        '*(B) 業務經營者 · page 7 · 補償及安置安排.pdf*',
        '合資格的業務經營者可領取**特惠津貼**。\n\n| 類別 | 津貼率 |\n| --- | --- |\n| 露天 | 500 |',
        '**If pressed: 為何露天作業的津貼率較低？**',
        '構築物內的作業遷移成本較高。',
        '## Sources',
        '1. 補償及安置安排.pdf, pages 7–8 — Q7 受影響的業務經營者可獲多少特惠津貼？\n2. budget.pdf, page 3',
        '*Internal notes are left out of this note.*',
      ].join('\n\n') + '\n',
    );
  });

  it('says plainly when the answer is not covered', () => {
    const md = speakingNoteMarkdown(buildSpeakingNote('What is the fireworks\nbudget?', response({ covered: false })), EN);
    expect(md).toBe(
      "# Speaking note\n\n**Question:** What is the fireworks budget?\n\n## Not covered\n\n" +
        "None of your department's papers answers this.\n",
    );
  });

  it('is written in Chinese when exported from the Chinese interface (問題, 答案, 如被追問, 來源, 第7至8頁)', () => {
    const md = speakingNoteMarkdown(buildSpeakingNote(QUESTION, response()), ZH);
    expect(md).toBe(
      [
        '# 發言稿',
        `**問題：** ${QUESTION}`,
        '## 答案',
        '**Q7** 受影響的業務經營者可獲多少特惠津貼？',
        '*(B) 業務經營者 · 第7頁 · 補償及安置安排.pdf*',
        '合資格的業務經營者可領取**特惠津貼**。\n\n| 類別 | 津貼率 |\n| --- | --- |\n| 露天 | 500 |',
        '**如被追問：為何露天作業的津貼率較低？**',
        '構築物內的作業遷移成本較高。',
        '## 來源',
        '1. 補償及安置安排.pdf，第7至8頁 — Q7 受影響的業務經營者可獲多少特惠津貼？\n2. budget.pdf，第3頁',
        '*本發言稿不包括內部參考。*',
      ].join('\n\n') + '\n',
    );
    expect(md).not.toMatch(/Speaking|Question|Answer|Sources|If pressed|page/);
  });

  it('says 未有涵蓋 in Chinese when the answer is not covered', () => {
    const md = speakingNoteMarkdown(buildSpeakingNote('煙花預算是多少？', response({ covered: false })), ZH);
    expect(md).toBe('# 發言稿\n\n**問題：** 煙花預算是多少？\n\n## 未有涵蓋\n\n你部門的文件均未有回答這個問題。\n');
  });

  it('copies a follow-up as 如被追問 from the Chinese interface', () => {
    expect(directSpeakingText(direct, ZH)).toContain('\n\n如被追問：為何露天作業的津貼率較低？\n\n');
  });
});

/** The text of a .docx file's body (word/document.xml's <w:t> runs, one string). */
function docxText(bytes: Uint8Array): string {
  const xml = strFromU8(unzipSync(bytes)['word/document.xml']);
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return [...xml.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)]
    .map((m) => m[1].replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => entities[e]))
    .join('\n');
}

describe('speakingNoteDocx', () => {
  it('makes a Word file with the answer, the follow-up, a table and the sources, and no internal note', async () => {
    const buffer = await Packer.toBuffer(speakingNoteDocument(buildSpeakingNote(QUESTION, response()), EN));
    const text = docxText(new Uint8Array(buffer));
    for (const expected of [QUESTION, 'Q7 受影響的業務經營者可獲多少特惠津貼？', '合資格的業務經營者可領取', '特惠津貼',
      'If pressed: 為何露天作業的津貼率較低？', '構築物內的作業遷移成本較高。', '補償及安置安排.pdf, pages 7–8', '露天', '500']) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('45 個');
    expect(text).not.toContain('**'); // bold runs, not markdown marks
    const xml = strFromU8(unzipSync(new Uint8Array(buffer))['word/document.xml']);
    expect(xml.match(/<w:tbl>/g)).toHaveLength(1);
    expect(xml.match(/<w:tr>|<w:tr /g)).toHaveLength(2); // header and one row; the --- rule is not a row
  });

  it('says "Not covered" in the Word file', async () => {
    const blob = await speakingNoteDocx(buildSpeakingNote(QUESTION, response({ covered: false })), EN);
    const text = docxText(new Uint8Array(await blob.arrayBuffer()));
    expect(text).toContain('Not covered');
    expect(text).toContain("None of your department's papers answers this.");
    expect(text).not.toContain('合資格');
  });

  it('is a Chinese document, with Chinese headings, when exported from the Chinese interface', async () => {
    const buffer = await Packer.toBuffer(speakingNoteDocument(buildSpeakingNote(QUESTION, response()), ZH));
    const text = docxText(new Uint8Array(buffer));
    for (const expected of ['發言稿', '問題：', '答案', '如被追問：為何露天作業的津貼率較低？', '來源',
      '補償及安置安排.pdf，第7至8頁', '本發言稿不包括內部參考。']) {
      expect(text).toContain(expected);
    }
    expect(text).not.toMatch(/Speaking|Question|Answer|Sources|If pressed|page/);
    const files = unzipSync(new Uint8Array(buffer));
    expect(strFromU8(files['word/styles.xml'])).toMatch(/<w:lang w:val="zh-HK" w:eastAsia="zh-HK"/);
    expect(strFromU8(files['docProps/core.xml'])).toContain(`發言稿：${QUESTION}`);
  });
});

/**
 * A guard against English left in the Chinese interface: the main pages, rendered in zh-HK in
 * the states that show the most (an answer with its sources and notes, a document list with
 * progress, failures and chunks, an upload refused, the key table and its dialogs, the recent
 * questions and the speaking-note export), hold no
 * English word outside content marked `lang="en"` — text, `aria-label`, `title`, `placeholder`.
 * Names that are the same in both languages (PDF, API, LTT…) and the fixtures' own names
 * (filenames, departments, key prefixes) are allowed.
 */
// The Operations page's charts draw on a canvas, which jsdom lacks: a mocked 2-D context.
import 'vitest-canvas-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from './App';
import { i18n } from './i18n';
import {
  ADMIN,
  installMockEventStream,
  jsonResponse,
  makeDocument,
  makeQaChunk,
  makeSource,
  makeTokenChunk,
  mockFetch,
  sseAnswer,
  renderWithProviders,
} from './test/utils';
import type { KeyInfo, QueryResponse } from './types';

/** Latin words the Chinese interface uses as they are. */
const ALLOWED = new Set([
  'PDF', 'DOCX', 'TXT', 'API', 'LTT', 'RAG', 'LLM', 'Markdown', 'HTTP', 'KB', 'MB',
  'Enter', 'Shift', 'Ctrl', // keys
  'lgk', // the key prefix
]);

/** Single capitals: question ids (Q7, A1), section letters ("(B)"), "A 至 Z", "⌘C". */
const LETTER = /^[A-Z]$/;

const SCANNED_ATTRIBUTES = ['aria-label', 'title', 'placeholder', 'alt'];

/**
 * English words under `root` outside content marked English (the nearest `lang` inside `root`
 * is en…; the page's own `<html lang>` does not count), with where they are; `names` (fixture
 * filenames, departments, prefixes) are taken out first.
 */
export function leftoverEnglish(root: HTMLElement, names: string[]): string[] {
  const found: string[] = [];
  const check = (text: string, where: string) => {
    let rest = text;
    for (const name of names) rest = rest.split(name).join(' ');
    for (const word of rest.match(/[A-Za-z]+/g) ?? []) {
      if (!ALLOWED.has(word) && !LETTER.test(word)) found.push(`${word} — ${where}: "${text.trim().slice(0, 90)}"`);
    }
  };
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.nodeType === Node.TEXT_NODE ? node.parentElement : (node as Element);
    if (!element || element.closest('script, style')) continue;
    const marked = element.closest('[lang]');
    const lang = marked && root.contains(marked) ? (marked.getAttribute('lang') ?? '') : '';
    if (lang.toLowerCase().startsWith('en')) continue;
    if (node.nodeType === Node.TEXT_NODE) check(node.textContent ?? '', `<${element.tagName.toLowerCase()}>`);
    else for (const name of SCANNED_ATTRIBUTES) {
      const value = element.getAttribute(name);
      if (value) check(value, `<${element.tagName.toLowerCase()} ${name}>`);
    }
  }
  return found;
}

/**
 * Buttons and links under `root` whose `aria-label` does not hold their visible text (WCAG 2.5.3
 * "label in name", axe's label-content-name-mismatch): a voice-control user says what they see.
 * Compared without case and white space, as axe does; each as `"visible" ∉ "name"`.
 */
export function labelsWithoutVisibleText(root: HTMLElement): string[] {
  const norm = (text: string) => text.toLowerCase().replace(/\s+/g, '');
  return [...root.querySelectorAll<HTMLElement>('a[aria-label], button[aria-label]')]
    // Symbols (an icon's ✕) are not words to say: axe skips them too.
    .filter((e) => /\p{L}/u.test(e.textContent ?? '') && !norm(e.getAttribute('aria-label') ?? '').includes(norm(e.textContent ?? '')))
    .map((e) => `"${(e.textContent ?? '').trim()}" ∉ "${e.getAttribute('aria-label')}"`);
}

const EN_FILE = 'budget-2026.pdf';
const ZH_FILE = '補償及安置安排.pdf';
const NAMES = ['speaking-note-Q7.md', EN_FILE, ZH_FILE, 'notes.txt', 'a.txt', 'default', 'ops', 'hab', 'Chroma', 'ConnectError',
  'a1b2c3d4', 'b2c3d4e5', 'c3d4e5f6', 'a0a0a0a0', 'front desk', 'bootstrap'];

const DOCUMENTS = [
  makeDocument({ document_id: 'doc-2', filename: ZH_FILE, strategy: 'question', strategy_used: 'question', chunk_count: 1 }),
  makeDocument({ document_id: 'doc-1', filename: EN_FILE, strategy: 'question', strategy_used: 'token',
    warnings: ['Page 3: a table could not be read.'] }),
  makeDocument({ document_id: 'doc-3', filename: 'notes.txt', file_type: 'txt', status: 'processing', stage: 'embedding',
    pages_done: 8, pages_total: 18, unit: 'chunks', waiting_for: 'Chroma', eta_s: 4000, page_count: null }),
  makeDocument({ document_id: 'doc-4', filename: 'queued.pdf', status: 'queued', stage: 'splitting', queue_position: 3,
    eta_s: 125, department: 'hab' }),
  makeDocument({ document_id: 'doc-5', filename: 'broken.pdf', status: 'failed', stage: 'failed', error: 'PDF is encrypted',
    visibility: 'shared' }),
];
NAMES.push('queued.pdf', 'broken.pdf', '9f8e7d6c', 'secret', 'Prometheus');
NAMES.unshift('hab · token'); // before 'hab': a series name of the Operations page

const ANSWER: QueryResponse = {
  answer: 'markdown for the CLI',
  answer_mode: 'extractive',
  notice: 'The language model could not be reached (ConnectError); showing the answer from the papers.',
  llm_model: null,
  covered: true,
  direct: {
    kind: 'qa',
    chunk_id: 'doc-2_0',
    document_id: 'doc-2',
    filename: ZH_FILE,
    page_number: 7,
    pdf_url: '/api/v1/documents/doc-2/pages/7.pdf',
    question_id: 'Q7',
    question_text: '受影響的業務經營者可獲多少特惠津貼？',
    topic: '業務經營者',
    text: 'full text',
    blocks: [
      { kind: 'text', text: '合資格的業務經營者可領取特惠津貼。', label: null, question: null },
      { kind: 'followup', text: '構築物內的作業遷移成本較高。', label: '如被追問', question: '為何露天作業的津貼率較低？' },
      { kind: 'internal', text: '約 45 個業務經營者不合資格。', label: '內部參考', question: null },
    ],
    speaking_note: '合資格的業務經營者可領取特惠津貼。',
  },
  related: [{ chunk_id: 'doc-2_8', question_id: 'Q8', question_text: '棕地作業者如何物色替代用地？', topic: '業務經營者',
    document_id: 'doc-2', filename: ZH_FILE, page_number: 9, pdf_url: '/api/v1/documents/doc-2/pages/9.pdf', score: 0.61 }],
  sources: [
    makeSource({ chunk_id: 'doc-2_0', document_id: 'doc-2', filename: ZH_FILE, page_number: 7, strategy_type: 'question',
      question_id: 'Q7', question_text: '受影響的業務經營者可獲多少特惠津貼？', topic_section: '(B) 業務經營者',
      source_page_range: [7, 8], snippet: '合資格的業務經營者可領取特惠津貼。', matched_by: 'question-line',
      visibility: 'shared' }),
    makeSource({ filename: EN_FILE, matched_by: 'keyword', matched_terms: ['津貼', 'allowance'],
      also_in: [{ chunk_id: 'doc-7_0', document_id: 'doc-7', filename: 'notes.txt', page_number: null, pdf_url: null }] }),
    makeSource({ chunk_id: 'doc-1_3', filename: EN_FILE, page_number: null, pdf_url: null, matched_by: 'dense' }),
  ],
  closest: [],
  coverage: null,
  keyword_search: true, guard: null,
};

const KEYS: KeyInfo[] = [
  { key_prefix: 'c3d4e5f6', department: 'ops', role: 'admin', label: 'bootstrap', created_at: '2026-05-01T08:00:00Z',
    last_used_at: '2026-05-16T09:00:00Z', revoked_at: null },
  { key_prefix: 'b2c3d4e5', department: 'default', role: 'reader', label: 'front desk', created_at: '2026-05-02T08:00:00Z',
    last_used_at: null, revoked_at: null },
  { key_prefix: 'a0a0a0a0', department: 'hab', role: 'member', label: '', created_at: '2026-05-03T08:00:00Z',
    last_used_at: null, revoked_at: '2026-05-10T00:00:00Z' },
];

function listBody(documents = DOCUMENTS) {
  return { documents, total_documents: documents.length, total_chunks: 40, total: documents.length, page: 1,
    page_size: 25, notice: 'Only filenames were searched: the chunk text cannot be searched right now (the vector store is down).' };
}

function gateway(overrides: Parameters<typeof mockFetch>[0] = {}) {
  installMockEventStream();
  return mockFetch({
    'GET /api/v1/documents': () => jsonResponse(listBody()),
    'GET /api/v1/documents/doc-2/chunks': () =>
      jsonResponse({ document_id: 'doc-2', chunks: [makeQaChunk({ filename: ZH_FILE, followup_count: 2, parts: 2, part: 1 })] }),
    'GET /api/v1/documents/doc-1/chunks': () =>
      jsonResponse({ document_id: 'doc-1', chunks: [makeTokenChunk({ filename: EN_FILE })] }),
    'POST /api/v1/query/stream': () => sseAnswer(ANSWER),
    'POST /api/v1/ingest': () => jsonResponse({ detail: 'The file is larger than the 100 MB limit.' }, 413),
    'GET /api/v1/keys': () => jsonResponse({ keys: KEYS }),
    ...overrides,
  });
}

/** What the scan of the whole page finds, in the current language. */
function scan(): string[] {
  return leftoverEnglish(document.body, NAMES);
}

beforeEach(async () => {
  await i18n.changeLanguage('zh-HK');
});

describe('the Chinese interface', () => {
  it('sign-in screen: no English left, a refused key included', async () => {
    gateway({ 'GET /api/v1/whoami': () => jsonResponse({ detail: 'Invalid API key' }, 401) });
    const user = userEvent.setup();
    renderWithProviders(<App />, { caller: null });
    await user.click(screen.getByRole('button', { name: '登入' }));
    expect(await screen.findByText('請輸入你的 API 密碼匙。')).toBeInTheDocument();
    expect(scan()).toEqual([]);
    await user.type(screen.getByLabelText(/^API 密碼匙/), 'lgk_x');
    await user.click(screen.getByRole('button', { name: '登入' }));
    expect(await screen.findByText(/此密碼匙不獲接受/)).toBeInTheDocument();
    expect(scan()).toEqual([]);
  });

  it('LTT page: an answer with its notes, related questions and sources', async () => {
    const user = userEvent.setup();
    gateway();
    renderWithProviders(<App />);
    await user.type(screen.getByRole('textbox', { name: /^問題/ }), '津貼？{Enter}');
    expect(await screen.findByRole('heading', { name: '答案' })).toBeInTheDocument();
    expect(screen.getByText('內部參考——不可讀出')).toBeInTheDocument();
    expect(screen.getByText('如被追問')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: '來源（3）' })).toBeInTheDocument();
    expect(scan()).toEqual([]);
    expect(labelsWithoutVisibleText(document.body)).toEqual([]);
  });

  it('LTT page: the history panel and the speaking-note export', async () => {
    const user = userEvent.setup();
    const notCovered: QueryResponse = { ...ANSWER, covered: false, direct: null, related: [], sources: [],
      closest: [ANSWER.sources[1]], notice: null };
    gateway({
      'POST /api/v1/query/stream': (_url, init) =>
        sseAnswer(JSON.parse(String(init?.body)).question.startsWith('煙花') ? notCovered : ANSWER),
    });
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {}); // the download itself
    renderWithProviders(<App />);
    const box = screen.getByRole('textbox', { name: /^問題/ });
    await user.type(box, '津貼？{Enter}');
    await screen.findByRole('heading', { name: '答案' });
    await user.clear(box);
    await user.type(box, '煙花預算是多少？{Enter}');
    const history = await screen.findByRole('region', { name: '最近的問題（2）' });
    expect(within(history).getByRole('button', { name: '清除記錄' })).toBeInTheDocument();
    expect(within(history).getByText('未有涵蓋')).toBeInTheDocument();
    expect(within(history).getByText(/顯示中/)).toBeInTheDocument();
    expect(scan()).toEqual([]);

    await user.click(within(history).getByRole('button', { name: /津貼？/ }));
    const group = await screen.findByRole('group', { name: '匯出為發言稿' });
    await user.click(within(group).getByRole('button', { name: '下載 Markdown' }));
    expect(within(group).getByRole('status')).toHaveTextContent('已儲存 speaking-note-Q7.md，不包括內部參考。');
    expect(within(group).getByRole('button', { name: '下載 DOCX' })).toBeInTheDocument();
    expect(scan()).toEqual([]);
  });

  it('LTT page: a question the service could not answer', async () => {
    const user = userEvent.setup();
    gateway({
      'POST /api/v1/query/stream': () => jsonResponse({ detail: 'The query service is not reachable; try again shortly.' }, 503),
    });
    renderWithProviders(<App />);
    await user.type(screen.getByRole('textbox', { name: /^問題/ }), '津貼？{Enter}');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('服務暫時未能提供');
    // The gateway's own sentence is kept, marked English.
    expect(within(alert).getByText('The query service is not reachable; try again shortly.')).toHaveAttribute('lang', 'en');
    expect(scan()).toEqual([]);
  });

  it('RAG Database page (admin): progress, failures, warnings and chunks', async () => {
    const user = userEvent.setup();
    gateway();
    renderWithProviders(<App />, { route: '/rag-database', caller: ADMIN });
    const row = await screen.findByRole('article', { name: ZH_FILE });
    expect(screen.getByText('正在等候 Chroma：該服務沒有回應。服務恢復後，工作會自動繼續。')).toBeInTheDocument();
    await user.click(within(row).getByRole('button', { name: `顯示區塊：${ZH_FILE}` }));
    expect(await within(row).findByRole('article', { name: /^A1 — / })).toBeInTheDocument();
    const other = screen.getByRole('article', { name: EN_FILE });
    await user.click(within(other).getByRole('button', { name: `顯示區塊：${EN_FILE}` }));
    expect(await within(other).findByRole('article', { name: '第3頁' })).toBeInTheDocument();
    expect(scan()).toEqual([]);
    expect(labelsWithoutVisibleText(document.body)).toEqual([]);
  });

  it('RAG Database page: a refused upload and the delete dialog', async () => {
    const user = userEvent.setup();
    gateway();
    renderWithProviders(<App />, { route: '/rag-database', caller: ADMIN });
    const row = await screen.findByRole('article', { name: ZH_FILE });
    await user.upload(document.querySelector('input[type="file"]') as HTMLInputElement, new File(['x'], 'a.txt', { type: 'text/plain' }));
    await user.click(screen.getByRole('button', { name: '上載' }));
    expect(await screen.findByText('上載失敗：a.txt')).toBeInTheDocument();
    expect(screen.getByText('檔案太大，無法上載。')).toBeInTheDocument();
    expect(scan()).toEqual([]);

    await user.click(within(row).getByRole('button', { name: `刪除文件 ${ZH_FILE}` }));
    expect(await screen.findByRole('dialog', { name: '刪除此文件？' })).toBeInTheDocument();
    expect(scan()).toEqual([]);
  });

  it('Keys page: the table, a new key and the revoke dialog', async () => {
    const user = userEvent.setup();
    gateway({
      'POST /api/v1/keys': () =>
        jsonResponse({ key: 'lgk_9f8e7d6c_secret', key_prefix: '9f8e7d6c', department: 'hab', role: 'reader',
          created_at: '2026-05-16T10:00:00Z' }, 201),
    });
    renderWithProviders(<App />, { route: '/keys', caller: ADMIN });
    expect(await screen.findByRole('table', { name: '密碼匙' })).toBeInTheDocument();
    const form = screen.getByRole('form', { name: '建立密碼匙' });
    await user.click(within(form).getByRole('button', { name: '建立密碼匙' }));
    expect(await within(form).findByText('請填寫密碼匙所屬的部門。')).toBeInTheDocument();
    expect(scan()).toEqual([]);
    await user.type(within(form).getByRole('combobox', { name: /^部門/ }), 'hab');
    await user.click(within(form).getByRole('button', { name: '建立密碼匙' }));
    const dialog = await screen.findByRole('dialog', { name: '新 API 密碼匙' });
    expect(within(dialog).getByRole('button', { name: '關閉對話框' })).toBeInTheDocument();
    expect(scan()).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: '完成' }));
    await user.click(screen.getByRole('button', { name: '撤銷密碼匙 b2c3d4e5' }));
    expect(await screen.findByRole('dialog', { name: '撤銷此密碼匙？' })).toBeInTheDocument();
    expect(scan()).toEqual([]);
  });
});

describe('the Chinese interface: Operations', () => {
  it('Operations page: charts, a chart without data, Prometheus down for one, dead letters and a replay', async () => {
    const user = userEvent.setup();
    const panel = (id: string, unit: string) => ({ id, title: `English title of ${id}`, unit, description: 'English description' });
    const points = (v: number | null) => Array.from({ length: 5 }, (_, i) => [1_780_000_000 + 15 * i, v] as [number, number | null]);
    const body = (p: ReturnType<typeof panel>, series: { labels: Record<string, string>; name: string }[]) => ({
      panel: p, range_s: 3600, step_s: 15, start: 1_780_000_000, end: 1_780_000_060,
      series: series.map((s) => ({ ...s, points: points(0.5) })),
    });
    const panels = [panel('ingest-pages', 'pps'), panel('stage-p95', 's'), panel('query-p95', 's'), panel('embedder-tokens', 'short'),
      panel('consumer-lag', 'short')];
    const letter = { document_id: 'a'.repeat(32), department: 'hab', filename: 'broken.pdf', status: 'failed', stage: 'embedding',
      source_topic: 'legco.documents.chunked.v1', consumer_group: 'embedder', reason: 'the embeddings endpoint could not be reached',
      error_type: 'APIConnectionError', attempts: 0, ts: '2026-05-16T09:00:00Z', page_number: 2, partition: 0, offset: 1 };
    gateway({
      'GET /api/v1/operations/panels': () => jsonResponse({ panels }),
      'GET /api/v1/operations/panels/ingest-pages/series': () =>
        jsonResponse(body(panels[0], [{ labels: { department: 'hab', strategy: 'token' }, name: 'hab · token' }])),
      'GET /api/v1/operations/panels/stage-p95/series': () =>
        jsonResponse(body(panels[1], [{ labels: { stage: 'parsing' }, name: 'parsing' }, { labels: { stage: 'tables' }, name: 'tables' }])),
      'GET /api/v1/operations/panels/query-p95/series': () => jsonResponse(body(panels[2], [{ labels: {}, name: 'p95' }])),
      'GET /api/v1/operations/panels/embedder-tokens/series': () => jsonResponse(body(panels[3], [])),
      'GET /api/v1/operations/panels/consumer-lag/series': () =>
        jsonResponse({ detail: 'Prometheus could not be reached at http://127.0.0.1:9090 (ConnectError); the charts come back when it answers.' }, 503),
      'GET /api/v1/deadletters': () => jsonResponse({ deadletters: [letter, { ...letter, document_id: 'b'.repeat(32), status: null, offset: 2 }] }),
      'POST /api/v1/deadletters/replay': () =>
        jsonResponse({ documents: [{ document_id: 'a'.repeat(32), filename: 'broken.pdf', stage: 'embedding', replayed: 1, skipped: null }] }),
    });
    renderWithProviders(<App />, { route: '/operations', caller: ADMIN });
    expect(await screen.findByRole('heading', { name: '系統運作', level: 1 })).toBeInTheDocument();
    await screen.findAllByTestId('ops-plot');
    await screen.findByText('暫無數據');
    await screen.findByText('Prometheus 無法使用');
    const table = await screen.findByRole('table', { name: '死信文件' });
    await user.click(within(table).getAllByRole('button', { name: '重試 broken.pdf' })[0]);
    expect(await within(table).findByText('已把 1 個事件送回處理階段（向量化中）。')).toBeInTheDocument();
    expect(scan()).toEqual([]);
    expect(labelsWithoutVisibleText(document.body)).toEqual([]);
  });
});

describe('the guard itself', () => {
  it('finds the English of the same pages in the English interface', async () => {
    await i18n.changeLanguage('en');
    const user = userEvent.setup();
    gateway();
    renderWithProviders(<App />);
    await user.type(screen.getByRole('textbox', { name: /^Question/ }), 'allowance?{Enter}');
    await screen.findByRole('heading', { name: 'Answer' });
    const words = new Set(scan().map((line) => line.split(' — ')[0]));
    for (const word of ['Answer', 'Sources', 'Internal', 'pressed', 'Sign', 'Score', 'Open', 'Ask', 'Recent', 'Clear',
      'Download', 'Export']) {
      expect(words).toContain(word);
    }
  });

  it('finds an English word left in Chinese text and attributes, and skips content marked English', () => {
    const root = document.createElement('div');
    root.innerHTML = `
      <p>上載文件</p>
      <p>上載 Upload</p>
      <button aria-label="刪除 document">✕</button>
      <p lang="en">A passage in English.</p>
      <p>檔案 <span lang="en">report.pdf</span> 已上載（PDF）</p>`;
    document.body.append(root);
    expect(leftoverEnglish(root, [])).toEqual([
      'Upload — <p>: "上載 Upload"',
      'document — <button aria-label>: "刪除 document"',
    ]);
    root.remove();
  });
});

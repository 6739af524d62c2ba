import { describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { strFromU8, unzipSync } from 'fflate';
import { LTTPage } from './LTTPage';
import { i18n } from '../i18n';
import { MEMBER, READER, jsonResponse, makeDocument, makeSource, mockFetch, renderWithProviders, sseAnswer } from '../test/utils';
import type { QueryResponse } from '../types';

const oneDocument = { documents: [makeDocument()], total_documents: 1, total_chunks: 4 };

function answerTo(question: string): QueryResponse {
  const id = question.startsWith('排水') ? 'A1' : 'B2';
  return {
    answer: 'cli text',
    answer_mode: 'extractive',
    notice: null,
    llm_model: null,
    sources: [makeSource({ question_id: id, question_text: `${question}（原題）` })],
    covered: true,
    direct: {
      kind: 'qa', chunk_id: 'doc-1_2', document_id: 'doc-1', filename: 'budget.pdf', page_number: 3,
      pdf_url: '/api/v1/documents/doc-1/pages/3.pdf', question_id: id, question_text: `${question}（原題）`,
      topic: null, text: '', speaking_note: '',
      blocks: [
        { kind: 'text', text: `The answer to ${id}.`, label: null, question: null },
        { kind: 'internal', text: `Internal detail of ${id}.`, label: '內部參考', question: null },
      ],
    },
    related: [],
    closest: [],
    coverage: null,
    keyword_search: true, guard: null,
  };
}

function routes() {
  return mockFetch({
    'GET /api/v1/documents': () => jsonResponse(oneDocument),
    'POST /api/v1/query/stream': (_url, init) => sseAnswer(answerTo(JSON.parse(String(init?.body)).question)),
  });
}

const queries = (spy: ReturnType<typeof mockFetch>) => spy.mock.calls.filter(([url]) => url === '/api/v1/query/stream').length;

async function ask(user: ReturnType<typeof userEvent.setup>, question: string) {
  const box = screen.getByRole('textbox', { name: /question/i });
  await user.clear(box);
  await user.type(box, `${question}{Enter}`);
  await screen.findByRole('heading', { name: `Q: ${question}` }); // "Q: " then the question in its own lang
}

describe('LTTPage history', () => {
  it('lists the questions asked, newest first, and shows an earlier answer again without asking', async () => {
    const user = userEvent.setup();
    const spy = routes();
    renderWithProviders(<LTTPage />);
    await ask(user, '排水會否水浸？');
    await ask(user, '污水廠夠唔夠？');
    expect(screen.getByText('The answer to B2.')).toBeInTheDocument();
    const history = screen.getByRole('region', { name: 'Recent questions (2)' });
    const items = within(history).getAllByRole('button', { name: /？/ });
    expect(items.map((b) => b.textContent)).toEqual([
      expect.stringContaining('污水廠夠唔夠？'),
      expect.stringContaining('排水會否水浸？'),
    ]);
    expect(items[0]).toHaveAttribute('aria-current', 'true');
    expect(queries(spy)).toBe(2);

    await user.click(items[1]);
    expect(await screen.findByRole('heading', { name: 'Q: 排水會否水浸？' })).toBeInTheDocument();
    expect(screen.getByText('The answer to A1.')).toBeInTheDocument();
    expect(screen.queryByText('The answer to B2.')).not.toBeInTheDocument();
    expect(within(history).getAllByRole('button', { name: /？/ })[1]).toHaveAttribute('aria-current', 'true');
    expect(queries(spy)).toBe(2); // shown again, not asked again
  });

  it('keeps the history per key and clears it on "Clear history"', async () => {
    const user = userEvent.setup();
    routes();
    const member = renderWithProviders(<LTTPage />, { caller: MEMBER });
    await ask(user, '排水會否水浸？');
    member.unmount();

    const reader = renderWithProviders(<LTTPage />, { caller: READER }); // another key: none of it
    expect(screen.queryByRole('region', { name: /Recent questions/ })).not.toBeInTheDocument();
    reader.unmount();

    renderWithProviders(<LTTPage />, { caller: MEMBER }); // signed in again: still there
    const history = await screen.findByRole('region', { name: 'Recent questions (1)' });
    await user.click(within(history).getByRole('button', { name: /排水會否水浸？/ }));
    expect(screen.getByText('The answer to A1.')).toBeInTheDocument();
    await user.click(within(history).getByRole('button', { name: 'Clear history' }));
    expect(screen.queryByRole('region', { name: /Recent questions/ })).not.toBeInTheDocument();
    expect(window.localStorage.length).toBe(0);
  });
});

describe('LTTPage speaking-note export', () => {
  /** The blobs the page handed to the browser to save, by file name. */
  function captureDownloads() {
    const saved: Record<string, Blob> = {};
    const blobs = new Map<string, Blob>();
    vi.stubGlobal('URL', Object.assign(URL, {
      createObjectURL: (b: Blob) => {
        const url = `blob:test/${blobs.size}`;
        blobs.set(url, b);
        return url;
      },
      revokeObjectURL: () => {},
    }));
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved[this.download] = blobs.get(this.href) as Blob;
    });
    return saved;
  }

  it('downloads Markdown and DOCX notes without the internal note', async () => {
    const user = userEvent.setup();
    routes();
    const saved = captureDownloads();
    renderWithProviders(<LTTPage />);
    await ask(user, '排水會否水浸？');
    const group = screen.getByRole('group', { name: 'Export as speaking note' });

    await user.click(within(group).getByRole('button', { name: 'Download Markdown' }));
    const md = await saved['speaking-note-A1.md'].text();
    expect(md).toContain('**A1** 排水會否水浸？（原題）');
    expect(md).toContain('The answer to A1.');
    expect(md).not.toContain('Internal detail');
    expect(within(group).getByRole('status')).toHaveTextContent('Saved speaking-note-A1.md, without the internal notes.');

    await user.click(within(group).getByRole('button', { name: 'Download DOCX' }));
    await waitFor(() => expect(saved['speaking-note-A1.docx']).toBeDefined());
    const files = unzipSync(new Uint8Array(await saved['speaking-note-A1.docx'].arrayBuffer()));
    const xml = strFromU8(files['word/document.xml']);
    expect(xml).toContain('The answer to A1.');
    expect(xml).not.toContain('Internal detail');
  });

  it('writes the note in the interface language: 問題, 答案, 來源 from the Chinese interface', async () => {
    await i18n.changeLanguage('zh-HK');
    const user = userEvent.setup();
    routes();
    const saved = captureDownloads();
    renderWithProviders(<LTTPage />);
    const box = screen.getByRole('textbox', { name: /^問題/ });
    await user.type(box, '排水會否水浸？{Enter}');
    const group = await screen.findByRole('group', { name: '匯出為發言稿' });
    await user.click(within(group).getByRole('button', { name: '下載 Markdown' }));
    const zh = await saved['speaking-note-A1.md'].text();
    expect(zh.startsWith('# 發言稿\n\n**問題：** 排水會否水浸？\n\n## 答案\n\n**A1** 排水會否水浸？（原題）')).toBe(true);
    expect(zh).toContain('## 來源\n\n1. budget.pdf，第3頁 — A1 排水會否水浸？（原題）');
    expect(zh).toContain('*本發言稿不包括內部參考。*');
    expect(zh).not.toContain('Internal detail');
    expect(zh).not.toMatch(/Speaking note|Question|Sources|page 3/);

    await act(() => i18n.changeLanguage('en')); // switched: the next note is in English
    await user.click(within(screen.getByRole('group', { name: 'Export as speaking note' }))
      .getByRole('button', { name: 'Download Markdown' }));
    const en = await saved['speaking-note-A1.md'].text();
    expect(en.startsWith('# Speaking note\n\n**Question:** 排水會否水浸？\n\n## Answer')).toBe(true);
    expect(en).toContain('1. budget.pdf, page 3 — A1');
  });
});

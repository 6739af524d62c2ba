import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ChunkCard, answerText } from './ChunkCard';
import { ChunkList } from './ChunkList';
import { jsonResponse, makeQaChunk, makeTokenChunk, mockFetch, renderWithProviders } from '../test/utils';

describe('ChunkCard', () => {
  it('renders a token chunk by page with a link to the one-page PDF', () => {
    renderWithProviders(<ChunkCard chunk={makeTokenChunk()} filename="report.pdf" onDelete={vi.fn()} />);

    const card = screen.getByRole('article', { name: 'Page 3' });
    expect(card).toHaveAttribute('data-chunk-kind', 'token');
    expect(within(card).getByText('Page 3')).toBeInTheDocument();
    expect(within(card).getByText('Budget allocation for the fourth quarter.')).toBeInTheDocument();

    const link = within(card).getByRole('link', { name: /open page pdf of page 3 of report\.pdf/i });
    expect(link).toHaveAttribute('href', '/api/v1/documents/doc-1/pages/3.pdf');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link.getAttribute('rel')).toContain('noopener');
    // No Q&A furniture on token chunks.
    expect(within(card).queryByText(/contains table/i)).not.toBeInTheDocument();
    expect(within(card).queryByText(/topic:/i)).not.toBeInTheDocument();
  });

  it('falls back to the chunk number when a token chunk has no page (DOCX/TXT)', () => {
    renderWithProviders(
      <ChunkCard
        chunk={makeTokenChunk({ page_number: null, pdf_url: null, chunk_index: 6 })}
        filename="notes.docx"
        onDelete={vi.fn()}
      />,
    );
    expect(screen.getByText('Chunk 7')).toBeInTheDocument();
    expect(screen.queryByRole('link')).not.toBeInTheDocument();
  });

  it('renders a Q&A chunk as "A1 — question", topic, page range, table badge and the answer table', () => {
    renderWithProviders(<ChunkCard chunk={makeQaChunk()} filename="古洞北.pdf" onDelete={vi.fn()} />);

    const card = screen.getByRole('article', { name: 'A1 — 古洞北新發展區的收地進度如何？' });
    expect(card).toHaveAttribute('data-chunk-kind', 'qa');
    expect(within(card).getByTestId('chunk-topic')).toHaveTextContent(/^Topic: \(A\) 收地及清拆$/);
    expect(within(card).getByText('Pages 5–7')).toBeInTheDocument();
    expect(within(card).getByText('Contains table')).toBeInTheDocument();

    // The answer is rendered as markdown; its GFM table becomes a real table.
    expect(within(card).getByText(/政府已收回約 80% 的私人土地/)).toBeInTheDocument();
    const table = within(card).getByRole('table');
    expect(within(table).getByRole('columnheader', { name: '年份' })).toBeInTheDocument();
    expect(within(table).getByRole('cell', { name: '18' })).toBeInTheDocument();
    expect(within(table).getAllByRole('row')).toHaveLength(3);
  });

  it('drops headings and the (wrapped) question from the answer text, keeping the whole answer', () => {
    const answer = answerText(makeQaChunk());
    expect(answer).toMatch(/^答 A1：政府已收回/);
    expect(answer).not.toContain('進度如何');
    expect(answer).toContain('| 2024 | 18 |');

    // English "Q-only" style: the answer follows the question line directly.
    const english = makeQaChunk({
      text: 'Q4.\t不選擇安置的住戶可獲多少特惠現金津貼？\n不選擇安置的合資格住戶可領取一次過的特惠現金津貼。',
      question_id: 'Q4',
      question_text: '不選擇安置的住戶可獲多少特惠現金津貼？',
    });
    expect(answerText(english)).toBe('不選擇安置的合資格住戶可領取一次過的特惠現金津貼。');

    // If the question can't be found, nothing is dropped.
    expect(answerText(makeQaChunk({ text: 'no question line here\nsecond line', question_text: 'Other?' }))).toBe(
      'no question line here\nsecond line',
    );
  });

  it('never renders HTML from the server', () => {
    const chunk = makeQaChunk({
      text: 'Q1 question\n<img src=x onerror="alert(1)"><b>bold</b> answer',
      question_text: 'question',
    });
    const { container } = renderWithProviders(<ChunkCard chunk={chunk} filename="x.pdf" onDelete={vi.fn()} />);
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
  });
});

describe('ChunkList', () => {
  it('asks for confirmation before deleting a chunk, then deletes it', async () => {
    const user = userEvent.setup();
    let chunks = [makeTokenChunk(), makeTokenChunk({ chunk_id: 'doc-1_1', chunk_index: 1, page_number: 4 })];
    const fetchSpy = mockFetch({
      'GET /api/v1/documents/doc-1/chunks': () => jsonResponse({ document_id: 'doc-1', chunks }),
      'DELETE /api/v1/chunks/doc-1_1': () => {
        chunks = chunks.filter((c) => c.chunk_id !== 'doc-1_1');
        return jsonResponse({ deleted: true, message: 'Chunk deleted' });
      },
      'GET /api/v1/documents': () =>
        jsonResponse({ documents: [], total_documents: 0, total_chunks: 0 }),
    });
    renderWithProviders(<ChunkList documentId="doc-1" filename="report.pdf" canDelete />);

    await user.click(await screen.findByRole('button', { name: 'Delete chunk Page 4' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/will be removed from report\.pdf/)).toBeInTheDocument();
    expect(fetchSpy.mock.calls.some(([, init]) => init?.method === 'DELETE')).toBe(false);

    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() =>
      expect(fetchSpy).toHaveBeenCalledWith('/api/v1/chunks/doc-1_1', expect.objectContaining({ method: 'DELETE' })),
    );
    await waitFor(() => expect(screen.queryByRole('article', { name: 'Page 4' })).not.toBeInTheDocument());
    expect(screen.getByRole('article', { name: 'Page 3' })).toBeInTheDocument();
  });
});

describe('ChunkCard section chunks', () => {
  it('titles a non-Q&A section of a question-strategy document by its first line, with page range', () => {
    renderWithProviders(
      <ChunkCard
        chunk={makeQaChunk({
          chunk_kind: 'section',
          question_id: null,
          question_text: null,
          topic_section: null,
          text: '發言要點\n主席，古洞北及粉嶺北新發展區合共約 615 公頃。',
          source_page_range: [1, 2],
          answer_contains_table: false,
          has_table: false,
        })}
        filename="E.pdf"
        onDelete={vi.fn()}
      />,
    );
    const card = screen.getByRole('article', { name: '發言要點' });
    expect(card).toHaveAttribute('data-chunk-kind', 'section');
    expect(within(card).getByText('Pages 1–2')).toBeInTheDocument();
    expect(within(card).getByText(/合共約 615 公頃/)).toBeInTheDocument();
    // The first line is the title only, not repeated in the body.
    expect(within(card).getAllByText('發言要點')).toHaveLength(1);
    expect(within(card).queryByText('Contains table')).not.toBeInTheDocument();
  });
});

describe('ChunkCard shows the PDF\'s printed lines reflowed into paragraphs', () => {
  // E_基礎設施.pdf as the parser gives it: the lines wrapped by the PDF, a blank line between paragraphs.
  const wrapped =
    '答 A1：渠務署已完成排水影響評估，新發展區的發展不會增加上水及\n' +
    '粉嶺一帶的水浸風險。The assessment was endorsed by the\n' +
    'Drainage Services Department in 2019 and will be reviewed.\n' +
    '\n' +
    '第二段。';
  const first =
    '答 A1：渠務署已完成排水影響評估，新發展區的發展不會增加上水及粉嶺一帶的水浸風險。' +
    'The assessment was endorsed by the Drainage Services Department in 2019 and will be reviewed.';

  it('in a Q&A chunk: no space or break between CJK characters, one space between words, paragraphs kept', () => {
    const chunk = makeQaChunk({ text: `問 A1：古洞北新發展區的收地進度如何？\n${wrapped}`, answer_contains_table: false });
    renderWithProviders(<ChunkCard chunk={chunk} filename="E_基礎設施.pdf" />);
    const card = screen.getByRole('article', { name: 'A1 — 古洞北新發展區的收地進度如何？' });
    const paragraphs = [...card.querySelectorAll('.markdown-body p')].map((p) => p.textContent);
    expect(paragraphs).toEqual([first, '第二段。']);
    expect(card.querySelectorAll('.markdown-body br')).toHaveLength(0);
  });

  it('in a token chunk (plain text)', () => {
    renderWithProviders(<ChunkCard chunk={makeTokenChunk({ text: wrapped })} filename="E_基礎設施.pdf" />);
    const card = screen.getByRole('article', { name: 'Page 3' });
    expect(within(card).getByText(/^答 A1：/).textContent).toBe(`${first}\n\n第二段。`);
  });
});

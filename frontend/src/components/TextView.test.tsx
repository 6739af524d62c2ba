import { describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { TextView, documentParts, overlapLength } from './TextView';
import { ViewSourceButton } from './SourceViewer';
import type { ChunkInfo, Highlight } from '../types';
import { jsonResponse, makeDocument, makeTokenChunk, mockFetch, renderWithProviders } from '../test/utils';

// pdf.js cannot run in jsdom: a PDF source's page is a stand-in (see PdfViewer.test.tsx)
vi.mock('../lib/pdfjs', () => ({
  openPdfPage: vi.fn(async () => ({ width: 595.3, height: 841.9, render: vi.fn(async () => {}), destroy: vi.fn() })),
}));

// a TXT body cut into token windows that overlap, as the splitter cuts DOCX/TXT
const BODY =
  '第一段：新發展區的排水系統會分期興建，首批工程已經完成。\n' +
  'Second paragraph: the storage tanks are kept dry in normal weather and emptied within 24 hours.\n' +
  '第三段：共同溝全長約四公里，可容納食水管、再造水管及電纜。';
const CUTS: [number, number][] = [
  [0, 70],
  [40, 125],
  [95, BODY.length],
];

function windows(): ChunkInfo[] {
  return CUTS.map(([start, end], i) =>
    makeTokenChunk({
      chunk_id: `doc-t_${i}`,
      document_id: 'doc-t',
      filename: 'notes.txt',
      chunk_index: i,
      text: BODY.slice(start, end),
      page_number: null,
      pdf_url: null,
    }),
  );
}

describe('overlapLength / documentParts', () => {
  it('finds the repeated start of the next window, and no overlap by coincidence', () => {
    expect(overlapLength(BODY.slice(0, 70), BODY.slice(40, 125))).toBe(30);
    expect(overlapLength('問題一的答案到此為止。', '。問題二')).toBe(0);
  });

  it('rebuilds the text once, the cited window whole', () => {
    const parts = documentParts(windows(), 'doc-t_1');
    expect(parts.map((p) => p.before + p.text).join('')).toBe(BODY);
    expect(parts.find((p) => p.cited)?.text).toBe(BODY.slice(40, 125));
    expect(parts.filter((p) => p.cited)).toHaveLength(1);
  });

  it('separates chunks that do not overlap by a blank line', () => {
    const qa = [
      makeTokenChunk({ chunk_id: 'd_0', chunk_index: 0, text: '問 A1：第一題？\n答 A1：第一個答案。' }),
      makeTokenChunk({ chunk_id: 'd_1', chunk_index: 1, text: '問 A2：第二題？\n答 A2：第二個答案。' }),
    ];
    const parts = documentParts(qa, 'd_1');
    expect(parts.map((p) => p.before + p.text).join('')).toBe(`${qa[0].text}\n\n${qa[1].text}`);
  });
});

describe('TextView', () => {
  it('shows the document with the cited passage in a <mark>', () => {
    renderWithProviders(<TextView chunks={windows()} chunkId="doc-t_1" filename="notes.txt" />);
    const mark = screen.getByTestId('cited-passage');
    expect(mark.tagName).toBe('MARK');
    expect(mark.textContent).toBe(BODY.slice(40, 125));
    expect(screen.getByLabelText('Text of notes.txt').textContent).toBe(BODY);
  });

  it('says so when the passage is gone', () => {
    renderWithProviders(<TextView chunks={windows()} chunkId="doc-t_9" filename="notes.txt" />);
    expect(screen.getByText('This passage is no longer in notes.txt.')).toBeInTheDocument();
    expect(screen.queryByTestId('cited-passage')).toBeNull();
  });
});

describe('ViewSourceButton', () => {
  it('opens a TXT source as text with the passage marked', async () => {
    mockFetch({
      'GET /api/v1/documents/doc-t/chunks': () => jsonResponse({ document_id: 'doc-t', chunks: windows() }),
    });
    renderWithProviders(
      <ViewSourceButton cited={{ chunkId: 'doc-t_2', documentId: 'doc-t', filename: 'notes.txt', pdf: false }} />,
    );
    await userEvent.setup().click(screen.getByRole('button', { name: 'View notes.txt' }));
    expect((await screen.findByTestId('cited-passage')).textContent).toBe(BODY.slice(95));
  });

  it('opens a PDF source on the page of its first highlight, fetched with the chunk', async () => {
    const highlights: Highlight[] = [{ page: 2, rects: [[90, 458.9, 502.6, 477.2]], texts: ['新發展區大量土地'] }];
    const spy = mockFetch({
      'GET /api/v1/chunks/doc-1_4': () => jsonResponse(makeTokenChunk({ chunk_id: 'doc-1_4', page_number: 1, highlights })),
      'GET /api/v1/documents/doc-1': () => jsonResponse(makeDocument({ page_count: 13 })),
      'GET /api/v1/documents/doc-1/pages/2.pdf': () => new Response('%PDF', { headers: { 'Content-Type': 'application/pdf' } }),
    });
    renderWithProviders(
      <ViewSourceButton
        cited={{ chunkId: 'doc-1_4', documentId: 'doc-1', filename: 'E.pdf', page: 1, pdf: true }}
        label="View source 1"
      />,
    );
    await userEvent.setup().click(screen.getByRole('button', { name: 'View source 1' }));
    expect(await screen.findByText('Page 2 of 13')).toBeInTheDocument();
    expect(await screen.findByTestId('highlight')).toHaveAttribute('title', '新發展區大量土地');
    expect(spy.mock.calls.some(([u]) => u === '/api/v1/documents/doc-1/pages/2.pdf')).toBe(true);
  });
});

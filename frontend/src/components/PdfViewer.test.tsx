/**
 * The viewer's page and highlight layer. pdf.js cannot render in jsdom (no canvas, no worker), so
 * `lib/pdfjs` is replaced by a page of A4 size whose `render` is a spy; everything else (fetching
 * the page PDF with the key, placing the highlights, stepping through pages) is the real code.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { PdfViewer } from './PdfViewer';
import type { Highlight } from '../types';
import { TEST_KEY, jsonResponse, mockFetch, renderWithProviders } from '../test/utils';

const pdfjs = vi.hoisted(() => ({
  render: vi.fn(async (_canvas: HTMLCanvasElement, _scale: number) => {}),
  destroy: vi.fn(),
  opened: [] as number[],
}));

vi.mock('../lib/pdfjs', () => ({
  openPdfPage: vi.fn(async (data: ArrayBuffer) => {
    pdfjs.opened.push(data.byteLength);
    return { width: 595.3, height: 841.9, render: pdfjs.render, destroy: pdfjs.destroy };
  }),
}));

const HIGHLIGHTS: Highlight[] = [
  {
    page: 3,
    rects: [
      [90, 386.6, 474.6, 404.9],
      [90, 428.7, 502.6, 447],
    ],
    texts: ['問 A2︰地下蓄洪池設於民居附近，會否產生臭味或衞生問題', '答 A2︰蓄洪池在平日會保持乾涸'],
  },
  { page: 4, rects: [[94.6, 67.2, 360.6, 85.5]], texts: ['如被追問：蓄洪池上蓋的休憩用地何時開放'] },
];

function pdf(body: string) {
  return () => new Response(body, { headers: { 'Content-Type': 'application/pdf' } });
}

beforeEach(() => {
  pdfjs.render.mockClear();
  pdfjs.opened.length = 0;
});

describe('PdfViewer', () => {
  it('renders the page PDF fetched with the key and marks the cited lines on it', async () => {
    const spy = mockFetch({ 'GET /api/v1/documents/doc-1/pages/3.pdf': pdf('%PDF-page-3') });
    renderWithProviders(
      <PdfViewer documentId="doc-1" filename="E.pdf" page={3} pageCount={13} highlights={HIGHLIGHTS} />,
    );
    const marks = await screen.findAllByTestId('highlight');
    expect(marks).toHaveLength(2);
    expect(marks.map((m) => m.getAttribute('title'))).toEqual(HIGHLIGHTS[0].texts);
    // the layer's text is the cited words, for a browser test or a screen reader
    expect(screen.getByTestId('highlight-layer')).toHaveTextContent('問 A2︰地下蓄洪池設於民居附近');
    expect(screen.getByTestId('highlight-layer')).not.toHaveTextContent('如被追問');
    // PDF points × scale (jsdom has no layout width: scale 1)
    expect(marks[0]).toHaveStyle({ left: '90px', top: '386.6px', width: '384.6px' });
    expect(screen.getByTestId('pdf-page')).toHaveStyle({ width: '595.3px', height: '841.9px' });
    const [url, init] = spy.mock.calls.find(([u]) => String(u).endsWith('/pages/3.pdf'))!;
    expect(url).toBe('/api/v1/documents/doc-1/pages/3.pdf');
    expect((init?.headers as Record<string, string>).Authorization).toBe(`Bearer ${TEST_KEY}`);
    expect(pdfjs.opened).toEqual(['%PDF-page-3'.length]);
    await waitFor(() => expect(pdfjs.render).toHaveBeenCalledTimes(1));
    expect(pdfjs.render.mock.calls[0][0]).toBeInstanceOf(HTMLCanvasElement);
    expect(pdfjs.render.mock.calls[0][1]).toBe(1);
    expect(screen.getByRole('link', { name: /Open page PDF of page 3 of E\.pdf/ })).toHaveAttribute(
      'href',
      '/api/v1/documents/doc-1/pages/3.pdf',
    );
  });

  it('steps to the next and previous pages, each with its own highlights', async () => {
    mockFetch({
      'GET /api/v1/documents/doc-1/pages/3.pdf': pdf('%PDF-3'),
      'GET /api/v1/documents/doc-1/pages/4.pdf': pdf('%PDF-page-4'),
      'GET /api/v1/documents/doc-1/pages/5.pdf': pdf('%PDF-5'),
    });
    const user = userEvent.setup();
    renderWithProviders(
      <PdfViewer documentId="doc-1" filename="E.pdf" page={3} pageCount={5} highlights={HIGHLIGHTS} />,
    );
    expect(await screen.findAllByTestId('highlight')).toHaveLength(2);
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => expect(screen.getByText('Page 4 of 5')).toBeInTheDocument());
    await waitFor(() => expect(screen.getAllByTestId('highlight')).toHaveLength(1));
    expect(screen.getByTestId('highlight')).toHaveAttribute('title', '如被追問：蓄洪池上蓋的休憩用地何時開放');
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => expect(screen.getByText('Page 5 of 5')).toBeInTheDocument());
    await waitFor(() => expect(pdfjs.opened).toContain('%PDF-5'.length));
    expect(screen.queryAllByTestId('highlight')).toHaveLength(0);
    expect(screen.getByText('The cited passage is on pages 3, 4.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next page' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    await waitFor(() => expect(screen.getByText('Page 4 of 5')).toBeInTheDocument());
    expect(pdfjs.opened).toEqual([6, 11, 6, 11]);
  });

  it('cannot step before page 1, and says why a page cannot be shown', async () => {
    mockFetch({ 'GET /api/v1/documents/doc-1/pages/1.pdf': () => jsonResponse({ detail: 'Page not found' }, 404) });
    renderWithProviders(<PdfViewer documentId="doc-1" filename="E.pdf" page={1} highlights={[]} />);
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Page not found')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous page' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Next page' })).toBeEnabled();
    expect(screen.queryAllByTestId('highlight')).toHaveLength(0);
  });
});

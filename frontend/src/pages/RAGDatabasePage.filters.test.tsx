import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useLocation } from 'react-router-dom';
import { RAGDatabasePage } from './RAGDatabasePage';
import { ADMIN, installMockEventStream, jsonResponse, makeDocument, mockFetch, renderWithProviders } from '../test/utils';
import type { DocumentInfo } from '../types';

/** 30 documents; the mocked gateway filters by `q` (filename) and `status` and pages like the real one. */
const LIBRARY: DocumentInfo[] = Array.from({ length: 30 }, (_, i) =>
  makeDocument({
    document_id: `doc-${i + 1}`,
    filename: `paper-${String(i + 1).padStart(2, '0')}.pdf`,
    status: i % 10 === 0 ? 'failed' : 'indexed',
    chunk_count: 2,
  }),
);

function gateway(url: string) {
  const p = new URL(url, 'http://x').searchParams;
  const q = (p.get('q') ?? '').toLowerCase();
  const statuses = p.getAll('status');
  const found = LIBRARY.filter((d) => d.filename.toLowerCase().includes(q) && (!statuses.length || statuses.includes(d.status)));
  const size = Number(p.get('page_size') ?? found.length);
  const page = Number(p.get('page') ?? 1);
  return jsonResponse({
    documents: found.slice((page - 1) * size, page * size),
    total_documents: LIBRARY.length,
    total_chunks: LIBRARY.length * 2,
    total: found.length,
    page,
    page_size: size,
    notice: null,
  });
}

function Location() {
  const location = useLocation();
  return <output data-testid="location">{location.search}</output>;
}

function rows(): string[] {
  return screen.queryAllByRole('article').map((a) => a.getAttribute('aria-label') ?? '');
}

function listRequests(spy: ReturnType<typeof mockFetch>): URLSearchParams[] {
  return spy.mock.calls
    .map(([url]) => String(url))
    .filter((url) => url.startsWith('/api/v1/documents?'))
    .map((url) => new URL(url, 'http://x').searchParams);
}

beforeEach(() => installMockEventStream());

// Each page renders 25 document rows: slow on 2 shared cores.
describe('RAG Database search, filters and pages', { timeout: 60_000 }, () => {
  it('shows 25 documents a page and pages through them', async () => {
    const user = userEvent.setup({ delay: null });
    const spy = mockFetch({ 'GET /api/v1/documents': gateway });
    renderWithProviders(
      <>
        <RAGDatabasePage />
        <Location />
      </>,
      { route: '/rag-database' },
    );
    await screen.findByRole('article', { name: 'paper-01.pdf' });
    expect(rows()).toHaveLength(25);
    expect(screen.getAllByTestId('pager-summary')[0]).toHaveTextContent('Showing 1–25 of 30 documents');
    expect(screen.getByLabelText('Documents: 30')).toBeInTheDocument();
    const first = listRequests(spy)[0];
    expect([first.get('page'), first.get('page_size'), first.get('sort')]).toEqual(['1', '25', '-uploaded_at']);

    const pager = screen.getAllByRole('navigation', { name: 'Document pages' })[0];
    await user.click(within(pager).getByRole('button', { name: 'Page 2' }));
    await waitFor(() => expect(rows()).toEqual(LIBRARY.slice(25).map((d) => d.filename)));
    expect(screen.getAllByTestId('pager-summary')[0]).toHaveTextContent('Showing 26–30 of 30 documents');
    expect(screen.getByTestId('location')).toHaveTextContent('?page=2');
    expect(listRequests(spy).at(-1)?.get('page')).toBe('2');
  });

  it('searches as you type and goes back to page 1', async () => {
    const user = userEvent.setup({ delay: null });
    const spy = mockFetch({ 'GET /api/v1/documents': gateway });
    renderWithProviders(
      <>
        <RAGDatabasePage />
        <Location />
      </>,
      { route: '/rag-database?page=2' },
    );
    await screen.findByRole('article', { name: 'paper-26.pdf' });
    await user.type(screen.getByRole('searchbox', { name: /Search documents/ }), 'PAPER-1');
    await waitFor(() => expect(rows()).toEqual(LIBRARY.slice(9, 19).map((d) => d.filename)));
    expect(screen.getByTestId('location')).toHaveTextContent('?q=PAPER-1');
    const last = listRequests(spy).at(-1);
    expect([last?.get('q'), last?.get('page')]).toEqual(['PAPER-1', '1']);
  });

  it('filters by status, keeps it in the URL, and says when nothing matches', async () => {
    const user = userEvent.setup({ delay: null });
    const spy = mockFetch({ 'GET /api/v1/documents': gateway });
    renderWithProviders(
      <>
        <RAGDatabasePage />
        <Location />
      </>,
      { route: '/rag-database' },
    );
    await screen.findByRole('article', { name: 'paper-01.pdf' });
    await user.click(screen.getByRole('checkbox', { name: 'Failed' }));
    await waitFor(() => expect(rows()).toEqual(['paper-01.pdf', 'paper-11.pdf', 'paper-21.pdf']));
    expect(listRequests(spy).at(-1)?.getAll('status')).toEqual(['failed']);
    expect(screen.getByTestId('location')).toHaveTextContent('?status=failed');

    await user.type(screen.getByRole('searchbox', { name: /Search documents/ }), 'nothing like this{Enter}');
    expect(await screen.findByText('No documents match this search and these filters.')).toBeInTheDocument();
    expect(rows()).toEqual([]);
    expect(screen.getAllByTestId('pager-summary')[0]).toHaveTextContent('No matching documents');

    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(rows()).toHaveLength(25));
    expect(screen.getByTestId('location')).toBeEmptyDOMElement();
    expect(screen.getByLabelText('Uploaded from')).toHaveAccessibleDescription('Any date');
  });

  it('restores the filters of a shared link', async () => {
    const spy = mockFetch({ 'GET /api/v1/documents': gateway });
    renderWithProviders(<RAGDatabasePage />, {
      route: '/rag-database?q=paper-2&status=indexed&strategy=question&from=2026-05-01&to=2026-05-31&sort=filename',
    });
    const search = await screen.findByRole('searchbox', { name: /Search documents/ });
    expect(search).toHaveValue('paper-2');
    expect(screen.getByRole('checkbox', { name: 'Indexed' })).toBeChecked();
    expect(screen.getByRole('checkbox', { name: 'Failed' })).not.toBeChecked();
    expect(screen.getByRole('combobox', { name: 'Chunking strategy' })).toHaveValue('question');
    expect(screen.getByLabelText('Uploaded from')).toHaveValue('2026-05-01');
    expect(screen.getByLabelText('Uploaded to')).toHaveValue('2026-05-31');
    // The days in words in the interface language, whatever order the browser's date control uses.
    expect(screen.getByLabelText('Uploaded from')).toHaveAccessibleDescription('1 May 2026');
    expect(screen.getByLabelText('Uploaded to')).toHaveAccessibleDescription('31 May 2026');
    expect(screen.getByRole('combobox', { name: 'Sort by' })).toHaveValue('filename');
    await waitFor(() => expect(listRequests(spy).length).toBeGreaterThan(0));
    const sent = listRequests(spy)[0];
    expect(Object.fromEntries(sent)).toEqual({
      q: 'paper-2', status: 'indexed', strategy: 'question', uploaded_from: '2026-05-01', uploaded_to: '2026-05-31',
      sort: 'filename', page: '1', page_size: '25',
    });
  });

  it("sends an admin's department filter and the sort", async () => {
    const user = userEvent.setup({ delay: null });
    const spy = mockFetch({ 'GET /api/v1/documents': gateway });
    renderWithProviders(<RAGDatabasePage />, { caller: ADMIN, route: '/rag-database' });
    await screen.findByRole('article', { name: 'paper-01.pdf' });
    await user.selectOptions(screen.getByRole('combobox', { name: /^Show department/ }), 'default');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Sort by' }), '-chunks');
    await waitFor(() => {
      const last = listRequests(spy).at(-1);
      expect([last?.get('department'), last?.get('sort')]).toEqual(['default', '-chunks']);
    });
  });

  it('offers no department filter to a member', async () => {
    mockFetch({ 'GET /api/v1/documents': gateway });
    renderWithProviders(<RAGDatabasePage />, { route: '/rag-database' });
    await screen.findByRole('article', { name: 'paper-01.pdf' });
    expect(screen.queryByRole('combobox', { name: /^Show department/ })).not.toBeInTheDocument();
  });
});

describe('RAG Database dialogs and labels', () => {
  it('labels the file input, names the dialog close button and focuses Cancel first', async () => {
    const user = userEvent.setup({ delay: null });
    mockFetch({ 'GET /api/v1/documents': gateway });
    renderWithProviders(<RAGDatabasePage />, { route: '/rag-database' });
    const row = await screen.findByRole('article', { name: 'paper-01.pdf' });
    expect(screen.getByLabelText('Files to upload')).toHaveAttribute('type', 'file');

    await user.click(within(row).getByRole('button', { name: 'Delete document paper-01.pdf' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete this document?' });
    expect(within(dialog).getByRole('button', { name: 'Close dialog' })).toBeInTheDocument();
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus());
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });
});

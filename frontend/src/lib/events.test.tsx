import { beforeEach, describe, expect, it } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { RAGDatabasePage } from '../pages/RAGDatabasePage';
import {
  ADMIN,
  MockEventStream,
  installMockEventStream,
  jsonResponse,
  makeDocument,
  mockFetch,
  renderWithProviders,
} from '../test/utils';
import type { DocumentInfo } from '../types';

beforeEach(() => installMockEventStream());

function listBody(documents: DocumentInfo[]) {
  return {
    documents,
    total_documents: documents.length,
    total_chunks: documents.reduce((n, d) => n + d.chunk_count, 0),
    total: documents.length,
    page: 1,
    page_size: 25,
    notice: null,
  };
}

describe('useDocumentEvents', () => {
  it('refetches the list when a document event names a document it does not know', async () => {
    let documents = [makeDocument({ document_id: 'a', filename: 'a.pdf' })];
    const fetchSpy = mockFetch({ 'GET /api/v1/documents': () => jsonResponse(listBody(documents)) });
    renderWithProviders(<RAGDatabasePage />);
    await screen.findByRole('article', { name: 'a.pdf' });
    const listCalls = () => fetchSpy.mock.calls.filter(([url]) => String(url).startsWith('/api/v1/documents?')).length;
    const before = listCalls();

    const elsewhere = makeDocument({
      document_id: 'b',
      filename: 'uploaded-elsewhere.pdf',
      status: 'processing',
      stage: 'parsing',
      pages_done: 1,
      pages_total: 5,
      chunk_count: 0,
    });
    documents = [...documents, elsewhere];
    act(() => MockEventStream.latest().emit('document', elsewhere));
    expect(await screen.findByRole('article', { name: 'uploaded-elsewhere.pdf' })).toBeInTheDocument();
    expect(listCalls()).toBeGreaterThan(before);
  });

  it('replaces the cached record with the one sent, fields it no longer has included', async () => {
    const failed = makeDocument({
      status: 'failed',
      stage: 'failed',
      chunk_count: 0,
      error: 'The PDF has no text layer',
      warnings: ['Page 2 is scanned'],
    });
    mockFetch({ 'GET /api/v1/documents': () => jsonResponse(listBody([failed])) });
    renderWithProviders(<RAGDatabasePage />);
    const row = await screen.findByRole('article', { name: 'report.pdf' });
    expect(within(row).getByText('The PDF has no text layer')).toBeInTheDocument();

    // A redelivered upload starts over: the gateway's record has no error and no warnings now.
    act(() =>
      MockEventStream.latest().emit('document', {
        ...failed,
        status: 'processing',
        stage: 'parsing',
        pages_done: 0,
        error: null,
        warnings: [],
        updated_at: '2026-05-16T00:00:00Z',
      }),
    );
    await waitFor(() => expect(within(row).getByTestId('progress-stage')).toHaveTextContent('Parsing'));
    expect(within(row).queryByText('The PDF has no text layer')).not.toBeInTheDocument();
    expect(within(row).queryByText('Page 2 is scanned')).not.toBeInTheDocument();
  });

  it('removes a document when the gateway reports it deleted', async () => {
    mockFetch({
      'GET /api/v1/documents': () =>
        jsonResponse(
          listBody([
            makeDocument({ document_id: 'a', filename: 'a.pdf', chunk_count: 3 }),
            makeDocument({ document_id: 'b', filename: 'b.pdf', chunk_count: 5 }),
          ]),
        ),
    });
    renderWithProviders(<RAGDatabasePage />);
    await screen.findByRole('article', { name: 'a.pdf' });
    expect(screen.getByLabelText('Chunks: 8')).toBeInTheDocument();

    act(() => MockEventStream.latest().emit('deleted', { document_id: 'a' }));
    await waitFor(() => expect(screen.queryByRole('article', { name: 'a.pdf' })).not.toBeInTheDocument());
    expect(screen.getByRole('article', { name: 'b.pdf' })).toBeInTheDocument();
    expect(screen.getByLabelText('Documents: 1')).toBeInTheDocument();
    expect(screen.getByLabelText('Chunks: 5')).toBeInTheDocument();
  });

  it('ignores malformed events and closes the stream on unmount', async () => {
    mockFetch({ 'GET /api/v1/documents': () => jsonResponse(listBody([makeDocument()])) });
    const { unmount } = renderWithProviders(<RAGDatabasePage />);
    await screen.findByRole('article', { name: 'report.pdf' });
    const source = MockEventStream.latest();
    act(() => source.emit('document', 'not json at all'));
    act(() => source.emit('deleted', { no: 'id' }));
    expect(screen.getByRole('article', { name: 'report.pdf' })).toBeInTheDocument();
    unmount();
    await waitFor(() => expect(source.closed).toBe(true));
  });

  it("updates an admin's filtered list, and refetches it only for documents it shows", async () => {
    const own = makeDocument({ document_id: 'h1', filename: 'hab.pdf', department: 'hab', status: 'processing', stage: 'parsing' });
    const fetchSpy = mockFetch({
      'GET /api/v1/documents': (url) =>
        jsonResponse(listBody(url.includes('department=hab') ? [own] : [own, makeDocument({ document_id: 'o1', filename: 'ops.pdf', department: 'ops' })])),
    });
    const { queryClient } = renderWithProviders(<RAGDatabasePage />, { caller: ADMIN });
    await screen.findByRole('article', { name: 'ops.pdf' });
    // Switch the filter to hab (offered once the list's departments are collected).
    await screen.findByRole('option', { name: 'hab' });
    await userEvent.setup().selectOptions(screen.getByRole('combobox', { name: /^Show department/ }), 'hab');
    await waitFor(() => expect(screen.queryByRole('article', { name: 'ops.pdf' })).not.toBeInTheDocument());
    const filteredCalls = () =>
      fetchSpy.mock.calls.filter(([url]) => new URL(String(url), 'http://x').searchParams.get('department') === 'hab').length;
    const before = filteredCalls();
    const stream = MockEventStream.latest();

    // Progress of a document of the list: applied in place, no refetch.
    act(() => stream.emit('document', { ...own, stage: 'embedding', updated_at: '2026-05-16T00:00:00Z' }));
    const row = screen.getByRole('article', { name: 'hab.pdf' });
    await waitFor(() => expect(within(row).getByTestId('progress-stage')).toHaveTextContent('Embedding'));
    // A new document of another department: not for this list.
    act(() => stream.emit('document', makeDocument({ document_id: 'x', filename: 'x.pdf', department: 'ops' })));
    // A new shared document: the filtered list shows the shared library too.
    act(() => stream.emit('document', makeDocument({ document_id: 's', filename: 's.pdf', department: 'ops', visibility: 'shared' })));
    await waitFor(() => expect(filteredCalls()).toBe(before + 1));
    // The unfiltered list (cached) was refetched or marked stale for both new ones.
    const unfiltered = queryClient.getQueryCache().findAll({ queryKey: ['documents', 'list', '*'] });
    expect(unfiltered.length).toBeGreaterThan(0);
    expect(unfiltered.every((q) => q.state.isInvalidated)).toBe(true);
  });
});

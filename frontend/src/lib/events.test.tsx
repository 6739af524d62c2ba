import { beforeEach, describe, expect, it } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import { RAGDatabasePage } from '../pages/RAGDatabasePage';
import {
  MockEventSource,
  installMockEventSource,
  jsonResponse,
  makeDocument,
  mockFetch,
  renderWithProviders,
} from '../test/utils';
import type { DocumentInfo } from '../types';

beforeEach(() => installMockEventSource());

function listBody(documents: DocumentInfo[]) {
  return { documents, total_documents: documents.length, total_chunks: documents.reduce((n, d) => n + d.chunk_count, 0) };
}

describe('useDocumentEvents', () => {
  it('refetches the list when a progress event names a document it does not know', async () => {
    let documents = [makeDocument({ document_id: 'a', filename: 'a.pdf' })];
    const fetchSpy = mockFetch({ 'GET /api/v1/documents': () => jsonResponse(listBody(documents)) });
    renderWithProviders(<RAGDatabasePage />);
    await screen.findByRole('article', { name: 'a.pdf' });
    const listCalls = () => fetchSpy.mock.calls.filter(([url]) => url === '/api/v1/documents').length;
    const before = listCalls();

    documents = [
      ...documents,
      makeDocument({ document_id: 'b', filename: 'uploaded-elsewhere.pdf', status: 'processing', stage: 'parsing' }),
    ];
    act(() =>
      MockEventSource.latest().emit('progress', {
        document_id: 'b',
        filename: 'uploaded-elsewhere.pdf',
        stage: 'parsing',
        status: 'processing',
        pages_done: 1,
        pages_total: 5,
        chunk_count: 0,
        error: null,
        warnings: [],
        ts: 1,
      }),
    );
    expect(await screen.findByRole('article', { name: 'uploaded-elsewhere.pdf' })).toBeInTheDocument();
    expect(listCalls()).toBeGreaterThan(before);
  });

  it('ignores malformed events and closes the stream on unmount', async () => {
    mockFetch({ 'GET /api/v1/documents': () => jsonResponse(listBody([makeDocument()])) });
    const { unmount } = renderWithProviders(<RAGDatabasePage />);
    await screen.findByRole('article', { name: 'report.pdf' });
    const source = MockEventSource.latest();
    act(() => source.emit('progress', 'not json at all'));
    expect(screen.getByRole('article', { name: 'report.pdf' })).toBeInTheDocument();
    unmount();
    await waitFor(() => expect(source.readyState).toBe(MockEventSource.CLOSED));
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { RAGDatabasePage } from './RAGDatabasePage';
import {
  MockEventStream,
  installMockEventStream,
  jsonResponse,
  makeDocument,
  mockFetch,
  renderWithProviders,
} from '../test/utils';
import type { DocumentInfo } from '../types';

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

beforeEach(() => {
  installMockEventStream();
});

describe('RAGDatabasePage', () => {
  it('shows totals and the document list', async () => {
    mockFetch({
      'GET /api/v1/documents': () =>
        jsonResponse(
          listBody([
            makeDocument({ document_id: 'a', filename: 'a.pdf', chunk_count: 10 }),
            makeDocument({ document_id: 'b', filename: 'b.docx', file_type: 'docx', chunk_count: 5 }),
          ]),
        ),
    });
    renderWithProviders(<RAGDatabasePage />);
    expect(await screen.findByLabelText('Documents: 2')).toBeInTheDocument();
    expect(screen.getByLabelText('Chunks: 15')).toBeInTheDocument();
    expect(screen.getByRole('article', { name: 'a.pdf' })).toBeInTheDocument();
    expect(screen.getByRole('article', { name: 'b.docx' })).toBeInTheDocument();
  });

  it('shows each document record sent over SSE', async () => {
    const processing = makeDocument({
      document_id: 'doc-9',
      filename: '基礎設施.pdf',
      status: 'processing',
      stage: 'parsing',
      pages_done: 0,
      pages_total: 27,
      chunk_count: 0,
      page_count: null,
      updated_at: '2026-05-16T10:00:00Z',
    });
    mockFetch({ 'GET /api/v1/documents': () => jsonResponse(listBody([processing])) });
    renderWithProviders(<RAGDatabasePage />);

    const row = await screen.findByRole('article', { name: '基礎設施.pdf' });
    const source = MockEventStream.latest();
    expect(source.url).toBe('/api/v1/events');
    act(() => source.open());
    expect(await screen.findByText('Live updates on')).toBeInTheDocument();

    expect(within(row).getByTestId('progress-stage')).toHaveTextContent('Parsing · 0 / 27 pages');

    const embedding = {
      ...processing,
      stage: 'embedding',
      pages_done: 9,
      chunk_count: 6,
      page_count: 27,
      updated_at: '2026-05-16T10:00:02Z',
    };
    act(() => source.emit('document', embedding));
    await waitFor(() =>
      expect(within(row).getByTestId('progress-stage')).toHaveTextContent('Embedding · 9 / 27 pages'),
    );
    const bar = within(row).getByRole('progressbar');
    expect(bar).toHaveAttribute('aria-valuenow', '33');
    expect(within(row).getByText('6 chunks')).toBeInTheDocument();
    expect(within(row).getByText('27 pages')).toBeInTheDocument();
    expect(screen.getByLabelText('Chunks: 6')).toBeInTheDocument();

    // A record older than the one shown (e.g. the list was fetched after it was sent) is ignored.
    act(() =>
      source.emit('document', { ...processing, pages_done: 1, updated_at: '2026-05-16T10:00:01Z' }),
    );
    expect(within(row).getByTestId('progress-stage')).toHaveTextContent('Embedding · 9 / 27 pages');

    // While embedding the backend may count chunks instead of pages.
    act(() =>
      source.emit('document', {
        ...embedding,
        pages_done: 3,
        pages_total: 12,
        unit: 'chunks',
        updated_at: '2026-05-16T10:00:03Z',
      }),
    );
    await waitFor(() =>
      expect(within(row).getByTestId('progress-stage')).toHaveTextContent('Embedding · 3 / 12 chunks'),
    );
    expect(within(row).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '25');

    act(() =>
      source.emit('document', {
        ...embedding,
        status: 'failed',
        stage: 'failed',
        chunk_count: 0,
        error: 'Embedding service unavailable',
        warnings: ['Page 4 had no extractable text'],
        updated_at: '2026-05-16T10:00:04Z',
      }),
    );
    expect(await within(row).findByText('Embedding service unavailable')).toBeInTheDocument();
    expect(within(row).getByText('Page 4 had no extractable text')).toBeInTheDocument();
    expect(within(row).queryByRole('progressbar')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Chunks: 0')).toBeInTheDocument();
  });

  it('uploads the dropped files with the chosen strategy and shows replacements', async () => {
    const user = userEvent.setup();
    let documents = [makeDocument({ document_id: 'old', filename: 'paper.pdf' })];
    const uploads: { url: string; file: File }[] = [];
    const fetchSpy = mockFetch({
      'GET /api/v1/documents': () => jsonResponse(listBody(documents)),
      'POST /api/v1/ingest': (url, init) => {
        const file = (init?.body as FormData).get('file') as File;
        uploads.push({ url, file });
        const id = `new-${uploads.length}`;
        const replaced = documents.filter((d) => d.filename === file.name).map((d) => d.document_id);
        documents = [
          ...documents.filter((d) => d.filename !== file.name),
          makeDocument({
            document_id: id,
            filename: file.name,
            strategy: 'question',
            status: 'queued',
            stage: 'uploaded',
            chunk_count: 0,
            upload_date: '2026-05-16T00:00:00Z',
          }),
        ];
        return jsonResponse({ document_id: id, filename: file.name, strategy: 'question', status: 'queued', replaced }, 202);
      },
    });
    renderWithProviders(<RAGDatabasePage />);
    await screen.findByRole('article', { name: 'paper.pdf' });

    const uploadButton = screen.getByRole('button', { name: 'Upload' });
    expect(uploadButton).toBeDisabled();

    await user.click(screen.getByRole('radio', { name: /chunk by question/i }));
    expect(screen.getByRole('radio', { name: /chunk by question/i })).toBeChecked();

    const input = document.querySelector('input[type="file"]') as HTMLInputElement;
    const paper = new File(['%PDF-1.4 same name'], 'paper.pdf', { type: 'application/pdf' });
    const notes = new File(['會議紀要'], 'notes.txt', { type: 'text/plain' });
    await user.upload(input, [paper, notes]);

    const pending = screen.getByRole('list', { name: 'Files ready to upload' });
    expect(within(pending).getAllByRole('listitem')).toHaveLength(2);
    // A file with the name of an existing document is flagged before upload.
    const paperItem = within(pending).getByText('paper.pdf').closest('[role="listitem"]') as HTMLElement;
    expect(await within(paperItem).findByText('Replaces existing document')).toBeInTheDocument();
    const notesItem = within(pending).getByText('notes.txt').closest('[role="listitem"]') as HTMLElement;
    expect(within(notesItem).queryByText('Replaces existing document')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Upload 2 files' }));

    await waitFor(() => expect(uploads).toHaveLength(2));
    expect(uploads.map((u) => u.url)).toEqual([
      '/api/v1/ingest?strategy=question',
      '/api/v1/ingest?strategy=question',
    ]);
    expect(uploads.map((u) => u.file.name)).toEqual(['paper.pdf', 'notes.txt']);
    expect(fetchSpy.mock.calls.filter(([, init]) => init?.method === 'POST')).toHaveLength(2);

    expect(await screen.findByText(/Replaces the previous upload of paper\.pdf/)).toBeInTheDocument();
    const newRow = await screen.findByRole('article', { name: 'paper.pdf' });
    await waitFor(() => expect(within(newRow).getByText('Replaced previous upload')).toBeInTheDocument());
    expect(within(newRow).getByText('Chunked by question')).toBeInTheDocument();
    expect(screen.queryByRole('list', { name: 'Files ready to upload' })).not.toBeInTheDocument();
  });

  it('filters the file picker by the extensions the gateway accepts', async () => {
    mockFetch({
      'GET /api/v1/documents': () => jsonResponse(listBody([])),
      'GET /api/v1/config': () =>
        jsonResponse({ accepted_extensions: ['.pdf', '.txt'], strategies: ['token'], max_upload_bytes: 1024 }),
    });
    renderWithProviders(<RAGDatabasePage />);
    expect(await screen.findByText('PDF or TXT · Chinese or English · several files at once')).toBeInTheDocument();
    const input = document.querySelector('input[type="file"]') as HTMLInputElement;
    expect(input.accept.split(',')).toEqual(['application/pdf', '.pdf', 'text/plain', '.txt']);
    expect(screen.getByRole('presentation', { name: /drop pdf or txt files here/i })).toBeInTheDocument();
  });

  it('shows the API error when an upload is rejected', async () => {
    const user = userEvent.setup();
    mockFetch({
      'GET /api/v1/documents': () => jsonResponse(listBody([])),
      'POST /api/v1/ingest': () => jsonResponse({ detail: 'Unsupported file type: .rtf' }, 400),
    });
    renderWithProviders(<RAGDatabasePage />);
    await screen.findByText(/no documents yet/i);
    const input = document.querySelector('input[type="file"]') as HTMLInputElement;
    await user.upload(input, new File(['x'], 'a.txt', { type: 'text/plain' }));
    await user.click(screen.getByRole('button', { name: 'Upload' }));
    expect(await screen.findByText('Unsupported file type: .rtf')).toBeInTheDocument();
    // The failed file stays queued so it can be retried.
    expect(within(screen.getByRole('list', { name: 'Files ready to upload' })).getByText('a.txt')).toBeInTheDocument();
  });

  it('gives the focus to "Choose files…" after an upload sent with the keyboard', async () => {
    // "Upload" is disabled while it works (a browser then drops the focus to the page): the focus
    // must not be lost when it is done.
    const user = userEvent.setup();
    mockFetch({
      'GET /api/v1/documents': () => jsonResponse(listBody([])),
      'POST /api/v1/ingest': () =>
        jsonResponse({ document_id: 'new-1', filename: 'a.txt', strategy: 'token', status: 'queued', replaced: [] }, 202),
    });
    renderWithProviders(<RAGDatabasePage />);
    await screen.findByText(/no documents yet/i);
    const input = document.querySelector('input[type="file"]') as HTMLInputElement;
    await user.upload(input, new File(['x'], 'a.txt', { type: 'text/plain' }));
    const upload = screen.getByRole('button', { name: 'Upload' });
    upload.focus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(screen.queryByRole('list', { name: 'Files ready to upload' })).not.toBeInTheDocument());
    await waitFor(() => expect(screen.getByRole('button', { name: 'Choose files…' })).toHaveFocus());
  });

  it('asks for confirmation before deleting a document', async () => {
    const user = userEvent.setup();
    let documents = [makeDocument({ document_id: 'doc-1', filename: 'report.pdf', chunk_count: 4 })];
    const fetchSpy = mockFetch({
      'GET /api/v1/documents': () => jsonResponse(listBody(documents)),
      'DELETE /api/v1/documents/doc-1': () => {
        documents = [];
        return jsonResponse({ deleted: true, message: 'Deleted report.pdf' });
      },
    });
    renderWithProviders(<RAGDatabasePage />);
    const deleteButton = await screen.findByRole('button', { name: 'Delete document report.pdf' });

    // Cancelling leaves the document alone.
    await user.click(deleteButton);
    let dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/all 4 of its chunks will be removed/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(fetchSpy.mock.calls.some(([, init]) => init?.method === 'DELETE')).toBe(false);

    // Confirming deletes it.
    await user.click(deleteButton);
    dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() =>
      expect(fetchSpy).toHaveBeenCalledWith('/api/v1/documents/doc-1', expect.objectContaining({ method: 'DELETE' })),
    );
    await waitFor(() => expect(screen.queryByRole('article', { name: 'report.pdf' })).not.toBeInTheDocument());
    expect(screen.getByLabelText('Documents: 0')).toBeInTheDocument();
  });

  it('expands a document to show its chunks', async () => {
    const user = userEvent.setup();
    mockFetch({
      'GET /api/v1/documents': () =>
        jsonResponse(listBody([makeDocument({ document_id: 'doc-1', filename: 'report.pdf', chunk_count: 1 })])),
      'GET /api/v1/documents/doc-1/chunks': () =>
        jsonResponse({
          document_id: 'doc-1',
          chunks: [
            {
              chunk_id: 'doc-1_0',
              chunk_index: 0,
              text: 'Page one text',
              content_summary: 'Page one',
              page_number: 1,
              pdf_url: '/api/v1/documents/doc-1/pages/1.pdf',
              strategy_type: 'token',
            },
          ],
        }),
    });
    renderWithProviders(<RAGDatabasePage />);
    const toggle = await screen.findByRole('button', { name: 'Show chunks of report.pdf' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(await screen.findByRole('article', { name: 'Page 1' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Hide chunks of report.pdf' })).toHaveAttribute('aria-expanded', 'true');
  });
});

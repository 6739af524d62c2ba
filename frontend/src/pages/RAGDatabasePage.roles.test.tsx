import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { RAGDatabasePage } from './RAGDatabasePage';
import {
  ADMIN,
  MEMBER,
  READER,
  installMockEventStream,
  jsonResponse,
  makeDocument,
  makeTokenChunk,
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

const OWN = makeDocument({ document_id: 'own', filename: 'own.pdf', department: 'default' });
const SHARED = makeDocument({ document_id: 'shared', filename: 'council.pdf', department: 'ops', visibility: 'shared' });
const OTHER = makeDocument({ document_id: 'other', filename: 'other.pdf', department: 'hab' });

beforeEach(() => installMockEventStream());

describe('RAG Database by role', () => {
  it('a reader sees the documents but no upload and no delete controls', async () => {
    const user = userEvent.setup();
    mockFetch({
      'GET /api/v1/documents': () => jsonResponse(listBody([OWN, SHARED])),
      'GET /api/v1/documents/own/chunks': () => jsonResponse({ document_id: 'own', chunks: [makeTokenChunk({ document_id: 'own' })] }),
    });
    renderWithProviders(<RAGDatabasePage />, { caller: READER });
    const row = await screen.findByRole('article', { name: 'own.pdf' });
    expect(screen.getByRole('article', { name: 'council.pdf' })).toBeInTheDocument();

    expect(screen.queryByRole('heading', { name: 'Upload documents' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Choose files…' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Upload/ })).not.toBeInTheDocument();
    expect(document.querySelector('input[type="file"]')).toBeNull();
    expect(screen.getByText('Read-only access')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Delete/ })).not.toBeInTheDocument();
    // No department filter for a reader.
    expect(screen.queryByRole('combobox', { name: /^Show department/ })).not.toBeInTheDocument();

    await user.click(within(row).getByRole('button', { name: 'Show chunks of own.pdf' }));
    expect(await within(row).findByRole('article', { name: 'Page 3' })).toBeInTheDocument();
    expect(within(row).queryByRole('button', { name: /^Delete chunk/ })).not.toBeInTheDocument();
  });

  it('a member deletes in its own department but not the shared library', async () => {
    mockFetch({ 'GET /api/v1/documents': () => jsonResponse(listBody([OWN, SHARED])) });
    renderWithProviders(<RAGDatabasePage />, { caller: MEMBER });
    const own = await screen.findByRole('article', { name: 'own.pdf' });
    const shared = screen.getByRole('article', { name: 'council.pdf' });
    expect(within(own).getByRole('button', { name: 'Delete document own.pdf' })).toBeInTheDocument();
    expect(within(shared).queryByRole('button', { name: /^Delete/ })).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Upload documents' })).toBeInTheDocument();
    // Documents say their department, or "Shared".
    expect(within(own).getByTestId('scope-badge')).toHaveTextContent('Department: default');
    expect(within(shared).getByTestId('scope-badge')).toHaveTextContent(/^Shared$/);
    // A member has no department field and no shared-library choice.
    expect(screen.queryByRole('combobox', { name: /^Upload to department/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('checkbox', { name: /Shared library/ })).not.toBeInTheDocument();
  });

  it('an admin filters by department: its documents and the shared library', async () => {
    const user = userEvent.setup();
    const spy = mockFetch({
      'GET /api/v1/documents': (url) => {
        const department = new URL(url, 'http://x').searchParams.get('department');
        const all = [OWN, SHARED, OTHER];
        return jsonResponse(
          listBody(department ? all.filter((d) => d.department === department || d.visibility === 'shared') : all),
        );
      },
    });
    renderWithProviders(<RAGDatabasePage />, { caller: ADMIN });
    await screen.findByRole('article', { name: 'other.pdf' });
    // Every document can be deleted by an admin, shared ones included.
    for (const name of ['own.pdf', 'council.pdf', 'other.pdf']) {
      expect(within(screen.getByRole('article', { name })).getByRole('button', { name: `Delete document ${name}` }))
        .toBeInTheDocument();
    }
    const filter = screen.getByRole('combobox', { name: /^Show department/ });
    const options = () => within(filter).getAllByRole('option').map((o) => o.textContent);
    // Departments seen in the list (and the admin's own), not the shared document's owner unless
    // seen otherwise. They are gathered after the list renders (an effect), so wait for them: a
    // loaded CI machine read the options between the two renders once.
    await waitFor(() => expect(options()).toEqual(['All departments', 'default', 'hab', 'ops']));

    await user.selectOptions(filter, 'hab');
    await waitFor(() => expect(screen.queryByRole('article', { name: 'own.pdf' })).not.toBeInTheDocument());
    expect(screen.getByRole('article', { name: 'other.pdf' })).toBeInTheDocument();
    expect(screen.getByRole('article', { name: 'council.pdf' })).toBeInTheDocument();
    expect(spy.mock.calls.map(([url]) => new URL(String(url), 'http://x').searchParams.get('department'))).toContain('hab');
    // The options stay while filtered.
    expect(within(filter).getAllByRole('option')).toHaveLength(4);

    await user.selectOptions(filter, 'All departments');
    expect(await screen.findByRole('article', { name: 'own.pdf' })).toBeInTheDocument();
  });

  it("an admin's upload names the department and may go to the shared library", async () => {
    const user = userEvent.setup();
    const uploads: string[] = [];
    mockFetch({
      'GET /api/v1/documents': () => jsonResponse(listBody([OTHER])),
      'POST /api/v1/ingest': (url) => {
        uploads.push(url);
        return jsonResponse({ document_id: `n${uploads.length}`, filename: 'a.pdf', strategy: 'token', status: 'queued', replaced: [] }, 202);
      },
    });
    renderWithProviders(<RAGDatabasePage />, { caller: ADMIN });
    await screen.findByRole('article', { name: 'other.pdf' });
    const department = screen.getByRole('combobox', { name: /^Upload to department/ });
    expect(department).toHaveValue('ops');
    const shared = screen.getByRole('checkbox', { name: /Shared library/ });
    expect(shared).not.toBeChecked();

    const input = document.querySelector('input[type="file"]') as HTMLInputElement;
    await user.clear(department);
    await user.type(department, 'hab');
    await user.upload(input, new File(['%PDF'], 'other.pdf', { type: 'application/pdf' }));
    // Same name in the department it goes to: flagged.
    expect(await within(screen.getByRole('list', { name: 'Files ready to upload' })).findByText('Replaces existing document'))
      .toBeInTheDocument();
    await user.click(shared);
    // The shared library is another scope: nothing there to replace.
    expect(within(screen.getByRole('list', { name: 'Files ready to upload' })).queryByText('Replaces existing document'))
      .not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Upload' }));
    await waitFor(() => expect(uploads).toEqual(['/api/v1/ingest?strategy=token&department=hab&visibility=shared']));
  });
});

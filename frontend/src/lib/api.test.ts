import { describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  createKey,
  deleteChunk,
  deleteDocument,
  ingestDocument,
  listDocuments,
  listKeys,
  queryDocuments,
  revokeKey,
  whoami,
} from './api';
import { onKeyRejected, storeKey } from './auth';
import { errorText } from './errors';
import { jsonResponse, mockFetch } from '../test/utils';

const KEY = 'lgk_0a1b2c3d_sessionSecretSessionSecretSess';

function authOf(init: RequestInit | undefined): string | undefined {
  return (init?.headers as Record<string, string> | undefined)?.Authorization;
}

describe('api key on requests', () => {
  it('sends the session key as a Bearer header on every call, never in the URL', async () => {
    storeKey(KEY);
    const spy = mockFetch({
      'GET /api/v1/documents': () => jsonResponse({ documents: [], total_documents: 0, total_chunks: 0 }),
      'POST /api/v1/ingest': () => jsonResponse({ document_id: 'd', filename: 'a.txt', strategy: 'token', status: 'queued', replaced: [] }, 202),
      'POST /api/v1/query': () => jsonResponse({ answer: '', sources: [] }),
      'DELETE /api/v1/documents/d': () => jsonResponse({ deleted: true }),
      'DELETE /api/v1/chunks/d_0': () => jsonResponse({ deleted: true }),
      'GET /api/v1/keys': () => jsonResponse({ keys: [] }),
      'POST /api/v1/keys': () => jsonResponse({ key: 'lgk_x_y', key_prefix: 'x', department: 'a', role: 'reader', created_at: '' }),
      'DELETE /api/v1/keys/x': () => jsonResponse({ revoked: true, key_prefix: 'x' }),
    });
    await listDocuments();
    await ingestDocument(new File(['x'], 'a.txt'), 'token');
    await queryDocuments({ question: 'q' });
    await deleteDocument('d');
    await deleteChunk('d_0');
    await listKeys();
    await createKey({ department: 'a', role: 'reader' });
    await revokeKey('x');
    expect(spy).toHaveBeenCalledTimes(8);
    for (const [url, init] of spy.mock.calls) {
      expect(authOf(init)).toBe(`Bearer ${KEY}`);
      expect(String(url)).not.toContain(KEY);
      expect(init?.credentials).toBeUndefined();
    }
  });

  it('asks who a key is with that key, and a 401 then does not sign the session out', async () => {
    storeKey(KEY);
    const rejected = vi.fn();
    const stop = onKeyRejected(rejected);
    const spy = mockFetch({ 'GET /api/v1/whoami': () => jsonResponse({ detail: 'Invalid API key' }, 401) });
    await expect(whoami('lgk_typed_wrong')).rejects.toMatchObject({ status: 401 });
    expect(authOf(spy.mock.calls[0][1])).toBe('Bearer lgk_typed_wrong');
    expect(rejected).not.toHaveBeenCalled();
    stop();
  });

  it('signals a 401 of the session key, not one answered to an earlier key', async () => {
    const rejected = vi.fn();
    const stop = onKeyRejected(rejected);
    storeKey(KEY);
    let answer!: (r: Response) => void;
    mockFetch({ 'GET /api/v1/documents': () => new Promise<Response>((resolve) => (answer = resolve)) });
    const late = listDocuments();
    storeKey('lgk_99999999_nextSession');
    answer(jsonResponse({ detail: 'revoked' }, 401));
    await expect(late).rejects.toBeInstanceOf(ApiError);
    expect(rejected).not.toHaveBeenCalled();

    mockFetch({ 'GET /api/v1/documents': () => jsonResponse({ detail: 'revoked' }, 401) });
    await expect(listDocuments()).rejects.toMatchObject({ status: 401, detail: 'revoked' });
    expect(rejected).toHaveBeenCalledTimes(1);
    stop();
  });

  it('names the department filter and the upload target in the query string', async () => {
    storeKey(KEY);
    const spy = mockFetch({
      'GET /api/v1/documents': () => jsonResponse({ documents: [], total_documents: 0, total_chunks: 0 }),
      'POST /api/v1/ingest': () => jsonResponse({ document_id: 'd', filename: 'a.pdf', strategy: 'question', status: 'queued', replaced: [] }, 202),
    });
    await listDocuments('環境局');
    await listDocuments(null);
    await listDocuments('hab', new URLSearchParams('q=排水&status=queued&status=failed&page=2'));
    await ingestDocument(new File(['x'], 'a.pdf'), 'question', { department: ' legco ', shared: true });
    await ingestDocument(new File(['x'], 'a.pdf'), 'question', { department: 'hab', shared: false });
    expect(spy.mock.calls.map(([url]) => url)).toEqual([
      `/api/v1/documents?department=${encodeURIComponent('環境局')}`,
      '/api/v1/documents',
      `/api/v1/documents?department=hab&q=${encodeURIComponent('排水')}&status=queued&status=failed&page=2`,
      '/api/v1/ingest?strategy=question&department=legco&visibility=shared',
      '/api/v1/ingest?strategy=question&department=hab',
    ]);
  });

  it('explains a 403 without a detail', async () => {
    storeKey(KEY);
    mockFetch({ 'DELETE /api/v1/documents/d': () => new Response('', { status: 403 }) });
    const error = await deleteDocument('d').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 403, detail: '' });
    expect(errorText(error)).toEqual({ message: 'Your key does not allow this.', detail: null });
  });
});

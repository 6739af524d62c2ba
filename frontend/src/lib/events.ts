import { useEffect, useState } from 'react';
import { useQueryClient, type QueryClient, type QueryKey } from '@tanstack/react-query';
import { API_BASE } from './api';
import { currentKey, reportKeyRejected } from './auth';
import { listDepartment, listShows, queryKeys, removeCachedDocument } from './queries';
import { openEventStream } from './sse';
import type { DeletedNotice, DocumentInfo, DocumentListResponse } from '../types';

export const EVENTS_URL = `${API_BASE}/events`;

export type EventStreamState = 'connecting' | 'open' | 'closed' | 'unsupported';

/** Streaming response bodies (every current browser; not some embedded web views). */
function supported(): boolean {
  return typeof fetch === 'function' && typeof ReadableStream === 'function' && typeof TextDecoder === 'function';
}

/** The JSON of an SSE message if it names a document, else null (malformed messages are ignored). */
function parseData<T extends { document_id: string }>(data: string): T | null {
  try {
    const parsed = JSON.parse(data) as Partial<T> | null;
    if (!parsed || typeof parsed.document_id !== 'string') return null;
    return parsed as T;
  } catch {
    return null;
  }
}

function timeOf(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

/** True when `incoming` is older than the cached copy (the list fetched over HTTP can be ahead of the stream). */
function isOlder(incoming: DocumentInfo, cached: DocumentInfo): boolean {
  const a = timeOf(incoming.updated_at);
  const b = timeOf(cached.updated_at);
  return a !== null && b !== null && a < b;
}

/**
 * Put a document record sent by the gateway (SSE `document`) into the TanStack Query cache,
 * replacing the cached copies unless they are newer. Returns the keys of the cached lists that
 * should show the document but do not hold it yet (they need a refetch).
 */
export function applyDocumentRecord(queryClient: QueryClient, record: DocumentInfo): QueryKey[] {
  const missing: QueryKey[] = [];
  for (const [key, old] of queryClient.getQueriesData<DocumentListResponse>({ queryKey: queryKeys.documentLists })) {
    if (!old) continue;
    const index = old.documents.findIndex((d) => d.document_id === record.document_id);
    if (index < 0) {
      if (listShows(listDepartment(key), record)) missing.push(key);
      continue;
    }
    const cached = old.documents[index];
    if (isOlder(record, cached)) continue;
    const documents = old.documents.slice();
    documents[index] = record;
    const total_chunks = Math.max(0, old.total_chunks + record.chunk_count - cached.chunk_count);
    queryClient.setQueryData<DocumentListResponse>(key, { ...old, documents, total_chunks });
  }
  queryClient.setQueryData<DocumentInfo>(queryKeys.document(record.document_id), (old) =>
    old && !isOlder(record, old) ? record : old,
  );
  return missing;
}

/**
 * Subscribe to the gateway's Server-Sent Events stream (sent with the session's key): each
 * `document` event carries a whole document record, which replaces the cached one; `deleted`
 * removes a document. Reconnects when the stream drops, and refetches the lists once it is back
 * (events sent meanwhile are not replayed). A 401 signs the session out. Returns the state.
 */
export function useDocumentEvents(): EventStreamState {
  const queryClient = useQueryClient();
  const [state, setState] = useState<EventStreamState>(() => (supported() ? 'connecting' : 'unsupported'));

  useEffect(() => {
    if (!supported()) {
      setState('unsupported');
      return undefined;
    }
    let everOpened = false;

    const onDocument = (data: string) => {
      const record = parseData<DocumentInfo>(data);
      if (!record) return;
      // A document a list has not got yet (e.g. uploaded from another window).
      // A fetch already under way is kept (not restarted): a bulk upload sends many records a second.
      for (const key of applyDocumentRecord(queryClient, record)) {
        void queryClient.invalidateQueries({ queryKey: key, exact: true }, { cancelRefetch: false });
      }
      if (record.status === 'indexed' || record.status === 'failed') {
        // The record is complete; only the chunks (listed separately) changed.
        void queryClient.invalidateQueries({ queryKey: queryKeys.chunks(record.document_id) });
      }
    };
    const onDeleted = (data: string) => {
      const notice = parseData<DeletedNotice>(data);
      if (notice) removeCachedDocument(queryClient, notice.document_id);
    };

    return openEventStream(EVENTS_URL, {
      key: currentKey,
      onStatus: (status) => {
        setState(status);
        if (status !== 'open') return;
        // After a reconnect we may have missed events: resynchronise once.
        if (everOpened) void queryClient.invalidateQueries({ queryKey: queryKeys.documents });
        everOpened = true;
      },
      onMessage: (message) => {
        if (message.event === 'document') onDocument(message.data);
        else if (message.event === 'deleted') onDeleted(message.data);
      },
      onUnauthorized: (keySent) => {
        setState('closed');
        reportKeyRejected(keySent);
      },
    });
  }, [queryClient]);

  return state;
}

import { useEffect, useState } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { API_BASE } from './api';
import { queryKeys, removeCachedDocument } from './queries';
import type { DeletedNotice, DocumentInfo, DocumentListResponse } from '../types';

export const EVENTS_URL = `${API_BASE}/events`;

export type EventStreamState = 'connecting' | 'open' | 'closed' | 'unsupported';

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
 * replacing the cached copy unless that one is newer. Returns true when the document was in the
 * cached list.
 */
export function applyDocumentRecord(queryClient: QueryClient, record: DocumentInfo): boolean {
  let found = false;
  queryClient.setQueryData<DocumentListResponse>(queryKeys.documents, (old) => {
    if (!old) return old;
    const index = old.documents.findIndex((d) => d.document_id === record.document_id);
    if (index < 0) return old;
    found = true;
    const cached = old.documents[index];
    if (isOlder(record, cached)) return old;
    const documents = old.documents.slice();
    documents[index] = record;
    const total_chunks = Math.max(0, old.total_chunks + record.chunk_count - cached.chunk_count);
    return { ...old, documents, total_chunks };
  });
  queryClient.setQueryData<DocumentInfo>(queryKeys.document(record.document_id), (old) =>
    old && !isOlder(record, old) ? record : old,
  );
  return found;
}

/**
 * Subscribe to the gateway's Server-Sent Events stream: each `document` event carries a whole
 * document record, which replaces the cached one; `deleted` removes a document. Returns the
 * connection state.
 */
export function useDocumentEvents(): EventStreamState {
  const queryClient = useQueryClient();
  const [state, setState] = useState<EventStreamState>(() =>
    typeof EventSource === 'undefined' ? 'unsupported' : 'connecting',
  );

  useEffect(() => {
    if (typeof EventSource === 'undefined') {
      setState('unsupported');
      return undefined;
    }
    const source = new EventSource(EVENTS_URL);
    let everOpened = false;

    const onOpen = () => {
      setState('open');
      // After a reconnect we may have missed events: resynchronise once.
      if (everOpened) void queryClient.invalidateQueries({ queryKey: queryKeys.documents });
      everOpened = true;
    };
    const onError = () => {
      setState(source.readyState === EventSource.CLOSED ? 'closed' : 'connecting');
    };
    const onDocument = (message: MessageEvent<string>) => {
      const record = parseData<DocumentInfo>(message.data);
      if (!record) return;
      const found = applyDocumentRecord(queryClient, record);
      if (!found) {
        // A document we have not listed yet (e.g. uploaded from another window).
        void queryClient.invalidateQueries({ queryKey: queryKeys.documents });
      }
      if (record.status === 'indexed' || record.status === 'failed') {
        // The record is complete; only the chunks (listed separately) changed.
        void queryClient.invalidateQueries({ queryKey: queryKeys.chunks(record.document_id) });
      }
    };
    const onDeleted = (message: MessageEvent<string>) => {
      const notice = parseData<DeletedNotice>(message.data);
      if (notice) removeCachedDocument(queryClient, notice.document_id);
    };

    source.addEventListener('open', onOpen);
    source.addEventListener('error', onError);
    source.addEventListener('document', onDocument as EventListener);
    source.addEventListener('deleted', onDeleted as EventListener);
    return () => {
      source.removeEventListener('open', onOpen);
      source.removeEventListener('error', onError);
      source.removeEventListener('document', onDocument as EventListener);
      source.removeEventListener('deleted', onDeleted as EventListener);
      source.close();
    };
  }, [queryClient]);

  return state;
}

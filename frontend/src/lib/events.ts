import { useEffect, useRef, useState } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { API_BASE } from './api';
import { queryKeys } from './queries';
import type { DocumentInfo, DocumentListResponse, ProgressEvent } from '../types';

export const EVENTS_URL = `${API_BASE}/events`;

export type EventStreamState = 'connecting' | 'open' | 'closed' | 'unsupported';

function parseProgress(data: string): ProgressEvent | null {
  try {
    const parsed = JSON.parse(data) as Partial<ProgressEvent>;
    if (!parsed || typeof parsed.document_id !== 'string') return null;
    return parsed as ProgressEvent;
  } catch {
    return null;
  }
}

function tsValue(ts: ProgressEvent['ts'] | undefined): number | null {
  if (ts === undefined || ts === null) return null;
  if (typeof ts === 'number') return ts;
  const asNumber = Number(ts);
  if (!Number.isNaN(asNumber)) return asNumber;
  const asDate = Date.parse(ts);
  return Number.isNaN(asDate) ? null : asDate;
}

function mergeDocument(doc: DocumentInfo, event: ProgressEvent): DocumentInfo {
  return {
    ...doc,
    filename: event.filename ?? doc.filename,
    stage: event.stage ?? doc.stage,
    status: event.status ?? doc.status,
    pages_done: event.pages_done ?? doc.pages_done,
    pages_total: event.pages_total ?? doc.pages_total,
    unit: event.unit ?? doc.unit,
    chunk_count: event.chunk_count ?? doc.chunk_count,
    error: event.error !== undefined ? event.error : doc.error,
    warnings: event.warnings ?? doc.warnings,
  };
}

/**
 * Merge one progress event into the TanStack Query cache.
 * Returns true when the document was found in the cached list.
 */
export function applyProgressEvent(queryClient: QueryClient, event: ProgressEvent): boolean {
  let found = false;
  queryClient.setQueryData<DocumentListResponse>(queryKeys.documents, (old) => {
    if (!old) return old;
    let chunkDelta = 0;
    const documents = old.documents.map((doc) => {
      if (doc.document_id !== event.document_id) return doc;
      found = true;
      const merged = mergeDocument(doc, event);
      chunkDelta = merged.chunk_count - doc.chunk_count;
      return merged;
    });
    if (!found) return old;
    return { ...old, documents, total_chunks: Math.max(0, old.total_chunks + chunkDelta) };
  });
  queryClient.setQueryData<DocumentInfo>(queryKeys.document(event.document_id), (old) =>
    old ? mergeDocument(old, event) : old,
  );
  return found;
}

/**
 * Subscribe to the backend's Server-Sent Events stream and merge `progress`
 * events into the documents query cache. Returns the connection state.
 */
export function useDocumentEvents(): EventStreamState {
  const queryClient = useQueryClient();
  const [state, setState] = useState<EventStreamState>(() =>
    typeof EventSource === 'undefined' ? 'unsupported' : 'connecting',
  );
  const lastTs = useRef(new Map<string, number>());

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
    const onProgress = (message: MessageEvent<string>) => {
      const event = parseProgress(message.data);
      if (!event) return;
      const ts = tsValue(event.ts);
      if (ts !== null) {
        const previous = lastTs.current.get(event.document_id);
        if (previous !== undefined && ts < previous) return; // stale, out of order
        lastTs.current.set(event.document_id, ts);
      }
      const found = applyProgressEvent(queryClient, event);
      if (!found) {
        // A document we have not listed yet (e.g. uploaded from another window).
        void queryClient.invalidateQueries({ queryKey: queryKeys.documents });
      }
      if (event.status === 'indexed' || event.status === 'failed') {
        void queryClient.invalidateQueries({ queryKey: queryKeys.chunks(event.document_id) });
        void queryClient.invalidateQueries({ queryKey: queryKeys.documents });
      }
    };

    source.addEventListener('open', onOpen);
    source.addEventListener('error', onError);
    source.addEventListener('progress', onProgress as EventListener);
    return () => {
      source.removeEventListener('open', onOpen);
      source.removeEventListener('error', onError);
      source.removeEventListener('progress', onProgress as EventListener);
      source.close();
    };
  }, [queryClient]);

  return state;
}

import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  deleteChunk,
  deleteDocument,
  getConfig,
  getDocument,
  ingestDocument,
  listChunks,
  listDocuments,
  queryDocuments,
} from './api';
import type { ChunkingStrategy, ChunkListResponse, DocumentListResponse, QueryRequest } from '../types';

export const queryKeys = {
  config: ['config'] as const,
  documents: ['documents'] as const,
  document: (id: string) => ['documents', 'detail', id] as const,
  chunks: (id: string) => ['chunks', id] as const,
};

/** Drop a deleted document from the cached list (and its totals) and forget its chunks. */
export function removeCachedDocument(queryClient: QueryClient, documentId: string): void {
  queryClient.setQueryData<DocumentListResponse>(queryKeys.documents, (old) => {
    const removed = old?.documents.find((d) => d.document_id === documentId);
    if (!old || !removed) return old;
    return {
      documents: old.documents.filter((d) => d.document_id !== documentId),
      total_documents: Math.max(0, old.total_documents - 1),
      total_chunks: Math.max(0, old.total_chunks - removed.chunk_count),
    };
  });
  queryClient.removeQueries({ queryKey: queryKeys.chunks(documentId) });
}

/**
 * The document list. With `pollWhileProcessing`, it is refetched every 5 s
 * while any document is queued or processing (used when the SSE stream is down).
 */
export function useDocuments(options?: { pollWhileProcessing?: boolean }) {
  const poll = options?.pollWhileProcessing ?? false;
  return useQuery({
    queryKey: queryKeys.documents,
    queryFn: listDocuments,
    refetchInterval: (query) => {
      if (!poll) return false;
      const busy = query.state.data?.documents.some((d) => d.status === 'queued' || d.status === 'processing');
      return busy ? 5000 : false;
    },
  });
}

/** The gateway's upload rules; read once per page load (they change only with a redeploy). */
export function useApiConfig() {
  return useQuery({ queryKey: queryKeys.config, queryFn: getConfig, staleTime: Infinity });
}

export function useDocument(documentId: string | null) {
  return useQuery({
    queryKey: queryKeys.document(documentId ?? ''),
    queryFn: () => getDocument(documentId as string),
    enabled: Boolean(documentId),
  });
}

export function useChunks(documentId: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.chunks(documentId),
    queryFn: () => listChunks(documentId),
    enabled,
  });
}

export function useIngestDocument() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ file, strategy }: { file: File; strategy: ChunkingStrategy }) => ingestDocument(file, strategy),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.documents }),
  });
}

export function useDeleteDocument() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (documentId: string) => deleteDocument(documentId),
    onSuccess: (_result, documentId) => {
      removeCachedDocument(queryClient, documentId);
      return queryClient.invalidateQueries({ queryKey: queryKeys.documents });
    },
  });
}

export function useDeleteChunk(documentId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (chunkId: string) => deleteChunk(chunkId),
    onSuccess: (_result, chunkId) => {
      queryClient.setQueryData<ChunkListResponse>(queryKeys.chunks(documentId), (old) =>
        old ? { ...old, chunks: old.chunks.filter((c) => c.chunk_id !== chunkId) } : old,
      );
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.chunks(documentId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.documents }),
      ]);
    },
  });
}

export function useAskQuestion() {
  return useMutation({
    mutationFn: (body: QueryRequest) => queryDocuments(body),
  });
}

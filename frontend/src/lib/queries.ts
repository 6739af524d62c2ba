import {
  keepPreviousData,
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import {
  createKey,
  deleteChunk,
  deleteDocument,
  getConfig,
  getDocument,
  getPanelSeries,
  ingestDocument,
  listChunks,
  listDocuments,
  listDeadLetters,
  listKeys,
  listOpsPanels,
  streamQuery,
  replayDeadLetters,
  revokeKey,
  type QueryOptions,
  type StreamCallbacks,
  type UploadTarget,
} from './api';
import type {
  ChunkingStrategy,
  ChunkListResponse,
  DocumentInfo,
  DocumentListResponse,
  KeyCreateRequest,
  QueryRequest,
} from '../types';

/** The list of every department the caller sees (an admin's list without a department filter). */
const ALL = '*';

export const queryKeys = {
  config: ['config'] as const,
  /** Prefix of every document query: lists and single records. */
  documents: ['documents'] as const,
  /** Prefix of every document list (one per department filter). */
  documentLists: ['documents', 'list'] as const,
  /** The list for `department` (admin filter), or of everything the caller sees. */
  documentList: (department?: string | null) => ['documents', 'list', department || ALL] as const,
  /** One page of the list for `department` with the listing parameters `params` (a query string). */
  documentPage: (department: string | null, params: string) => ['documents', 'list', department || ALL, params] as const,
  /** The documents whose filename or text holds `filename` (the upload's replacement check). */
  namedDocuments: (filename: string) => ['documents', 'named', filename] as const,
  document: (id: string) => ['documents', 'detail', id] as const,
  chunks: (id: string) => ['chunks', id] as const,
  keys: ['keys'] as const,
  opsPanels: ['operations', 'panels'] as const,
  /** One panel's series over one range (seconds) at one step. */
  panelSeries: (panelId: string, rangeS: number, stepS: number) =>
    ['operations', 'series', panelId, rangeS, stepS] as const,
  deadLetters: ['operations', 'deadletters'] as const,
};

/** How often the Operations page asks again (ms): Prometheus scrapes every 5 s. */
export const OPS_REFRESH_MS = 15_000;

/** The department filter of a document list's query key (null: no filter). */
export function listDepartment(key: readonly unknown[]): string | null {
  const department = key[2];
  return typeof department === 'string' && department !== ALL ? department : null;
}

/** Whether the list filtered by `department` shows `doc` (a filtered list keeps shared documents). */
export function listShows(department: string | null, doc: Pick<DocumentInfo, 'department' | 'visibility'>): boolean {
  return department === null || doc.department === department || doc.visibility === 'shared';
}

/** Drop a deleted document from the cached lists (and their totals) and forget its chunks. */
export function removeCachedDocument(queryClient: QueryClient, documentId: string): void {
  queryClient.setQueriesData<DocumentListResponse>({ queryKey: queryKeys.documentLists }, (old) => {
    const removed = old?.documents.find((d) => d.document_id === documentId);
    if (!old || !removed) return old;
    return {
      ...old,
      documents: old.documents.filter((d) => d.document_id !== documentId),
      total_documents: Math.max(0, old.total_documents - 1),
      total_chunks: Math.max(0, old.total_chunks - removed.chunk_count),
      total: Math.max(0, old.total - 1),
    };
  });
  queryClient.removeQueries({ queryKey: queryKeys.chunks(documentId) });
}

/**
 * The document list (of `department` and the shared library when an admin names one). With
 * `pollWhileProcessing`, it is refetched every 5 s while any document is queued or processing
 * (used when the SSE stream is down).
 */
export function useDocuments(options?: { pollWhileProcessing?: boolean; department?: string | null }) {
  const poll = options?.pollWhileProcessing ?? false;
  const department = options?.department || null;
  return useQuery({
    queryKey: queryKeys.documentList(department),
    queryFn: () => listDocuments(department),
    refetchInterval: (query) => {
      if (!poll) return false;
      const busy = query.state.data?.documents.some((d) => d.status === 'queued' || d.status === 'processing');
      return busy ? 5000 : false;
    },
  });
}

function anyBusy(data: DocumentListResponse | undefined): boolean {
  return Boolean(data?.documents.some((d) => d.status === 'queued' || d.status === 'processing'));
}

/**
 * One page of the document list: the server searches, filters, sorts and pages (`params`, from
 * `lib/documentFilters.ts`); `department` is an admin's department filter. While the next page
 * loads, the previous one stays shown. Polls like `useDocuments` when `pollWhileProcessing`.
 */
export function useDocumentPage(params: URLSearchParams, options?: { pollWhileProcessing?: boolean; department?: string | null }) {
  const poll = options?.pollWhileProcessing ?? false;
  const department = options?.department || null;
  const text = params.toString();
  return useQuery({
    queryKey: queryKeys.documentPage(department, text),
    queryFn: () => listDocuments(department, new URLSearchParams(text)),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (poll && anyBusy(query.state.data) ? 5000 : false),
  });
}

/**
 * For each of `filenames`, the caller's documents of exactly that name (asked from the server
 * with `?q=`, so the check does not need every document loaded).
 */
export function useSameNamedDocuments(filenames: string[]): Record<string, DocumentInfo[]> {
  const results = useQueries({
    queries: filenames.map((name) => ({
      queryKey: queryKeys.namedDocuments(name),
      queryFn: () => listDocuments(null, new URLSearchParams({ q: name, page_size: '200' })),
    })),
  });
  const out: Record<string, DocumentInfo[]> = {};
  filenames.forEach((name, i) => {
    out[name] = (results[i]?.data?.documents ?? []).filter((d) => d.filename === name);
  });
  return out;
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
    mutationFn: ({ file, strategy, target }: { file: File; strategy: ChunkingStrategy; target?: UploadTarget }) =>
      ingestDocument(file, strategy, target),
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

/** A question and what can stop it (`signal`: Cancel; `timeLimitS`: the app's limit). */
export interface AskVariables extends QueryRequest, QueryOptions, StreamCallbacks {}

/** Ask a question, streamed (`streamQuery`): the callbacks see the sources, then the answer as it is written. */
export function useAskQuestion() {
  return useMutation({
    mutationFn: ({ signal, timeLimitS, onSources, onToken, ...body }: AskVariables) =>
      streamQuery(body, { signal, timeLimitS, onSources, onToken }),
  });
}

/** Every key (admin). */
export function useKeys() {
  return useQuery({ queryKey: queryKeys.keys, queryFn: listKeys, staleTime: 0 });
}

export function useCreateKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: KeyCreateRequest) => createKey(body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.keys }),
  });
}

export function useRevokeKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (prefix: string) => revokeKey(prefix),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.keys }),
  });
}

/** The Operations page's panels (admin); they change only with the gateway. */
export function useOpsPanels() {
  return useQuery({ queryKey: queryKeys.opsPanels, queryFn: listOpsPanels, staleTime: Infinity });
}

/**
 * Every panel's series over `rangeS` seconds every `stepS` (admin), asked again every
 * `OPS_REFRESH_MS`; while a new range loads, a chart keeps what it showed.
 */
export function usePanelSeries(panelIds: string[], rangeS: number, stepS: number) {
  return useQueries({
    queries: panelIds.map((id) => ({
      queryKey: queryKeys.panelSeries(id, rangeS, stepS),
      queryFn: () => getPanelSeries(id, rangeS, stepS),
      refetchInterval: OPS_REFRESH_MS,
      staleTime: 0,
      retry: false,
      placeholderData: keepPreviousData,
    })),
  });
}

/** The dead-lettered documents (admin), asked again every `OPS_REFRESH_MS`. */
export function useDeadLetters() {
  return useQuery({
    queryKey: queryKeys.deadLetters,
    queryFn: listDeadLetters,
    refetchInterval: OPS_REFRESH_MS,
    staleTime: 0,
  });
}

/** Replay one document's latest dead letter (admin); then the list and the documents are asked again. */
export function useReplayDeadLetter() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (documentId: string) => replayDeadLetters([documentId]),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.deadLetters });
      void queryClient.invalidateQueries({ queryKey: queryKeys.documents });
    },
  });
}

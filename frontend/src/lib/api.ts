import { authHeaders, currentKey, reportKeyRejected } from './auth';
import { SseParser } from './sse';
import type {
  ApiConfig,
  Caller,
  ChunkInfo,
  ChunkingStrategy,
  ChunkListResponse,
  DeadLetterList,
  DeleteResponse,
  DocumentInfo,
  DocumentListResponse,
  IngestResponse,
  KeyCreated,
  KeyCreateRequest,
  KeyListResponse,
  KeyRevoked,
  OpsPanelList,
  OpsSeriesResponse,
  QueryRequest,
  QueryResponse,
  ReplayResponse,
} from '../types';

export const API_BASE = '/api/v1';

/**
 * An error answered by the API (non-2xx) or a failure to reach it (status 0). `detail` is the
 * gateway's own sentence (English), '' when it gave none; `lib/errors.ts` says the failure in the
 * interface language.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly detail: string;

  constructor(status: number, detail = '') {
    super(detail || (status === 0 ? 'The server could not be reached.' : `HTTP ${status}`));
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
  }

  get isNetworkError(): boolean {
    return this.status === 0;
  }
}

function detailFrom(body: unknown): string | null {
  if (body && typeof body === 'object' && 'detail' in body) {
    const detail = (body as { detail: unknown }).detail;
    if (typeof detail === 'string') return detail;
    // FastAPI validation errors: [{loc, msg, type}, ...]
    if (Array.isArray(detail)) {
      const msgs = detail
        .map((d) => (d && typeof d === 'object' && 'msg' in d ? String((d as { msg: unknown }).msg) : null))
        .filter(Boolean);
      if (msgs.length) return msgs.join('; ');
    }
  }
  return null;
}

export interface RequestOptions extends RequestInit {
  /**
   * Send this key instead of the session's, and do not sign out on 401 (checking a key typed on
   * the sign-in screen).
   */
  key?: string;
}

/**
 * `fetch` of `url` with the session's key as `Authorization: Bearer`. Throws ApiError: status 0 when
 * the server cannot be reached, else the answer's status and `detail`. A 401 also signs the
 * session out (`reportKeyRejected`), unless `options.key` was given.
 */
async function send(url: string, options: RequestOptions = {}): Promise<Response> {
  const { key: explicitKey, ...init } = options;
  const key = explicitKey ?? currentKey();
  let response: Response;
  try {
    response = await fetch(url, {
      ...init,
      headers: { Accept: 'application/json', ...authHeaders(key), ...(init.headers ?? {}) },
    });
  } catch {
    throw new ApiError(0);
  }
  if (response.ok) return response;
  const text = await response.text().catch(() => '');
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  if (response.status === 401 && explicitKey === undefined) reportKeyRejected(key);
  throw new ApiError(response.status, detailFrom(body) ?? '');
}

async function request<T>(path: string, options?: RequestOptions): Promise<T> {
  const response = await send(`${API_BASE}${path}`, options);
  const text = await response.text();
  if (!text) return null as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null as T;
  }
}

function queryString(params: Record<string, string | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) search.set(name, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The caller of the session's key, or of `key` when given (sign-in: a 401 then only rejects `key`). */
export function whoami(key?: string): Promise<Caller> {
  return request<Caller>('/whoami', { key });
}

/** What the gateway accepts for upload (extensions, strategies, size limit). */
export function getConfig(): Promise<ApiConfig> {
  return request<ApiConfig>('/config');
}

/**
 * The caller's documents; an admin may name one `department` (its documents and the shared ones).
 * `params` adds the listing's search, filters, sort and page (`lib/documentFilters.ts`).
 */
export function listDocuments(department?: string | null, params?: URLSearchParams): Promise<DocumentListResponse> {
  // The department first: `e2e/ui.e2e.mjs` waits for `/documents?department=…`.
  const search = new URLSearchParams(department ? { department } : {});
  params?.forEach((value, name) => search.append(name, value));
  const text = search.toString();
  return request<DocumentListResponse>(`/documents${text ? `?${text}` : ''}`);
}

export function getDocument(documentId: string): Promise<DocumentInfo> {
  return request<DocumentInfo>(`/documents/${encodeURIComponent(documentId)}`);
}

export function listChunks(documentId: string): Promise<ChunkListResponse> {
  return request<ChunkListResponse>(`/documents/${encodeURIComponent(documentId)}/chunks`);
}

/** One chunk by id, with its `highlights` (where it is printed on its PDF pages). */
export function getChunk(chunkId: string): Promise<ChunkInfo> {
  return request<ChunkInfo>(`/chunks/${encodeURIComponent(chunkId)}`);
}

export function deleteDocument(documentId: string): Promise<DeleteResponse> {
  return request<DeleteResponse>(`/documents/${encodeURIComponent(documentId)}`, { method: 'DELETE' });
}

export function deleteChunk(chunkId: string): Promise<DeleteResponse> {
  return request<DeleteResponse>(`/chunks/${encodeURIComponent(chunkId)}`, { method: 'DELETE' });
}

/** Where an upload goes (admin only; others upload to their key's department). */
export interface UploadTarget {
  department?: string | null;
  /** Into the shared library, readable by every department. */
  shared?: boolean;
}

export function ingestDocument(
  file: File,
  strategy: ChunkingStrategy = 'token',
  target: UploadTarget = {},
): Promise<IngestResponse> {
  const form = new FormData();
  form.append('file', file, file.name);
  const params = queryString({
    strategy,
    department: target.department?.trim() || null,
    visibility: target.shared ? 'shared' : null,
  });
  return request<IngestResponse>(`/ingest${params}`, { method: 'POST', body: form });
}

/**
 * Seconds a question may take before the app gives up on it: `VITE_QUERY_TIME_LIMIT_S` at build
 * time, 60 by default. The gateway gives up on the query service a little earlier
 * (`QUERY_FORWARD_TIMEOUT_S`, 55 s) and says why, so this limit is the backstop.
 */
export const QUERY_TIME_LIMIT_S = Number(import.meta.env.VITE_QUERY_TIME_LIMIT_S) || 60;

/** Seconds without an answer after which the app says the query service is slow (still waiting). */
export const QUERY_SLOW_NOTICE_S = 10;

/**
 * A question that did not get an answer: `cancelled` by the officer, or past its `timeout`
 * (`message` is for logs; `lib/errors.ts` says it in the interface language).
 */
export class QueryAborted extends Error {
  readonly reason: 'cancelled' | 'timeout';
  readonly limitS: number;

  constructor(reason: 'cancelled' | 'timeout', limitS: number) {
    super(
      reason === 'cancelled'
        ? 'The question was cancelled.'
        : `No answer after ${limitS} s. The query service may be busy: try again in a moment, or ask a narrower question.`,
    );
    this.name = 'QueryAborted';
    this.reason = reason;
    this.limitS = limitS;
  }
}

export interface QueryOptions {
  /** Aborting it cancels the question (QueryAborted 'cancelled'). */
  signal?: AbortSignal;
  /**
   * Give up after this many seconds without news (QueryAborted 'timeout'); default
   * QUERY_TIME_LIMIT_S. A streamed answer restarts the count at every event it receives.
   */
  timeLimitS?: number;
}

/**
 * Run `ask` (given the signal to pass to fetch and `touch`, which restarts the time limit) under
 * `options`: throws QueryAborted when the officer cancels or `timeLimitS` passes without a touch.
 */
async function withTimeLimit<T>(
  options: QueryOptions,
  ask: (signal: AbortSignal, touch: () => void) => Promise<T>,
): Promise<T> {
  const { signal, timeLimitS = QUERY_TIME_LIMIT_S } = options;
  if (signal?.aborted) throw new QueryAborted('cancelled', timeLimitS);
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeLimitS * 1000);
  };
  const cancel = () => controller.abort();
  signal?.addEventListener('abort', cancel);
  touch();
  try {
    return await ask(controller.signal, touch);
  } catch (error) {
    if (timedOut) throw new QueryAborted('timeout', timeLimitS);
    if (signal?.aborted) throw new QueryAborted('cancelled', timeLimitS);
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', cancel);
  }
}

/** Ask a question; throws ApiError for the gateway's refusals and QueryAborted when cancelled or too slow. */
export function queryDocuments(body: QueryRequest, options: QueryOptions = {}): Promise<QueryResponse> {
  return withTimeLimit(options, (signal) =>
    request<QueryResponse>('/query', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    }),
  );
}

export interface StreamCallbacks {
  /** The response as soon as its sources are known; `answer` is '' while a language model writes it. */
  onSources?: (response: QueryResponse) => void;
  /** The next piece of the generated answer, in order. */
  onToken?: (text: string) => void;
}

/**
 * Ask a question over `POST /query/stream` (Server-Sent Events): `onSources` first, then
 * `onToken` for each piece of a generated answer; resolves with the final response (the `done`
 * event, which may differ from the streamed text: the figure guard can replace it). Throws
 * ApiError for the gateway's refusals (and status 502 when the stream ends without an answer),
 * QueryAborted when cancelled or when `timeLimitS` passes without an event.
 */
export function streamQuery(
  body: QueryRequest,
  options: QueryOptions & StreamCallbacks = {},
): Promise<QueryResponse> {
  return withTimeLimit(options, async (signal, touch) => {
    const response = await send(`${API_BASE}/query/stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify(body),
      signal,
    });
    const result: { final: QueryResponse | null } = { final: null };
    const parser = new SseParser((message) => {
      touch();
      if (message.event === 'sources') options.onSources?.(JSON.parse(message.data) as QueryResponse);
      else if (message.event === 'token') options.onToken?.((JSON.parse(message.data) as { text: string }).text);
      else if (message.event === 'done') result.final = JSON.parse(message.data) as QueryResponse;
    });
    if (response.body) {
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.push(decoder.decode(value, { stream: true }));
        }
      } catch (error) {
        if (signal.aborted) throw error;
        throw new ApiError(0); // the connection broke mid-answer
      }
      parser.push(decoder.decode() + '\n\n');
    }
    if (result.final === null) throw new ApiError(502, 'The answer was cut off before it was complete; try again.');
    return result.final;
  });
}

/** A one-page (or whole-document) PDF of `url` (a `pdf_url` from the API), fetched with the key. */
export async function fetchPdf(url: string): Promise<Blob> {
  const response = await send(url, { headers: { Accept: 'application/pdf' } });
  return response.blob();
}

/** Every key, active and revoked (admin). */
export function listKeys(): Promise<KeyListResponse> {
  return request<KeyListResponse>('/keys');
}

/** Create a key (admin); the answer holds the whole key, shown this once. */
export function createKey(body: KeyCreateRequest): Promise<KeyCreated> {
  return request<KeyCreated>('/keys', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Revoke the key `prefix` (admin): its next request gets 401. */
export function revokeKey(prefix: string): Promise<KeyRevoked> {
  return request<KeyRevoked>(`/keys/${encodeURIComponent(prefix)}`, { method: 'DELETE' });
}

/** The Operations page's charts (admin): id, title, unit, description of each. */
export function listOpsPanels(): Promise<OpsPanelList> {
  return request<OpsPanelList>('/operations/panels');
}

/**
 * One panel's series over the last `rangeS` seconds, a point every `stepS` seconds (admin), from
 * Prometheus through the gateway. ApiError 503 when Prometheus is unavailable (`detail` says why).
 */
export function getPanelSeries(panelId: string, rangeS: number, stepS: number): Promise<OpsSeriesResponse> {
  const params = queryString({ range_s: String(rangeS), step_s: String(stepS) });
  return request<OpsSeriesResponse>(`/operations/panels/${encodeURIComponent(panelId)}/series${params}`);
}

/** The dead-lettered documents, newest first, the latest dead letter of each (admin). */
export function listDeadLetters(): Promise<DeadLetterList> {
  return request<DeadLetterList>('/deadletters');
}

/** Republish the latest dead letter of each of `documentIds` to the stage that gave up (admin). */
export function replayDeadLetters(documentIds: string[]): Promise<ReplayResponse> {
  return request<ReplayResponse>('/deadletters/replay', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ document_ids: documentIds }),
  });
}

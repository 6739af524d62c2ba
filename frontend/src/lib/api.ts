import type {
  ApiConfig,
  ChunkingStrategy,
  ChunkListResponse,
  DeleteResponse,
  DocumentInfo,
  DocumentListResponse,
  IngestResponse,
  QueryRequest,
  QueryResponse,
} from '../types';

export const API_BASE = '/api/v1';

/** An error answered by the API (non-2xx) or a failure to reach it (status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly detail: string;

  constructor(status: number, detail: string) {
    super(detail);
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

function fallbackMessage(status: number): string {
  switch (status) {
    case 404:
      return 'Not found.';
    case 413:
      return 'The file is too large to upload.';
    case 502:
    case 503:
    case 504:
      return 'The service is temporarily unavailable. Please try again shortly.';
    default:
      return `Request failed (HTTP ${status}).`;
  }
}

async function request<T>(path: string, init?: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, {
      ...init,
      headers: { Accept: 'application/json', ...(init?.headers ?? {}) },
    });
  } catch {
    throw new ApiError(0, 'Cannot reach the server. Check your connection and that the service is running.');
  }
  const text = await response.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  if (!response.ok) {
    let message = detailFrom(body) ?? fallbackMessage(response.status);
    if (response.status === 413 && !detailFrom(body)) message = fallbackMessage(413);
    throw new ApiError(response.status, message);
  }
  return body as T;
}

/** What the gateway accepts for upload (extensions, strategies, size limit). */
export function getConfig(): Promise<ApiConfig> {
  return request<ApiConfig>('/config');
}

export function listDocuments(): Promise<DocumentListResponse> {
  return request<DocumentListResponse>('/documents');
}

export function getDocument(documentId: string): Promise<DocumentInfo> {
  return request<DocumentInfo>(`/documents/${encodeURIComponent(documentId)}`);
}

export function listChunks(documentId: string): Promise<ChunkListResponse> {
  return request<ChunkListResponse>(`/documents/${encodeURIComponent(documentId)}/chunks`);
}

export function deleteDocument(documentId: string): Promise<DeleteResponse> {
  return request<DeleteResponse>(`/documents/${encodeURIComponent(documentId)}`, { method: 'DELETE' });
}

export function deleteChunk(chunkId: string): Promise<DeleteResponse> {
  return request<DeleteResponse>(`/chunks/${encodeURIComponent(chunkId)}`, { method: 'DELETE' });
}

export function ingestDocument(file: File, strategy: ChunkingStrategy = 'token'): Promise<IngestResponse> {
  const form = new FormData();
  form.append('file', file, file.name);
  return request<IngestResponse>(`/ingest?strategy=${encodeURIComponent(strategy)}`, {
    method: 'POST',
    body: form,
  });
}

export function queryDocuments(body: QueryRequest): Promise<QueryResponse> {
  return request<QueryResponse>('/query', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Human-readable message for any error thrown by the functions above. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.detail;
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}

/**
 * The Database page's search, filters, sort and page, kept in the URL's query string (so a reload
 * or a shared link shows the same list) and sent to `GET /api/v1/documents`, which does the
 * filtering, sorting and paging (see `services/gateway/README.md`, "Document listing").
 */
import type { ChunkingStrategy, DocumentStatus } from '../types';

export const PAGE_SIZE = 25;

/** The statuses a list can be filtered by (labelled `documents.status.<value>`). */
export const STATUSES: { value: DocumentStatus }[] = [
  { value: 'queued' },
  { value: 'processing' },
  { value: 'indexed' },
  { value: 'failed' },
];

/** The strategies a list can be filtered by (labelled `format.strategy.<value>.filter`). */
export const STRATEGIES: { value: ChunkingStrategy }[] = [{ value: 'token' }, { value: 'question' }];

/** The sorts the gateway offers, each labelled `filters.sort.<key>` in the locales. */
export const SORTS = [
  { value: '-uploaded_at', key: 'newest' },
  { value: 'uploaded_at', key: 'oldest' },
  { value: 'filename', key: 'filenameAZ' },
  { value: '-filename', key: 'filenameZA' },
  { value: 'status', key: 'statusQueued' },
  { value: '-status', key: 'statusFailed' },
  { value: '-pages', key: 'mostPages' },
  { value: 'pages', key: 'fewestPages' },
  { value: '-chunks', key: 'mostChunks' },
  { value: 'chunks', key: 'fewestChunks' },
] as const;

export type DocumentSort = (typeof SORTS)[number]['value'];
export const DEFAULT_SORT: DocumentSort = '-uploaded_at';

export interface DocumentFilters {
  /** Search text: filename or chunk text. */
  q: string;
  status: DocumentStatus[];
  strategy: ChunkingStrategy | '';
  /** Admin only: one department (and the shared library); '' = every department. */
  department: string;
  /** Upload days, `YYYY-MM-DD`, inclusive; '' = open. */
  from: string;
  to: string;
  sort: DocumentSort;
  page: number;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function oneOf<T extends string>(value: string | null, allowed: readonly T[], fallback: T): T {
  return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

/** The filters a URL's query string holds; values the page does not offer are dropped. */
export function filtersFromSearch(search: URLSearchParams): DocumentFilters {
  const statuses = STATUSES.map((s) => s.value);
  const page = Number.parseInt(search.get('page') ?? '1', 10);
  const date = (name: string) => {
    const value = search.get(name) ?? '';
    return DATE.test(value) ? value : '';
  };
  return {
    q: search.get('q') ?? '',
    status: (search.get('status') ?? '')
      .split(',')
      .filter((s): s is DocumentStatus => (statuses as string[]).includes(s)),
    strategy: oneOf<ChunkingStrategy | ''>(search.get('strategy'), ['token', 'question'], ''),
    department: search.get('department') ?? '',
    from: date('from'),
    to: date('to'),
    sort: oneOf(search.get('sort'), SORTS.map((s) => s.value), DEFAULT_SORT),
    page: Number.isFinite(page) && page >= 1 ? page : 1,
  };
}

/** The query string of `filters` (defaults left out, so a plain page keeps a plain URL). */
export function filtersToSearch(filters: DocumentFilters): URLSearchParams {
  const out = new URLSearchParams();
  if (filters.q.trim()) out.set('q', filters.q);
  if (filters.status.length) out.set('status', filters.status.join(','));
  if (filters.strategy) out.set('strategy', filters.strategy);
  if (filters.department) out.set('department', filters.department);
  if (filters.from) out.set('from', filters.from);
  if (filters.to) out.set('to', filters.to);
  if (filters.sort !== DEFAULT_SORT) out.set('sort', filters.sort);
  if (filters.page > 1) out.set('page', String(filters.page));
  return out;
}

/** True when any filter narrows the list (the search included). */
export function isFiltered(filters: DocumentFilters): boolean {
  return Boolean(filters.q.trim() || filters.status.length || filters.strategy || filters.from || filters.to);
}

/**
 * The parameters of `GET /api/v1/documents` for `filters`, the department aside (an admin's
 * department filter is the list's scope, passed on its own: `useDocumentPage`).
 */
export function listParams(filters: DocumentFilters, pageSize = PAGE_SIZE): URLSearchParams {
  const out = new URLSearchParams();
  if (filters.q.trim()) out.set('q', filters.q.trim());
  for (const s of filters.status) out.append('status', s);
  if (filters.strategy) out.set('strategy', filters.strategy);
  if (filters.from) out.set('uploaded_from', filters.from);
  if (filters.to) out.set('uploaded_to', filters.to);
  out.set('sort', filters.sort);
  out.set('page', String(filters.page));
  out.set('page_size', String(pageSize));
  return out;
}

import type { ReactElement } from 'react';
import { render } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { vi } from 'vitest';
import { theme } from '../providers';
import type { ApiConfig, ChunkInfo, DocumentInfo, Source } from '../types';

export function renderWithProviders(ui: ReactElement, { route = '/' }: { route?: string } = {}) {
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false, staleTime: Infinity }, mutations: { retry: false } },
  });
  const result = render(
    <MantineProvider theme={theme} env="test">
      <QueryClientProvider client={queryClient}>
        <ModalsProvider>
          <Notifications />
          <MemoryRouter initialEntries={[route]}>{ui}</MemoryRouter>
        </ModalsProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return { ...result, queryClient };
}

/** A controllable stand-in for the browser's EventSource. */
export class MockEventSource {
  static instances: MockEventSource[] = [];
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;

  readonly url: string;
  readyState = MockEventSource.CONNECTING;
  private listeners = new Map<string, Set<(event: MessageEvent | Event) => void>>();

  constructor(url: string) {
    this.url = url;
    MockEventSource.instances.push(this);
  }

  addEventListener(type: string, listener: (event: MessageEvent | Event) => void) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)!.add(listener);
  }

  removeEventListener(type: string, listener: (event: MessageEvent | Event) => void) {
    this.listeners.get(type)?.delete(listener);
  }

  close() {
    this.readyState = MockEventSource.CLOSED;
  }

  open() {
    this.readyState = MockEventSource.OPEN;
    this.listeners.get('open')?.forEach((l) => l(new Event('open')));
  }

  emit(type: string, data: unknown) {
    const event = new MessageEvent(type, { data: JSON.stringify(data) });
    this.listeners.get(type)?.forEach((l) => l(event));
  }

  static latest(): MockEventSource {
    const last = MockEventSource.instances[MockEventSource.instances.length - 1];
    if (!last) throw new Error('no EventSource was created');
    return last;
  }
}

export function installMockEventSource() {
  MockEventSource.instances = [];
  vi.stubGlobal('EventSource', MockEventSource);
}

export function jsonResponse(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

type Handler = (url: string, init: RequestInit | undefined) => Response | Promise<Response>;

/** What the test gateway accepts (`GET /api/v1/config`), as the real one does by default. */
export const TEST_CONFIG: ApiConfig = {
  accepted_extensions: ['.pdf', '.docx', '.txt'],
  strategies: ['token', 'question'],
  max_upload_bytes: 104_857_600,
};

/**
 * Mock fetch by "METHOD /path" (path without query string). Unmatched calls fail the test loudly.
 * `GET /api/v1/config` answers `TEST_CONFIG` unless `routes` says otherwise.
 */
export function mockFetch(routes: Record<string, Handler>) {
  routes = { 'GET /api/v1/config': () => jsonResponse(TEST_CONFIG), ...routes };
  const spy = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? 'GET').toUpperCase();
    const path = url.split('?')[0];
    const handler = routes[`${method} ${path}`];
    if (!handler) return jsonResponse({ detail: `unmocked ${method} ${url}` }, 599);
    return handler(url, init);
  });
  vi.stubGlobal('fetch', spy);
  return spy;
}

export function makeDocument(overrides: Partial<DocumentInfo> = {}): DocumentInfo {
  return {
    document_id: 'doc-1',
    filename: 'report.pdf',
    department: 'default',
    file_type: 'pdf',
    strategy: 'token',
    strategy_used: 'token',
    status: 'indexed',
    stage: 'indexed',
    pages_done: 4,
    pages_total: 4,
    unit: 'pages',
    page_count: 4,
    chunk_count: 4,
    upload_date: '2026-05-15T09:30:00Z',
    updated_at: '2026-05-15T09:31:00Z',
    size_bytes: 52_000,
    sha256: 'c0ffee',
    error: null,
    warnings: [],
    ...overrides,
  };
}

export function makeTokenChunk(overrides: Partial<ChunkInfo> = {}): ChunkInfo {
  return {
    chunk_id: 'doc-1_0',
    document_id: 'doc-1',
    filename: 'report.pdf',
    chunk_index: 0,
    text: 'Budget allocation for the fourth quarter.',
    content_summary: 'Budget allocation…',
    page_number: 3,
    pdf_url: '/api/v1/documents/doc-1/pages/3.pdf',
    strategy_type: 'token',
    source_page_range: null,
    metadata: {},
    chunk_kind: 'token',
    ...overrides,
  };
}

export function makeQaChunk(overrides: Partial<ChunkInfo> = {}): ChunkInfo {
  return {
    chunk_id: 'doc-2_0',
    document_id: 'doc-2',
    filename: '補償及安置安排.pdf',
    metadata: {},
    chunk_index: 0,
    text: [
      '備用問答',
      '(A) 收地及清拆',
      '問 A1：古洞北新發展區的收地',
      '進度如何？',
      '答 A1：政府已收回約 80% 的私人土地。',
      '',
      '| 年份 | 收回土地（公頃） |',
      '| --- | --- |',
      '| 2023 | 12 |',
      '| 2024 | 18 |',
    ].join('\n'),
    content_summary: '古洞北新發展區的收地進度如何？',
    page_number: 5,
    pdf_url: '/api/v1/documents/doc-2/pages/5.pdf',
    strategy_type: 'question',
    chunk_kind: 'qa',
    qa_style: 'chinese',
    question_index: 1,
    question_id: 'A1',
    question_text: '古洞北新發展區的收地進度如何？',
    topic_section: '(A) 收地及清拆',
    source_page_range: [5, 7],
    answer_contains_table: true,
    has_table: true,
    ...overrides,
  };
}

/** A token-strategy source on page 3 of budget.pdf, with ``overrides`` applied. */
export function makeSource(overrides: Partial<Source> = {}): Source {
  return {
    chunk_id: 'doc-1_2',
    document_id: 'doc-1',
    filename: 'budget.pdf',
    page_number: 3,
    score: 0.87654,
    snippet: 'The allocation for Q4 is $12 million.',
    pdf_url: '/api/v1/documents/doc-1/pages/3.pdf',
    strategy_type: 'token',
    question_id: null,
    question_text: null,
    answer: null,
    topic_section: null,
    source_page_range: null,
    matched_by: 'dense',
    matched_terms: [],
    also_in: [],
    ...overrides,
  };
}

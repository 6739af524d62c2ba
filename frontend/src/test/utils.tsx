import type { ReactElement } from 'react';
import { render } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { i18n as I18n } from 'i18next';
import { I18nextProvider } from 'react-i18next';
import { vi } from 'vitest';
import { cssVariablesResolver, theme } from '../providers';
import { storeKey } from '../lib/auth';
import { SessionContext, SessionProvider, type Session } from '../lib/session';
import type { ApiConfig, Caller, ChunkInfo, DocumentInfo, Source } from '../types';

/** Keys of the tests' sessions (any `lgk_` string: the mocked gateway does not check them). */
export const TEST_KEY = 'lgk_a1b2c3d4_memberSecretMemberSecretMemberSec';

export const MEMBER: Caller = { key_prefix: 'a1b2c3d4', department: 'default', role: 'member' };
export const READER: Caller = { key_prefix: 'b2c3d4e5', department: 'default', role: 'reader' };
export const ADMIN: Caller = { key_prefix: 'c3d4e5f6', department: 'ops', role: 'admin' };

export interface RenderOptions {
  route?: string;
  /**
   * The signed-in caller (default MEMBER, with TEST_KEY stored), or `null` to render under the real
   * SessionProvider, which reads the stored key and asks the mocked `GET /api/v1/whoami`.
   */
  caller?: Caller | null;
  /**
   * An i18next instance to render with (a test simulating a reload), instead of the app's; the
   * app's runs in English in every test (`setup.ts`) unless the test switches it.
   */
  i18n?: I18n;
}

/** A session that stays signed in as `caller`; `signOut` and `signIn` are spies. */
export function fixedSession(caller: Caller): Session {
  return {
    state: { status: 'signed-in', caller },
    caller,
    signIn: vi.fn(async () => caller),
    signOut: vi.fn(),
    retry: vi.fn(),
  };
}

export function renderWithProviders(ui: ReactElement, { route = '/', caller = MEMBER, i18n }: RenderOptions = {}) {
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false, staleTime: Infinity }, mutations: { retry: false } },
  });
  let session: Session | null = null;
  if (caller) {
    storeKey(TEST_KEY);
    session = fixedSession(caller);
  }
  const inner = (
    <ModalsProvider>
      <Notifications />
      <MemoryRouter initialEntries={[route]}>{ui}</MemoryRouter>
    </ModalsProvider>
  );
  const tree = (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} env="test">
      <QueryClientProvider client={queryClient}>
        {session ? (
          <SessionContext.Provider value={session}>{inner}</SessionContext.Provider>
        ) : (
          <SessionProvider>{inner}</SessionProvider>
        )}
      </QueryClientProvider>
    </MantineProvider>
  );
  const result = render(i18n ? <I18nextProvider i18n={i18n}>{tree}</I18nextProvider> : tree);
  return { ...result, queryClient, session };
}

const encoder = new TextEncoder();

/**
 * A controllable `GET /api/v1/events` answer for the fetch-based SSE client: the request waits
 * until `open()` (or the first `emit`), then the body streams what `emit` sends.
 */
export class MockEventStream {
  static instances: MockEventStream[] = [];

  readonly url: string;
  readonly headers: Record<string, string>;
  readonly response: Promise<Response>;
  opened = false;
  closed = false;
  private resolve!: (response: Response) => void;
  private reject!: (error: unknown) => void;
  private controller!: ReadableStreamDefaultController<Uint8Array>;

  constructor(url: string, init?: RequestInit) {
    this.url = url;
    this.headers = { ...((init?.headers as Record<string, string> | undefined) ?? {}) };
    this.response = new Promise<Response>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    init?.signal?.addEventListener('abort', () => {
      this.closed = true;
      const error = new DOMException('aborted', 'AbortError');
      this.reject(error);
      try {
        this.controller?.error(error);
      } catch {
        // already closed
      }
    });
    MockEventStream.instances.push(this);
  }

  /** Answer 200 `text/event-stream`; tells the client to reconnect after 10 ms if it drops. */
  open() {
    if (this.opened) return;
    this.opened = true;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
    });
    this.resolve(new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }));
    this.send('retry: 10\n: ping\n\n');
  }

  /** Answer with an HTTP error instead of a stream. */
  fail(status: number, body: unknown = { detail: `HTTP ${status}` }) {
    this.opened = true;
    this.resolve(jsonResponse(body, status));
  }

  /** Send raw event-stream text. */
  send(text: string) {
    this.open();
    this.controller.enqueue(encoder.encode(text));
  }

  emit(type: string, data: unknown) {
    this.send(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** The server ends the stream (the client reconnects). */
  end() {
    this.controller.close();
  }

  static latest(): MockEventStream {
    const last = MockEventStream.instances[MockEventStream.instances.length - 1];
    if (!last) throw new Error('no event stream was requested');
    return last;
  }
}

export function installMockEventStream() {
  MockEventStream.instances = [];
}

export function jsonResponse(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/**
 * `body` (a QueryResponse) as `POST /api/v1/query/stream` sends an answer made without an LLM:
 * event `sources`, then event `done`, both with the whole response. `tokens`: a generated answer
 * instead, sent as `sources` with an empty answer, one `token` per piece, then `done`.
 */
export function sseAnswer(body: { answer: string } & Record<string, unknown>, tokens?: string[]) {
  const event = (name: string, data: unknown) => `event: ${name}\r\ndata: ${JSON.stringify(data)}\r\n\r\n`;
  const parts = tokens
    ? [event('sources', { ...body, answer: '' }), ...tokens.map((text) => event('token', { text })), event('done', body)]
    : [event('sources', body), event('done', body)];
  return new Response(parts.join(''), { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
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
 * `GET /api/v1/config` answers `TEST_CONFIG` and `GET /api/v1/events` a new `MockEventStream`
 * unless `routes` says otherwise.
 */
export function mockFetch(routes: Record<string, Handler>) {
  routes = {
    'GET /api/v1/config': () => jsonResponse(TEST_CONFIG),
    'GET /api/v1/events': (url, init) => new MockEventStream(url, init).response,
    ...routes,
  };
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
    visibility: 'department',
    upload_seq: 0,
    waiting_for: null,
    step: null,
    step_done: 0,
    step_total: 0,
    queue_position: null,
    eta_s: null,
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
    matched_entity: [],
    also_in: [],
    department: 'default',
    visibility: 'department',
    ...overrides,
  };
}

// uPlot draws on a canvas, which jsdom lacks: this mocks the 2-D context (recording what is drawn).
import 'vitest-canvas-mock';
import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from '../App';
import { OperationsPage } from './OperationsPage';
import { contrastRatio } from '../lib/contrast';
import { SERIES_COLORS } from '../lib/opsChart';
import { ADMIN, MEMBER, installMockEventStream, jsonResponse, mockFetch, renderWithProviders } from '../test/utils';
import type { DeadLetterEntry, OpsPanel, OpsSeriesResponse } from '../types';

const PANELS: OpsPanel[] = [
  { id: 'ingest-pages', title: 'Ingest: pages/s by department and strategy', unit: 'pps', description: 'Pages indexed per second.' },
  { id: 'query-p95', title: 'Query latency p95 (s)', unit: 's', description: '95th percentile of the answer time.' },
];

const END = 1_780_000_200; // a multiple of 15

/** A series answer of `panel` over the last hour every 15 s: each series' values from `values(i)`. */
function seriesBody(panel: OpsPanel, series: { labels: Record<string, string>; name: string; value: (i: number) => number | null }[],
  rangeS = 3600, stepS = 15): OpsSeriesResponse {
  const n = rangeS / stepS + 1;
  const start = END - rangeS;
  return {
    panel,
    range_s: rangeS,
    step_s: stepS,
    start,
    end: END,
    series: series.map((s) => ({
      labels: s.labels,
      name: s.name,
      points: Array.from({ length: n }, (_, i) => [start + i * stepS, s.value(i)] as [number, number | null]),
    })),
  };
}

const INGEST = seriesBody(PANELS[0], [
  { labels: { department: 'dept-a', strategy: 'token' }, name: 'dept-a · token', value: (i) => (i < 200 ? null : 1.5) },
  { labels: { department: 'dept-b', strategy: 'question' }, name: 'dept-b · question', value: (i) => (i < 200 ? null : 0.25) },
]);
const QUERY_EMPTY = seriesBody(PANELS[1], []);

function letter(overrides: Partial<DeadLetterEntry> = {}): DeadLetterEntry {
  return {
    document_id: 'a'.repeat(32),
    department: 'dept-a',
    filename: 'broken.pdf',
    status: 'failed',
    stage: 'embedding',
    source_topic: 'legco.documents.chunked.v1',
    consumer_group: 'embedder',
    reason: 'the embeddings endpoint could not be reached for 20 s',
    error_type: 'APIConnectionError',
    attempts: 0,
    ts: '2026-05-16T09:00:00Z',
    page_number: null,
    partition: 0,
    offset: 4,
    ...overrides,
  };
}

interface GatewayOptions {
  series?: Record<string, () => Response>;
  deadletters?: DeadLetterEntry[];
}

/** The gateway's operations routes, mocked; every request is recorded by the returned spy. */
function gateway({ series = {}, deadletters = [] }: GatewayOptions = {}) {
  installMockEventStream();
  const replays: unknown[] = [];
  const routes: Parameters<typeof mockFetch>[0] = {
    'GET /api/v1/operations/panels': () => jsonResponse({ panels: PANELS }),
    'GET /api/v1/operations/panels/ingest-pages/series': series['ingest-pages'] ?? (() => jsonResponse(INGEST)),
    'GET /api/v1/operations/panels/query-p95/series': series['query-p95'] ?? (() => jsonResponse(QUERY_EMPTY)),
    'GET /api/v1/deadletters': () => jsonResponse({ deadletters }),
    'POST /api/v1/deadletters/replay': (_url, init) => {
      const body = JSON.parse(String(init?.body));
      replays.push(body);
      return jsonResponse({
        documents: body.document_ids.map((id: string) => ({ document_id: id, filename: 'broken.pdf', stage: 'embedding', replayed: 1, skipped: null })),
      });
    },
  };
  const spy = mockFetch(routes);
  return { spy, replays };
}

function urls(spy: ReturnType<typeof mockFetch>, part: string): string[] {
  return spy.mock.calls.map(([input]) => String(input)).filter((u) => u.includes(part));
}

describe('OperationsPage', () => {
  it('draws each panel from the proxy: a canvas per chart, the series in the legend with their latest values', async () => {
    const { spy } = gateway();
    renderWithProviders(<OperationsPage />, { caller: ADMIN, route: '/operations' });
    const chart = await screen.findByRole('figure', { name: 'Ingest: pages/s by department and strategy' });
    const plot = await within(chart).findByTestId('ops-plot');
    const canvas = plot.querySelector('canvas');
    expect(canvas).not.toBeNull();
    // The summary a screen reader hears, and the legend: series names and latest values with the unit.
    expect(plot).toHaveAttribute('role', 'img');
    expect(plot.getAttribute('aria-label')).toBe(
      'Ingest: pages/s by department and strategy: 2 series. dept-a · token 1.5/s, dept-b · question 0.25/s',
    );
    const items = within(chart).getAllByTestId('ops-legend-item');
    expect(items.map((li) => li.textContent)).toEqual(['dept-a · token1.5/s', 'dept-b · question0.25/s']);
    expect(within(chart).getByText('dept-a · token')).toHaveAttribute('lang', 'en');
    expect(within(chart).getByText('Latest values')).toBeInTheDocument();
    expect(chart).toHaveAttribute('data-state', 'data');
    // uPlot drew the two series in their colours on the canvas (the mocked context records it).
    const ctx = canvas!.getContext('2d') as unknown as { __getEvents: () => { type: string; props: { value?: unknown } }[] };
    await waitFor(() => {
      const strokes = ctx.__getEvents().filter((e) => e.type === 'strokeStyle').map((e) => e.props.value);
      expect(strokes).toEqual(expect.arrayContaining([SERIES_COLORS[0], SERIES_COLORS[1]]));
    });
    expect(ctx.__getEvents().some((e) => e.type === 'stroke')).toBe(true);
    // Default range: the last hour, a point every 15 s; the panel is named, never an expression.
    expect(urls(spy, '/series')).toContain('/api/v1/operations/panels/ingest-pages/series?range_s=3600&step_s=15');
    expect(urls(spy, '/series').every((u) => !/query=|promql/i.test(u))).toBe(true);
  });

  it('says "no data yet" for a panel whose expression has no series', async () => {
    gateway();
    renderWithProviders(<OperationsPage />, { caller: ADMIN, route: '/operations' });
    const chart = await screen.findByRole('figure', { name: 'Query latency, 95th percentile' });
    expect(await within(chart).findByText('No data yet')).toBeInTheDocument();
    expect(chart).toHaveAttribute('data-state', 'empty');
    expect(chart.querySelector('canvas')).toBeNull();
  });

  it('asks again for the range picked: 15 min every 5 s, 6 hours every 90 s', async () => {
    const user = userEvent.setup();
    const { spy } = gateway({
      series: { 'ingest-pages': () => jsonResponse(seriesBody(PANELS[0], INGEST.series.map((s) => ({ ...s, value: () => 2 })), 900, 5)) },
    });
    renderWithProviders(<OperationsPage />, { caller: ADMIN, route: '/operations' });
    await screen.findAllByTestId('ops-plot');
    const picker = screen.getByRole('radiogroup', { name: 'Time range' });
    await user.click(within(picker).getByLabelText('15 min'));
    await waitFor(() => expect(urls(spy, 'range_s=900&step_s=5')).toHaveLength(2));
    await user.click(within(picker).getByLabelText('6 hours'));
    await waitFor(() => expect(urls(spy, 'range_s=21600&step_s=90')).toHaveLength(2));
  });

  it('shows one alert with the gateway\'s reason when Prometheus is unavailable, and each chart says so', async () => {
    const down = () =>
      jsonResponse({ detail: 'Prometheus could not be reached at http://127.0.0.1:9090 (ConnectError); the charts come back when it answers.' }, 503);
    gateway({ series: { 'ingest-pages': down, 'query-p95': down } });
    renderWithProviders(<OperationsPage />, { caller: ADMIN, route: '/operations' });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Prometheus is unavailable');
    expect(within(alert).getByTestId('error-detail')).toHaveTextContent('(ConnectError)');
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    const charts = screen.getAllByTestId('ops-chart');
    expect(charts).toHaveLength(2);
    for (const chart of charts) {
      expect(await within(chart).findByText('No figures: Prometheus is unavailable.')).toBeInTheDocument();
      expect(chart).toHaveAttribute('data-state', 'error');
      expect(chart.querySelector('canvas')).toBeNull();
    }
  });

  it('lists the dead letters; Retry replays that document and shows what was sent', async () => {
    const user = userEvent.setup();
    const other = letter({ document_id: 'b'.repeat(32), filename: '補償安排.pdf', stage: 'tables', page_number: 3, status: 'indexed',
      consumer_group: 'tables', attempts: 3, reason: 'boom', error_type: 'RuntimeError' });
    const { spy, replays } = gateway({ deadletters: [letter(), other] });
    renderWithProviders(<OperationsPage />, { caller: ADMIN, route: '/operations' });
    const table = await screen.findByRole('table', { name: 'Dead-lettered documents' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('broken.pdf');
    expect(rows[0]).toHaveTextContent('dept-a');
    expect(rows[0]).toHaveTextContent('Embedding');
    expect(rows[0]).toHaveTextContent('the embeddings endpoint could not be reached for 20 s');
    expect(rows[0]).toHaveTextContent('Failed');
    expect(rows[1]).toHaveTextContent('Extracting tables');
    expect(rows[1]).toHaveTextContent('Page 3');
    expect(within(rows[1]).getByText('補償安排.pdf')).toHaveAttribute('lang', 'zh-HK');
    expect(screen.getByRole('link', { name: '2 dead-lettered documents' })).toHaveAttribute('href', '#dead-letters');

    const before = urls(spy, '/api/v1/deadletters').length;
    await user.click(within(rows[0]).getByRole('button', { name: 'Retry broken.pdf' }));
    expect(await within(rows[0]).findByText('Sent back to Embedding: 1 event.')).toBeInTheDocument();
    expect(replays).toEqual([{ document_ids: ['a'.repeat(32)] }]);
    // The list is asked again after the replay.
    await waitFor(() => expect(urls(spy, '/api/v1/deadletters').length).toBeGreaterThan(before));
  });

  it('says why a replay sent nothing, and a failed replay', async () => {
    const user = userEvent.setup();
    const entries = [letter({ status: 'indexed' }), letter({ document_id: 'c'.repeat(32), filename: 'gone.pdf', offset: 9 })];
    gateway({ deadletters: entries });
    mockFetch({
      'GET /api/v1/operations/panels': () => jsonResponse({ panels: [] }),
      'GET /api/v1/deadletters': () => jsonResponse({ deadletters: entries }),
      'POST /api/v1/deadletters/replay': (_url, init) => {
        const [id] = JSON.parse(String(init?.body)).document_ids;
        if (id === 'c'.repeat(32)) return jsonResponse({ detail: 'Kafka could not be read (KafkaConnectionError); try again shortly.' }, 503);
        return jsonResponse({ documents: [{ document_id: id, filename: 'broken.pdf', stage: null, replayed: 0,
          skipped: 'the document is indexed, not failed' }] });
      },
    });
    renderWithProviders(<OperationsPage />, { caller: ADMIN, route: '/operations' });
    const table = await screen.findByRole('table', { name: 'Dead-lettered documents' });
    const [first, second] = within(table).getAllByRole('row').slice(1);
    await user.click(within(first).getByRole('button', { name: 'Retry broken.pdf' }));
    expect(await within(first).findByText('Not sent again: the document is Indexed, not failed.')).toBeInTheDocument();
    await user.click(within(second).getByRole('button', { name: 'Retry gone.pdf' }));
    expect(await within(second).findByText(/^The retry failed: The service is temporarily unavailable/)).toBeInTheDocument();
    expect(within(second).getByText(/KafkaConnectionError/)).toHaveAttribute('lang', 'en');
  });

  it('says when there is no dead letter', async () => {
    gateway();
    renderWithProviders(<OperationsPage />, { caller: ADMIN, route: '/operations' });
    expect(await screen.findByText('No dead-lettered documents.')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /dead-lettered/ })).not.toBeInTheDocument();
  });

  it('is for admins only: a member sees why, and nothing is asked of the gateway', async () => {
    const { spy } = gateway();
    renderWithProviders(<OperationsPage />, { caller: MEMBER, route: '/operations' });
    expect(screen.getByText('Operations are for administrators')).toBeInTheDocument();
    expect(urls(spy, '/operations')).toEqual([]);
    expect(urls(spy, '/deadletters')).toEqual([]);
  });

  it('is in the navigation for admins only', async () => {
    gateway({ series: {} });
    mockFetch({ 'GET /api/v1/documents': () => jsonResponse({ documents: [], total_documents: 0, total_chunks: 0, total: 0, page: 1, page_size: 25, notice: null }) });
    const { unmount } = renderWithProviders(<App />, { caller: MEMBER });
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).queryByRole('link', { name: 'Operations' })).not.toBeInTheDocument();
    unmount();
    renderWithProviders(<App />, { caller: ADMIN });
    const adminNav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(adminNav).getByRole('link', { name: 'Operations' })).toHaveAttribute('href', '/operations');
  });

  it('draws its lines in colours of at least 3:1 on the white chart', () => {
    for (const color of SERIES_COLORS) expect([color, contrastRatio(color, '#ffffff') >= 3]).toEqual([color, true]);
  });
});

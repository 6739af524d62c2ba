import { describe, expect, it, vi } from 'vitest';
import { SseParser, openEventStream, type SseMessage, type StreamStatus } from './sse';
import { MockEventStream, installMockEventStream, jsonResponse } from '../test/utils';

function parse(chunks: string[]) {
  const messages: SseMessage[] = [];
  const parser = new SseParser((m) => messages.push(m));
  for (const chunk of chunks) parser.push(chunk);
  return { messages, parser };
}

describe('SseParser', () => {
  it('parses named events, skips comments and joins multi-line data', () => {
    const { messages } = parse([': ping\n\nevent: document\ndata: {"a":1}\n\ndata: line one\ndata: line two\n\n']);
    expect(messages).toEqual([
      { event: 'document', data: '{"a":1}', id: '' },
      { event: 'message', data: 'line one\nline two', id: '' },
    ]);
  });

  it('handles lines, fields and CRLFs split between chunks', () => {
    const { messages } = parse(['eve', 'nt: deleted\r', '\ndata:', ' {"document_id"', ':"x"}\r\n', '\r\n']);
    expect(messages).toEqual([{ event: 'deleted', data: '{"document_id":"x"}', id: '' }]);
  });

  it('keeps the last id and the retry delay, and ignores an event without data', () => {
    const { messages, parser } = parse(['id: 7\nretry: 1500\nevent: nothing\n\nretry: soon\ndata: x\n\n']);
    expect(messages).toEqual([{ event: 'message', data: 'x', id: '7' }]);
    expect(parser.lastEventId).toBe('7');
    expect(parser.retryMs).toBe(1500);
  });
});

/** Route fetch to MockEventStreams (or to `answer` when given). */
function stubFetch(answer?: () => Response) {
  installMockEventStream();
  const spy = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) =>
    answer ? answer() : new MockEventStream(String(input), init).response,
  );
  vi.stubGlobal('fetch', spy);
  return spy;
}

describe('openEventStream', () => {
  it('sends the key as a Bearer header, never in the URL, and delivers events', async () => {
    const spy = stubFetch();
    const messages: SseMessage[] = [];
    const statuses: StreamStatus[] = [];
    const close = openEventStream('/api/v1/events', {
      key: () => 'lgk_abcdef12_secret',
      onMessage: (m) => messages.push(m),
      onStatus: (s) => statuses.push(s),
    });
    await vi.waitFor(() => expect(MockEventStream.instances).toHaveLength(1));
    const stream = MockEventStream.latest();
    expect(stream.url).toBe('/api/v1/events');
    expect(stream.headers).toMatchObject({ Authorization: 'Bearer lgk_abcdef12_secret', Accept: 'text/event-stream' });
    expect(spy.mock.calls[0][1]).not.toHaveProperty('credentials', 'include');

    stream.emit('document', { document_id: 'd1' });
    await vi.waitFor(() => expect(messages).toEqual([{ event: 'document', data: '{"document_id":"d1"}', id: '' }]));
    expect(statuses).toEqual(['connecting', 'open']);
    close();
    expect(stream.closed).toBe(true);
  });

  it('reconnects when the stream ends, with the key current at that time', async () => {
    stubFetch();
    let key = 'lgk_11111111_first';
    const statuses: StreamStatus[] = [];
    const close = openEventStream('/api/v1/events', {
      key: () => key,
      onMessage: () => {},
      onStatus: (s) => statuses.push(s),
    });
    await vi.waitFor(() => expect(MockEventStream.instances).toHaveLength(1));
    MockEventStream.latest().open();
    await vi.waitFor(() => expect(statuses).toContain('open'));
    key = 'lgk_22222222_second';
    MockEventStream.latest().end();
    // The mock stream sent `retry: 10`: the reconnect follows at once.
    await vi.waitFor(() => expect(MockEventStream.instances).toHaveLength(2));
    expect(MockEventStream.latest().headers.Authorization).toBe('Bearer lgk_22222222_second');
    MockEventStream.latest().open();
    await vi.waitFor(() => expect(statuses).toEqual(['connecting', 'open', 'connecting', 'open']));
    close();
  });

  it('reports "closed" after a failed attempt and keeps retrying', async () => {
    let calls = 0;
    stubFetch(() => {
      calls += 1;
      return jsonResponse({ detail: 'down' }, 503);
    });
    const statuses: StreamStatus[] = [];
    const close = openEventStream('/api/v1/events', {
      key: () => 'lgk_k',
      onMessage: () => {},
      onStatus: (s) => statuses.push(s),
      retryMs: 5,
    });
    await vi.waitFor(() => expect(calls).toBeGreaterThanOrEqual(2));
    expect(statuses).toEqual(['connecting', 'closed']);
    close();
  });

  it('stops for good on 401 and reports the key it sent', async () => {
    let calls = 0;
    stubFetch(() => {
      calls += 1;
      return jsonResponse({ detail: 'Invalid API key' }, 401);
    });
    const onUnauthorized = vi.fn();
    openEventStream('/api/v1/events', { key: () => 'lgk_revoked', onMessage: () => {}, onUnauthorized, retryMs: 1 });
    await vi.waitFor(() => expect(onUnauthorized).toHaveBeenCalledWith('lgk_revoked'));
    await new Promise((r) => setTimeout(r, 30));
    expect(calls).toBe(1);
  });
});

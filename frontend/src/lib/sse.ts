/**
 * A Server-Sent Events client over `fetch`, because the browser's EventSource cannot send the
 * `Authorization` header the gateway requires. It parses `text/event-stream` as EventSource does
 * (event, data, id, retry fields; comments such as the gateway's pings are skipped) and reconnects
 * the same way, except that a 401 stops it: the key is gone, retrying cannot help.
 */
import { authHeaders } from './auth';

/** One dispatched event: `event` is "message" when the server named none. */
export interface SseMessage {
  event: string;
  data: string;
  id: string;
}

/**
 * Incremental `text/event-stream` parser: feed it decoded text in chunks of any size (a line or
 * a CRLF may be split between chunks) and it calls `onMessage` for every complete event.
 */
export class SseParser {
  /** Reconnection delay (ms) last sent by the server in a `retry:` field, else null. */
  retryMs: number | null = null;
  /** Last `id:` seen, sent back as `Last-Event-ID` on reconnect. */
  lastEventId = '';

  private buffer = '';
  private data: string[] = [];
  private event = '';
  private readonly onMessage: (message: SseMessage) => void;

  constructor(onMessage: (message: SseMessage) => void) {
    this.onMessage = onMessage;
  }

  push(chunk: string): void {
    this.buffer += chunk;
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) return;
      // A trailing CR may be the first half of a CRLF split between two chunks: wait for more.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) return;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.event = value;
        break;
      case 'data':
        this.data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break;
    }
  }

  private dispatch(): void {
    const data = this.data;
    const event = this.event || 'message';
    this.data = [];
    this.event = '';
    if (data.length === 0) return;
    this.onMessage({ event, data: data.join('\n'), id: this.lastEventId });
  }
}

/**
 * `connecting`: the first attempt, or reconnecting after an open stream ended; `open`: events flow;
 * `closed`: the last attempt failed (server down, HTTP error) and another is scheduled (the status
 * stays `closed` until one succeeds).
 */
export type StreamStatus = 'connecting' | 'open' | 'closed';

export interface EventStreamOptions {
  onMessage: (message: SseMessage) => void;
  onStatus?: (status: StreamStatus) => void;
  /** The stream was answered 401 with `keySent`; it stops for good. */
  onUnauthorized?: (keySent: string | null) => void;
  /** The key to send, read at every (re)connect. */
  key: () => string | null;
  /** First reconnection delay (ms), doubled after each failed attempt up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
}

function isEventStream(response: Response): boolean {
  return (response.headers.get('Content-Type') ?? '').toLowerCase().startsWith('text/event-stream');
}

/** Open `url` as an event stream; the returned function closes it (and cancels any reconnect). */
export function openEventStream(url: string, options: EventStreamOptions): () => void {
  const controller = new AbortController();
  const baseDelay = options.retryMs ?? 3000;
  const maxDelay = options.maxRetryMs ?? 30_000;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last: StreamStatus | null = null;
  const status = (s: StreamStatus) => {
    if (stopped || s === last) return;
    last = s;
    options.onStatus?.(s);
  };
  const parser = new SseParser((message) => {
    if (!stopped) options.onMessage(message);
  });

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });

  const run = async () => {
    let delay = baseDelay;
    while (!stopped) {
      let opened = false;
      try {
        const key = options.key();
        const response = await fetch(url, {
          headers: {
            Accept: 'text/event-stream',
            ...authHeaders(key),
            ...(parser.lastEventId ? { 'Last-Event-ID': parser.lastEventId } : {}),
          },
          cache: 'no-store',
          signal: controller.signal,
        });
        if (response.status === 401) {
          stopped = true;
          options.onUnauthorized?.(key);
          return;
        }
        if (!response.ok || !response.body || !isEventStream(response)) {
          await response.body?.cancel().catch(() => {});
          throw new Error(`event stream answered HTTP ${response.status}`);
        }
        opened = true;
        delay = baseDelay;
        status('open');
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.push(decoder.decode(value, { stream: true }));
        }
      } catch {
        // Network error, HTTP error or the stream broke: reconnect below unless closed.
      }
      if (stopped) return;
      status(opened ? 'connecting' : 'closed');
      await wait(parser.retryMs ?? delay);
      if (!opened) delay = Math.min(delay * 2, maxDelay);
    }
  };

  status('connecting');
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
    controller.abort();
  };
}

import http from 'node:http';
import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../src/app.ts';
import { testApp, type TestApp } from '../helpers/app.ts';

/** One event as a client parses it. */
export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/**
 * A plain reader of an event stream over fetch, for tests: every event and comment received, in order, and ways
 * to wait for more. Closed with `close()` (or when the server ends the stream: `ended` resolves).
 */
export class SseReader {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  retry: number | undefined;
  readonly ended: Promise<void>;
  private waiters: (() => void)[] = [];
  private readonly abort = new AbortController();

  private constructor(readonly response: Response) {
    this.ended = this.pump().finally(() => this.wake());
  }

  /** The bytes as they came over the wire (only for `overHttp`: fetch hands over decoded bytes). */
  readonly raw: Buffer[] = [];
  /** What reading or decompressing the stream failed with, if it did (`overHttp`): a cut, a bad gzip stream. */
  decodeError: Error | undefined;

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
    const controller = new AbortController();
    const response = await fetch(url, { headers, signal: controller.signal });
    const reader = new SseReader(response);
    reader.abort.signal.addEventListener('abort', () => controller.abort());
    return reader;
  }

  /**
   * The stream over node:http, which sends only the headers given (fetch adds `Accept-Encoding`): keeps the bytes as
   * they came, and decompresses a gzip stream as it arrives (`createGunzip`) to read its events.
   */
  static async overHttp(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
    let request!: http.ClientRequest;
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      request = http.get(url, { headers, agent: false }, resolve).on('error', reject);
    });
    // All within this turn: nothing arrives before every listener is on.
    const body =
      res.headers['content-encoding'] === 'gzip'
        ? pipeline(res, createGunzip(), (err) => {
            if (err && !request.destroyed) reader.decodeError = err;
          })
        : res;
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const reader = new SseReader(
      new Response(Readable.toWeb(body) as ReadableStream<Uint8Array>, {
        status: res.statusCode,
        headers: responseHeaders,
      }),
    );
    res.on('data', (chunk: Buffer) => reader.raw.push(chunk));
    reader.abort.signal.addEventListener('abort', () => request.destroy());
    return reader;
  }

  /** Every byte received so far, as it came. */
  get bytes(): Buffer {
    return Buffer.concat(this.raw);
  }

  /** Waits until `count` events have come (all of them so far, in order). */
  async take(count: number, timeoutMs = 5_000): Promise<SseEvent[]> {
    await this.until(() => this.events.length >= count, timeoutMs, `${count} events (got ${this.events.length})`);
    return this.events.slice(0, count);
  }

  async until(ready: () => boolean, timeoutMs = 5_000, what = 'the condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!ready()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.abort.abort();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private async pump(): Promise<void> {
    if (!this.response.body) return;
    const decoder = new TextDecoder();
    let text = '';
    try {
      for await (const chunk of this.response.body) {
        text += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          this.block(text.slice(0, end));
          text = text.slice(end + 2);
        }
        this.wake();
      }
    } catch {
      // aborted or cut: `ended` resolves either way
    }
  }

  private block(block: string): void {
    let id: string | undefined;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line);
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'retry') this.retry = Number(value);
    }
    if (data.length > 0) this.events.push({ id, event, data: data.join('\n') });
  }
}

/** The app listening on a free port of 127.0.0.1; answers its base URL. */
export async function listening(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening on a port');
  return `http://127.0.0.1:${address.port}`;
}

/** How a test client reads a stream: through fetch (`SseReader.open`) or node:http, bytes as sent (`overHttp`). */
type Reading = (url: string, headers?: Record<string, string>) => Promise<SseReader>;

/**
 * A test app listening on a port, and `open` to read its stream (query, headers: `headers` unless given), the
 * readers closed when the test ends.
 */
export async function streaming(
  t: TestContext,
  deps: AppDeps = {},
  read: Reading = (url, headers) => SseReader.open(url, headers),
  headers: Record<string, string> = {},
): Promise<TestApp & { base: string; open: (query?: string, headers?: Record<string, string>) => Promise<SseReader> }> {
  const app = await testApp(t, deps);
  const base = await listening(app.app);
  const readers: SseReader[] = [];
  t.after(() => readers.forEach((r) => r.close()));
  const open = async (query = '', sent: Record<string, string> = headers) => {
    const reader = await read(`${base}/api/stream${query}`, sent);
    readers.push(reader);
    return reader;
  };
  return { ...app, base, open };
}

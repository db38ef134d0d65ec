import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { systemClock } from '../../src/core/runtime.ts';
import { sequentialIds } from '../helpers/app.ts';
import { WebhookDispatcher, type DispatcherOptions } from '../../src/webhooks/dispatcher.ts';
import type { DeliveryRecord, Logger, OutboundEvent } from '../../src/webhooks/types.ts';

export const SECRET = 'whsec_AbCdEf123456';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  /** `performance.now()` when the request arrived. */
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  /** Requests being handled right now, and the most there ever were at once. */
  concurrent: number;
  maxConcurrent: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void | Promise<void>;

/** A real HTTP receiver on 127.0.0.1, closed (with any hanging connections) when the test ends. */
export async function receiver(t: TestContext, handle: Handler = (_req, res) => void res.end('ok')): Promise<Receiver> {
  const r: Receiver = { url: '', port: 0, requests: [], concurrent: 0, maxConcurrent: 0 };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    r.requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() });
    r.maxConcurrent = Math.max(r.maxConcurrent, ++r.concurrent);
    res.on('close', () => r.concurrent--);
    res.on('error', () => {});
    await handle(req, res, r.requests.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${r.port}/hook`;
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return r;
}

/** A port nothing listens on: a server's, just closed. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface LogLine {
  level: keyof Logger;
  obj: object;
  msg: string | undefined;
}

export function captureLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: keyof Logger) => (obj: object, msg?: string) => void lines.push({ level, obj, msg });
  return { lines, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
}

export { sequentialIds };

/**
 * A dispatcher for loopback receivers with millisecond retries and no jitter, closed when the test ends.
 * Real clock: Standard Webhooks verifiers check the timestamp against the real time.
 */
export function dispatcher(t: TestContext, options: Partial<DispatcherOptions> = {}) {
  const log = captureLogger();
  const d = new WebhookDispatcher({
    clock: systemClock,
    ids: sequentialIds(),
    log,
    retrySchedule: [50, 100],
    timeoutMs: 300,
    allowPrivate: true,
    jitter: 0,
    ...options,
  });
  t.after(() => d.close(0));
  return { d, log };
}

let eventCounter = 0;
export function event(overrides: Partial<OutboundEvent> = {}): OutboundEvent {
  eventCounter++;
  return {
    id: `evt_${String(eventCounter).padStart(4, '0')}`,
    type: 'task.created',
    timestamp: '2026-11-22T10:00:00.000Z',
    data: { id: `task_${eventCounter}`, title: 'Write tests' },
    ...overrides,
  };
}

export const target = (url: string, id = 'wh_001') => ({ id, url, secret: SECRET });

/** Polls until `check` is true; fails the test with `what` after `ms`. */
export async function waitFor(what: string, check: () => boolean, ms = 3_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Oldest first: the order attempts happened in. */
export const chronological = (records: DeliveryRecord[]) => [...records].reverse();

/** Nothing queued, in flight or waiting to retry, and no attempt of `webhookId` pending. */
export function idle(d: WebhookDispatcher, webhookId = 'wh_001'): boolean {
  const { queued, inFlight, scheduledRetries } = d.stats();
  return queued + inFlight + scheduledRetries === 0 && d.deliveries(webhookId).every((r) => r.status !== 'pending');
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

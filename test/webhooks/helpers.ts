import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { buildApp, type AppDeps } from '../../src/app.ts';
import { systemClock } from '../../src/model/time.ts';
import { Api, FakeClock, idsFor, sequentialIds } from '../helpers/app.ts';
import { testStore } from '../helpers/store.ts';
import type { OutboundEvent } from '../../src/model/outbound.ts';
import type { DeliveryRecord } from '../../src/model/delivery.ts';
import type { DispatcherOptions } from '../../src/webhooks/dispatcher.ts';
import type { Logger, Scheduler } from '../../src/webhooks/types.ts';
import { TestDispatcher, type TestDispatcherOptions } from '../helpers/dispatcher.ts';

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
  /** Resolves once `n` requests have arrived (fails the test after a few seconds). */
  arrived(n: number): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void | Promise<void>;

/** A real HTTP receiver on 127.0.0.1, closed (with any hanging connections) when the test ends. */
export async function receiver(t: TestContext, handle: Handler = (_req, res) => void res.end('ok')): Promise<Receiver> {
  const requests: Received[] = [];
  const count = new Countdowns('requests at the receiver', () => requests.length);
  const r: Receiver = { url: '', port: 0, requests, concurrent: 0, maxConcurrent: 0, arrived: (n) => count.until(n) };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    r.requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() });
    r.maxConcurrent = Math.max(r.maxConcurrent, ++r.concurrent);
    res.on('close', () => r.concurrent--);
    res.on('error', () => {});
    const handled = handle(req, res, r.requests.length);
    count.check();
    await handled;
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

/**
 * Promises that resolve once a growing count reaches a number. One not reached within a few seconds of real time
 * fails the test instead of hanging it.
 */
class Countdowns {
  private waiting: { n: number; resolve: () => void }[] = [];

  constructor(
    private readonly what: string,
    private readonly count: () => number,
  ) {}

  until(n: number, ms = 15_000): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${n} ${this.what}`)), ms);
      this.waiting.push({
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
      this.check();
    });
  }

  /** Resolves the promises whose number is reached (call after the count grows). */
  check(): void {
    const due = this.waiting.filter((w) => this.count() >= w.n);
    this.waiting = this.waiting.filter((w) => this.count() < w.n);
    for (const w of due) w.resolve();
  }
}

/** Answers held until `release()`: what a slow receiver looks like, without waiting on real time. */
export function gate() {
  let open = false;
  const held: (() => void)[] = [];
  return {
    handler: (_req: IncomingMessage, res: ServerResponse) => {
      if (open) return void res.end('ok');
      held.push(() => res.end('ok'));
    },
    release() {
      open = true;
      for (const answer of held.splice(0)) answer();
    },
  };
}

/**
 * Timers that move only when told to: `advance(ms)` runs every timer due by then, in order, and moves the
 * `clock` given (if any) along with them.
 */
export class FakeScheduler implements Scheduler {
  private now = 0;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; run: () => void }>();

  constructor(private readonly clock?: { advance(ms: number): void }) {}

  setTimeout(run: () => void, ms: number): number {
    this.timers.set(++this.seq, { at: this.now + ms, run });
    return this.seq;
  }

  clearTimeout(timer: unknown): void {
    this.timers.delete(timer as number);
  }

  /** How long until each pending timer is due, soonest first. */
  get pending(): number[] {
    return [...this.timers.values()].map((t) => t.at - this.now).sort((a, b) => a - b);
  }

  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      let next: [number, { at: number; run: () => void }] | undefined;
      for (const entry of this.timers) if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      this.moveTo(next[1].at);
      this.timers.delete(next[0]);
      next[1].run();
    }
    this.moveTo(end);
  }

  /** Runs timers until `work` settles: for closing a dispatcher or an app whose grace period is on these timers. */
  async drive<T>(work: Promise<T>): Promise<T> {
    let done = false;
    const settled = work.finally(() => (done = true));
    while (!done) {
      this.advance(1_000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    return settled;
  }

  private moveTo(at: number): void {
    this.clock?.advance(at - this.now);
    this.now = at;
  }
}

/** A dispatcher observer that keeps each settled attempt and lets a test wait for them. */
export function watch() {
  const settled: DeliveryRecord[] = [];
  const count = new Countdowns('settled deliveries', () => settled.length);
  return {
    settled,
    observer: {
      settled(record: DeliveryRecord) {
        settled.push(record);
        count.check();
      },
    },
    /** Resolves once `n` attempts in all have settled. */
    until: (n: number) => count.until(n),
  };
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
 * A dispatcher for loopback receivers, on timers the test advances (`timers`), with retries 50 and 100 ms apart,
 * no jitter, closed when the test ends. Its clock starts at the real time (Standard Webhooks verifiers check the
 * timestamp against it) and moves with the timers.
 */
export function dispatcher(t: TestContext, options: Partial<TestDispatcherOptions> = {}) {
  const log = captureLogger();
  const clock = new FakeClock(new Date().toISOString());
  const timers = new FakeScheduler(clock);
  const d = new TestDispatcher({
    clock,
    ids: sequentialIds(),
    log,
    retrySchedule: [50, 100],
    timeoutMs: 300,
    allowPrivate: true,
    jitter: 0,
    scheduler: timers,
    ...options,
  });
  t.after(() => timers.drive(d.close(0)));
  return { d, log, timers, clock };
}

/**
 * The seeded service, on its own store (of the kind `TEST_STORE` names: test/helpers/store.ts), its deliveries on
 * timers the test advances (`timers`) and watched (`watched`); closed when the test ends. `webhooks` overrides the
 * dispatcher's options. `clock`: the service's, a FakeClock moved along with the timers unless the dispatcher is
 * given another.
 */
export async function deliveringApp(t: TestContext, webhooks: Partial<DispatcherOptions> = {}, deps: AppDeps = {}) {
  const clock = new FakeClock();
  const timers = new FakeScheduler(clock);
  const watched = watch();
  const store = await testStore();
  const app = await buildApp({
    clock,
    ids: idsFor(store),
    store,
    config: { logLevel: 'silent' },
    webhooks: { scheduler: timers, observer: watched.observer, ...webhooks },
    ...deps,
  });
  t.after(() => timers.drive(app.close()));
  return { app, api: new Api(app), clock, timers, watched, store };
}

/**
 * {@link deliveringApp} for loopback receivers: private targets allowed, retries 30 and 60 ms apart, no jitter,
 * signed with the real time; the seeded webhooks (on hosts that never resolve) switched off.
 */
export async function appWithReceivers(t: TestContext, webhooks: Partial<DispatcherOptions> = {}, deps: AppDeps = {}) {
  const ctx = await deliveringApp(
    t,
    {
      allowPrivate: true,
      retrySchedule: [30, 60],
      timeoutMs: 500,
      jitter: 0,
      clock: systemClock,
      ...webhooks,
    },
    deps,
  );
  for (const id of ['wh_001', 'wh_002', 'wh_003']) await ctx.api.patch(`/api/webhooks/${id}`, { active: false });
  return ctx;
}

/** Creates a webhook for `url` through the API; its id and the secret issued. */
export async function subscribe(api: Api, url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const res = await api.post('/api/webhooks', { url, events });
  if (res.status !== 201) throw new Error(`webhook not created: ${res.status} ${res.text}`);
  return res.body.data;
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

/** Oldest first: the order attempts happened in. */
export const chronological = (records: DeliveryRecord[]) => [...records].reverse();

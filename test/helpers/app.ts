import type { TestContext } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.ts';
import type { Clock } from '../../src/model/time.ts';
import type { IdGenerator } from '../../src/model/ids.ts';
import type { Store } from '../../src/store/store.ts';
import { TestDispatcher } from './dispatcher.ts';
import { contract, type Contract } from './contract.ts';
import { RerunningStore, testStore } from './store.ts';

/** A clock that stands still until told to move, so timestamps in tests are exact. */
export class FakeClock implements Clock {
  private ms: number;
  constructor(start = '2026-11-22T10:00:00.000Z') {
    this.ms = Date.parse(start);
  }
  now(): Date {
    return new Date(this.ms);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(iso: string): void {
    this.ms = Date.parse(iso);
  }
}

/**
 * Predictable ids: `task_test00000001`, `task_test00000002`, … (one counter per prefix). `mark` notes the counters
 * and answers a function that puts them back (the ids handed out since are handed out again).
 */
export function sequentialIds(): IdGenerator & { mark(): () => void } {
  const counters = new Map<string, number>();
  const ids = (prefix: string) => {
    const n = (counters.get(prefix) ?? 0) + 1;
    counters.set(prefix, n);
    return `${prefix}_test${String(n).padStart(8, '0')}`;
  };
  return Object.assign(ids, {
    mark() {
      const noted = new Map(counters);
      return () => {
        counters.clear();
        for (const [prefix, n] of noted) counters.set(prefix, n);
      };
    },
  });
}

/**
 * {@link sequentialIds} for an app on `store`; on a {@link RerunningStore}, the ids its rolled-back first runs took
 * are handed out again, so that the records get the ids they would get on any other store.
 */
export function idsFor(store: Store): IdGenerator {
  const ids = sequentialIds();
  if (store instanceof RerunningStore) store.beforeRerun = () => ids.mark();
  return ids;
}

export interface TestApp {
  app: FastifyInstance;
  clock: FakeClock;
  api: Api;
  /** The store the app serves (the one passed in `deps`, else a new one of the kind `TEST_STORE` names). */
  store: Store;
  /** The app's webhook dispatcher. */
  dispatcher: TestDispatcher;
}

/**
 * A seeded app with a fake clock and predictable ids, closed when the test ends. Its store and webhook dispatcher
 * are made here and handed to `buildApp`, so a test can look at what the app stored or queued. The store is a new
 * one of the kind `TEST_STORE` names (test/helpers/store.ts), removed when the app closes.
 */
export async function testApp(t: TestContext, deps: AppDeps = {}): Promise<TestApp> {
  const clock = new FakeClock();
  const store: Store = deps.store ?? (await testStore());
  const ids = idsFor(store);
  let dispatcher: TestDispatcher | undefined;
  const app = await buildApp({
    clock,
    ids,
    config: { logLevel: 'silent' },
    makeDispatcher: (options) => (dispatcher = new TestDispatcher(options)),
    ...deps,
    store,
  }).catch(async (error: unknown) => {
    if (deps.store === undefined) await store.close();
    throw error;
  });
  t.after(() => app.close());
  return { app, clock, api: new Api(app), store, dispatcher: dispatcher! };
}

export interface Res<T = any> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
  text: string;
}

/**
 * Thin `app.inject` wrapper: JSON bodies in, parsed bodies out. Every response is checked against the published
 * OpenAPI document (test/helpers/contract.ts): one that breaks it fails the test that made the request.
 */
export class Api {
  /** `published`: the contract answers are held to; default: the document of an app with the default settings. */
  constructor(
    private readonly app: FastifyInstance,
    private readonly published: () => Promise<Contract> = contract,
  ) {}

  async request<T = any>(opts: InjectOptions): Promise<Res<T>> {
    const res = await this.app.inject(opts);
    const target = opts.url ?? opts.path ?? '/';
    const problems = (await this.published()).check({
      method: opts.method ?? 'GET',
      url: typeof target === 'string' ? target : target.pathname,
      status: res.statusCode,
      contentType: res.headers['content-type'] as string | undefined,
      text: res.body,
      headers: res.headers,
    });
    if (problems.length > 0) throw new Error(`response breaks the OpenAPI contract:\n  ${problems.join('\n  ')}`);
    let body: any;
    try {
      body = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      body = undefined;
    }
    return { status: res.statusCode, headers: res.headers, body, text: res.body };
  }

  get<T = any>(url: string, headers: Record<string, string> = {}) {
    return this.request<T>({ method: 'GET', url, headers });
  }
  post<T = any>(url: string, payload?: unknown, headers: Record<string, string> = {}) {
    return this.request<T>({
      method: 'POST',
      url,
      ...jsonBody(payload),
      headers: { ...jsonHeaders(payload), ...headers },
    });
  }
  put<T = any>(url: string, payload?: unknown, headers: Record<string, string> = {}) {
    return this.request<T>({
      method: 'PUT',
      url,
      ...jsonBody(payload),
      headers: { ...jsonHeaders(payload), ...headers },
    });
  }
  patch<T = any>(url: string, payload?: unknown, headers: Record<string, string> = {}) {
    return this.request<T>({
      method: 'PATCH',
      url,
      ...jsonBody(payload),
      headers: { ...jsonHeaders(payload), ...headers },
    });
  }
  delete<T = any>(url: string, headers: Record<string, string> = {}) {
    return this.request<T>({ method: 'DELETE', url, headers });
  }
}

function jsonBody(payload: unknown) {
  return payload === undefined ? {} : { payload: JSON.stringify(payload) };
}
function jsonHeaders(payload: unknown): Record<string, string> {
  return payload === undefined ? {} : { 'content-type': 'application/json' };
}

/** Asserts the one error shape and returns its `error` object. */
export function errorOf(res: Res): { code: string; message: string; details?: { field: string; message: string }[] } {
  const e = res.body?.error;
  if (!e || typeof e.code !== 'string' || typeof e.message !== 'string') {
    throw new Error(`not an error body (${res.status}): ${res.text}`);
  }
  return e;
}

/** The fields named in a VALIDATION_ERROR's details. */
export function fieldsOf(res: Res): string[] {
  return (errorOf(res).details ?? []).map((d) => d.field).sort();
}

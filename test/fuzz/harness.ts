/**
 * The fuzzing harness: one app per property, requests described symbolically (ids resolved against the store at
 * send time), and the invariants every answer must keep:
 *
 * - status < 500, an `X-Request-Id`, and JSON (`application/json; charset=utf-8`) whenever there is a body;
 * - every 4xx is exactly `{ error: { code, message, details? } }`, with no stack trace in it;
 * - a refused request (status >= 400) leaves every collection, the activity log and the webhook delivery log as
 *   they were (compared by identity: records are immutable values, and the harness deep-freezes every record it
 *   has seen, so an in-place change would throw and show up as a 500);
 * - nothing is added to `Object.prototype` (or the other built-in prototypes).
 *
 * Seed: `FUZZ_SEED` (default below); scale the number of runs with `FUZZ_SCALE` (default 1).
 */
import type { TestContext } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { MockAgent } from 'undici';
import { buildApp } from '../../src/app.ts';
import { etagOf } from '../../src/core/etag.ts';
import type { IdGenerator } from '../../src/model/ids.ts';
import { MemoryStore } from '../../src/store/memory/store.ts';
import { TestDispatcher } from '../helpers/dispatcher.ts';

export const DEFAULT_SEED = 20261122;
export const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : DEFAULT_SEED;
const SCALE = process.env.FUZZ_SCALE ? Number(process.env.FUZZ_SCALE) : 1;

/** Runs of a property: its share of the total, times `FUZZ_SCALE`. */
export const runs = (n: number) => Math.max(1, Math.round(n * SCALE));

/** Kinds of record a request can name: resolved to the id of an existing record when the request is sent. */
export type RefKind = 'proj' | 'task' | 'team' | 'cmt' | 'ms' | 'te' | 'wh' | 'act' | 'notif' | 'dlv' | 'tok';

/** A reference to an existing record: the `n`-th (modulo the count) of its kind at send time. */
export interface Ref {
  ref: RefKind;
  n: number;
}

/** A JSON value in a body: raw JSON text as it goes on the wire, or a reference rendered as a JSON string. */
export type RawValue = string | Ref;

/** A request body: an object built from entries (so keys can repeat), or text / bytes sent as they are. */
export type BodySpec =
  | { kind: 'entries'; entries: [key: string, value: RawValue][] }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; bytes: Uint8Array };

/** `If-Match` / `If-None-Match` naming the record's current version, or an old one. */
export type HeaderValue = string | { etag: 'current' | 'stale' | 'weak-current' };

export interface RequestSpec {
  method: string;
  /** Path segments after the leading slash: text as sent (already encoded, or deliberately not) or references. */
  path: (string | Ref)[];
  /** Raw query string without `?` (empty: none). */
  query: string;
  headers: Record<string, HeaderValue>;
  body?: BodySpec;
}

export interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

/** A dispatcher that answers no delivery (no network is ever reached); every attempt fails at once. */
function offlineDispatcher(): MockAgent {
  const agent = new MockAgent();
  agent.disableNetConnect();
  return agent;
}

function sequentialIds(): IdGenerator {
  const counters = new Map<string, number>();
  return (prefix) => {
    const n = (counters.get(prefix) ?? 0) + 1;
    counters.set(prefix, n);
    return `${prefix}_fuzz${String(n).padStart(8, '0')}`;
  };
}

type Snapshot = readonly (readonly unknown[])[];

const PROTOTYPES: [string, object][] = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
];
const protoKeys = () => PROTOTYPES.map(([, p]) => Reflect.ownKeys(p).length);

export class Fuzz {
  /** Requests sent, and how many of them were refused (status >= 400), by status. */
  sent = 0;
  readonly statuses = new Map<number, number>();
  private readonly frozen = new WeakSet<object>();
  private readonly baselineProto = protoKeys();
  private stale = new Map<string, string>();

  constructor(
    readonly app: FastifyInstance,
    private readonly store: MemoryStore,
    private readonly dispatcher: TestDispatcher,
  ) {}

  static async create(t: TestContext): Promise<Fuzz> {
    const store = new MemoryStore();
    let dispatcher: TestDispatcher | undefined;
    const app = await buildApp({
      store,
      ids: sequentialIds(),
      config: { logLevel: 'silent' },
      webhooks: { dispatcher: offlineDispatcher(), retrySchedule: [] },
      makeDispatcher: (options) => (dispatcher = new TestDispatcher(options)),
    });
    await app.ready();
    t.after(() => app.close());
    return new Fuzz(app, store, dispatcher!);
  }

  /** Ids of the records of one kind, in a stable order. */
  async idsOf(kind: RefKind, webhookId?: string): Promise<string[]> {
    const s = this.store;
    switch (kind) {
      case 'proj':
        return (await s.projects.list()).map((r) => r.id);
      case 'task':
        return (await s.tasks.list()).map((r) => r.id);
      case 'team':
        return (await s.teams.list()).map((r) => r.id);
      case 'cmt':
        return (await s.comments.list()).map((r) => r.id);
      case 'ms':
        return (await s.milestones.list()).map((r) => r.id);
      case 'te':
        return (await s.timeEntries.list()).map((r) => r.id);
      case 'wh':
        return (await s.webhooks.list()).map((r) => r.id);
      case 'notif':
        return (await s.notifications.list()).map((r) => r.id);
      case 'tok':
        return (await s.tokens.list()).map((r) => r.id);
      case 'act':
        return (await s.activity.query({ filter: {}, limit: 50 })).items.map((r) => r.id);
      case 'dlv': {
        const hooks = webhookId ? [webhookId] : (await s.webhooks.list()).map((r) => r.id);
        const ids: string[] = [];
        for (const id of hooks) ids.push(...(await this.dispatcher.deliveries(id)).map((d) => d.id));
        return ids;
      }
    }
  }

  private async resolve(ref: Ref, webhookId?: string): Promise<string> {
    const ids = await this.idsOf(ref.ref, webhookId);
    return ids.length === 0 ? `${ref.ref}_none` : ids[ref.n % ids.length]!;
  }

  /** The record a path names (its last resolved reference), for conditional headers. */
  private async recordOf(ids: { kind: RefKind; id: string }[]): Promise<object | undefined> {
    const last = ids[ids.length - 1];
    if (!last) return undefined;
    const s = this.store;
    const byKind: Partial<Record<RefKind, { get(id: string): Promise<object | undefined> }>> = {
      proj: s.projects,
      task: s.tasks,
      team: s.teams,
      cmt: s.comments,
      ms: s.milestones,
      te: s.timeEntries,
      wh: s.webhooks,
      notif: s.notifications,
      act: s.activity,
      tok: s.tokens,
    };
    return byKind[last.kind]?.get(last.id);
  }

  /** The request as it goes on the wire: references resolved, conditional headers filled in. */
  async render(spec: RequestSpec): Promise<Sent> {
    const resolved: { kind: RefKind; id: string }[] = [];
    let webhookId: string | undefined;
    const segments: string[] = [];
    for (const part of spec.path) {
      if (typeof part === 'string') {
        segments.push(part);
        continue;
      }
      const id = await this.resolve(part, webhookId);
      if (part.ref === 'wh') webhookId = id;
      resolved.push({ kind: part.ref, id });
      segments.push(encodeURIComponent(id));
    }
    const url = `/${segments.join('/')}${spec.query === '' ? '' : `?${spec.query}`}`;

    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(spec.headers)) {
      if (typeof value === 'string') {
        headers[name] = value;
        continue;
      }
      const record = await this.recordOf(resolved);
      const current = record ? etagOf(record) : '"none"';
      const key = resolved.map((r) => r.id).join('/');
      if (value.etag === 'current') headers[name] = current;
      else if (value.etag === 'weak-current') headers[name] = `W/${current}`;
      else headers[name] = this.stale.get(key) ?? '"0"';
      if (record) this.stale.set(key, current); // the next request on it may find this version stale
    }

    let payload: string | Buffer | undefined;
    const body = spec.body;
    if (body?.kind === 'text') payload = body.text;
    else if (body?.kind === 'bytes') payload = Buffer.from(body.bytes);
    else if (body?.kind === 'entries') {
      const parts: string[] = [];
      for (const [key, value] of body.entries) {
        const text = typeof value === 'string' ? value : JSON.stringify(await this.resolve(value, webhookId));
        parts.push(`${JSON.stringify(key)}:${text}`);
      }
      payload = `{${parts.join(',')}}`;
    }
    return { method: spec.method, url, headers, ...(payload === undefined ? {} : { payload }) };
  }

  /** Every record of every collection (references), deep-freezing the ones not seen before. */
  async snapshot(): Promise<Snapshot> {
    const s = this.store;
    const lists: (readonly unknown[])[] = [
      await s.projects.list(),
      await s.tasks.list(),
      await s.teams.list(),
      await s.comments.list(),
      await s.milestones.list(),
      await s.timeEntries.list(),
      await s.webhooks.list(),
      await s.notifications.list(),
      (await s.activity.query({ filter: {} })).items,
      await s.tokens.list(),
    ];
    for (const list of lists) for (const record of list) this.freeze(record);
    // The delivery log: a refused request must not queue a delivery either.
    let deliveries = 0;
    for (const hook of lists[6] as { id: string }[]) deliveries += (await this.dispatcher.deliveries(hook.id)).length;
    lists.push([deliveries]);
    return lists;
  }

  /** Deep-freezes a record (without recursion: a stored value may be nested deeper than the stack allows). */
  private freeze(root: unknown): void {
    const stack = [root];
    while (stack.length > 0) {
      const value = stack.pop();
      if (value === null || typeof value !== 'object' || this.frozen.has(value)) continue;
      this.frozen.add(value);
      Object.freeze(value);
      for (const child of Object.values(value)) stack.push(child);
    }
  }

  /** Sends one request and checks every invariant; throws (naming the request and answer) when one is broken. */
  async check(spec: RequestSpec): Promise<void> {
    const sent = await this.render(spec);
    const before = await this.snapshot();
    const res = await this.app.inject(sent as never);
    this.sent++;
    this.statuses.set(res.statusCode, (this.statuses.get(res.statusCode) ?? 0) + 1);
    const problems = checkAnswer(sent, res);
    if (res.statusCode >= 400) {
      const after = await this.snapshot();
      const changed = diff(before, after);
      if (changed) problems.push(`a refused request changed the store: ${changed}`);
    }
    const proto = protoKeys();
    if (proto.some((n, i) => n !== this.baselineProto[i]) || ({} as Record<string, unknown>).polluted !== undefined) {
      problems.push(
        `prototype pollution: ${PROTOTYPES.map(([name, p]) => `${name} has ${Reflect.ownKeys(p).length} keys`).join(', ')}`,
      );
    }
    if (problems.length > 0) {
      throw new Error(
        `${problems.join('; ')}\n  request: ${sent.method} ${clip(sent.url)} headers=${clip(JSON.stringify(sent.headers))} ` +
          `body=${clip(typeof sent.payload === 'string' ? JSON.stringify(sent.payload) : String(sent.payload?.toString('hex')))}\n` +
          `  answer: ${res.statusCode} ${JSON.stringify(res.headers['content-type'])} ${clip(res.body)}`,
      );
    }
  }

  /** A line for the test's diagnostics: seed, requests, statuses. */
  summary(name: string): string {
    const statuses = [...this.statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    return `fast-check seed: ${SEED} (FUZZ_SEED=${SEED} to replay) | ${name}: ${this.sent} requests | ${statuses}`;
  }
}

const clip = (s: string, n = 400) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

function diff(before: Snapshot, after: Snapshot): string | undefined {
  const names = [
    'projects',
    'tasks',
    'teams',
    'comments',
    'milestones',
    'timeEntries',
    'webhooks',
    'notifications',
    'activity',
    'tokens',
    'deliveries',
  ];
  for (let i = 0; i < before.length; i++) {
    const a = before[i]!;
    const b = after[i]!;
    if (a.length !== b.length) return `${names[i]}: ${a.length} → ${b.length} records`;
    for (let j = 0; j < a.length; j++) {
      if (a[j] !== b[j]) return `${names[i]}: record ${j} replaced (${clip(JSON.stringify(b[j]), 200)})`;
    }
  }
  return undefined;
}

const JSON_TYPE = /^application\/json; charset=utf-8$/;
const STACK = /\bat [\w.<>]+ \(|node_modules|\.ts:\d+|\.js:\d+/;

/** The invariants of one answer, whatever the request. */
export function checkAnswer(
  sent: Sent,
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
): string[] {
  const problems: string[] = [];
  const status = res.statusCode;
  if (status >= 500) problems.push(`status ${status}`);
  if (!res.headers['x-request-id']) problems.push('no X-Request-Id');
  const type = res.headers['content-type'] as string | undefined;
  const isApi = sent.url.startsWith('/api') || status >= 400;
  if (res.body !== '' && isApi && !JSON_TYPE.test(type ?? ''))
    problems.push(`content-type ${JSON.stringify(type)} for a body`);
  if (sent.method === 'HEAD' && res.body !== '') problems.push('HEAD answered with a body');
  if (status === 304 && res.body !== '') problems.push('304 with a body');
  if (status >= 400) {
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      if (sent.method !== 'HEAD') problems.push('error body is not JSON');
    }
    if (body !== undefined) problems.push(...errorShapeProblems(body));
    if (STACK.test(res.body)) problems.push('error body looks like a stack trace');
  } else if (res.body !== '' && isApi) {
    try {
      JSON.parse(res.body);
    } catch {
      problems.push('success body is not JSON');
    }
  }
  return problems;
}

function errorShapeProblems(body: unknown): string[] {
  const problems: string[] = [];
  const top = body as Record<string, unknown>;
  if (top === null || typeof top !== 'object' || Array.isArray(top)) return ['error body is not an object'];
  if (Object.keys(top).join() !== 'error') problems.push(`error body keys ${Object.keys(top).join()}`);
  const e = top.error as Record<string, unknown> | undefined;
  if (!e || typeof e !== 'object') return [...problems, 'no error object'];
  if (typeof e.code !== 'string' || !/^[A-Z_]+$/.test(e.code)) problems.push(`error.code ${JSON.stringify(e.code)}`);
  if (typeof e.message !== 'string' || e.message === '') problems.push('error.message missing');
  const extra = Object.keys(e).filter((k) => !['code', 'message', 'details'].includes(k));
  if (extra.length > 0) problems.push(`error has extra keys ${extra.join()}`);
  if ('details' in e) {
    const d = e.details;
    if (
      !Array.isArray(d) ||
      !d.every((x) => x && typeof x.field === 'string' && typeof x.message === 'string' && Object.keys(x).length === 2)
    ) {
      problems.push('error.details is not [{field, message}]');
    }
  }
  return problems;
}

/**
 * Runs `arb` as an async property against one fuzz app: every generated request is sent and checked.
 * Reports the seed (and the command to replay it) through the test's diagnostics.
 */
export async function fuzzRoutes(
  t: TestContext,
  name: string,
  arb: fc.Arbitrary<RequestSpec>,
  numRuns: number,
): Promise<Fuzz> {
  const fuzz = await Fuzz.create(t);
  t.diagnostic(`fast-check seed: ${SEED}; ${numRuns} runs`);
  try {
    await fc.assert(
      fc.asyncProperty(arb, (spec) => fuzz.check(spec)),
      { seed: SEED, numRuns, endOnFailure: true, includeErrorInReport: true },
    );
  } finally {
    t.diagnostic(fuzz.summary(name));
  }
  return fuzz;
}

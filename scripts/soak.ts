/**
 * Soak test: the real server process under mixed, realistic traffic for a long time, at the highest rate this
 * machine gives (a fixed pool of concurrent clients, each sending its next request as soon as the last is answered).
 *
 *   npm run soak                         # 10 minutes
 *   npm run soak -- --minutes 2          # or --seconds 90; --concurrency 32; --out soak.json
 *   npm run soak -- --store postgres     # on a PostgreSQL server: a database of its own, dropped at the end
 *                                        # (--database-url, default postgres://postgres@127.0.0.1:5432/postgres)
 *   npm run soak -- --store embedded     # DATA_DIR in a temporary folder, removed at the end
 *
 * Traffic: reads of every resource (lists with filters, records, conditional GETs answered 304, the activity log,
 * delivery logs), full lifecycles (create a project, tasks, comments, time entries, a milestone reached, updates,
 * then delete the project, which deletes all of it), notification lifecycles, webhook pings, and requests that
 * are refused on purpose (bad bodies, unknown ids, stale If-Match). Four webhooks subscribe to every event and
 * point at receivers on loopback (WEBHOOK_ALLOW_PRIVATE=true): one answers at once, one after 1.5 s, one with 500
 * (retried), one never (timed out), so the delivery queue fills to its bound and stays there.
 *
 * Every answer is classified: each operation says which statuses it expects (the refused-on-purpose requests expect
 * their 4xx); anything else, a 5xx or a network error is an error, and the run fails if there is one.
 *
 * Memory of the server process, without adding anything to its API: RSS from /proc/<pid>/status every 10 s, and
 * the V8 heap through the inspector (the process runs with --inspect on a loopback port and --expose-gc): heap used
 * every 10 s, heap used after a full GC every 30 s. The last 20 % of the run sends only traffic that stores nothing
 * (reads, notification create+delete, pings): its heap after GC must be flat. During the mixed phase, the only data
 * that stays is the activity log (append-only by design); the heap may grow by what its entries cost, which is
 * measured separately in this process on copies of real entries (scripts run with --expose-gc). On a durable store
 * nothing the traffic stores stays in the process: its heap after GC must stay flat in both phases, and the delivery
 * log keeps every attempt (by age, not by count). On PostgreSQL the service's connections must stay within its pools.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool, WebSocket } from 'undici';
import { MemoryActivityLog } from '../src/store/memory/activity-log.ts';
import type { ActivityEntry } from '../src/model/activity.ts';

const { values: flags } = parseArgs({
  options: {
    minutes: { type: 'string' },
    seconds: { type: 'string' },
    concurrency: { type: 'string', default: '32' },
    out: { type: 'string' },
    store: { type: 'string', default: 'memory' },
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const STORE = flags.store!;
const DURATION_S = flags.seconds ? Number(flags.seconds) : Number(flags.minutes ?? 10) * 60;
const CONCURRENCY = Number(flags.concurrency);
if (!(DURATION_S >= 20) || !(CONCURRENCY >= 1) || !['memory', 'embedded', 'postgres'].includes(STORE)) {
  process.stderr.write(
    'usage: npm run soak -- [--minutes N | --seconds N (>= 20)] [--concurrency N] [--out file.json]\n' +
      '       [--store memory | embedded | postgres [--database-url postgres://…/postgres]]\n',
  );
  process.exit(2);
}
const WINDOW_MS = 10_000;
/** A forced full GC stops the server for as long as it takes (seconds on a 1 GB heap): not too often. */
const GC_EVERY_S = DURATION_S >= 300 ? 60 : 30;
const MIXED_S = Math.max(10, Math.round((DURATION_S * 0.8) / 10) * 10);
const WARMUP_S = Math.min(60, Math.round(MIXED_S * 0.2));
const root = fileURLToPath(new URL('..', import.meta.url));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------------------------------------ the store

/** Connections the service may hold on PostgreSQL: its requests' pool (`DB_POOL_SIZE`, 10) and four of its own. */
const MAX_DB_CONNECTIONS = Number(process.env.DB_POOL_SIZE ?? 10) + 4;

/** The store the service runs on: its settings, its connections (PostgreSQL), and how to remove it afterwards. */
interface StoreUnderTest {
  env: Record<string, string>;
  connections?: () => Promise<number>;
  remove: () => Promise<void>;
}

async function storeUnderTest(): Promise<StoreUnderTest> {
  if (STORE === 'embedded') {
    const dir = mkdtempSync(join(tmpdir(), 'pm-soak-'));
    return { env: { DATA_DIR: join(dir, 'data') }, remove: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (STORE === 'postgres') {
    // The benches' databases: made on the server `BENCH_PG_URL` names, which the module reads once, at its import.
    process.env.BENCH_PG_URL = flags['database-url'];
    const { admin, dropDatabase, emptyDatabase } = await import('../bench/lib/pg.ts');
    const db = await emptyDatabase();
    return {
      env: { DATABASE_URL: db.url },
      connections: () =>
        admin(async (c) => {
          const sql = 'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1';
          return (await c.query<{ n: number }>(sql, [db.name])).rows[0]!.n;
        }),
      remove: () => dropDatabase(db.name),
    };
  }
  return { env: {}, remove: async () => {} };
}

// ------------------------------------------------------------------------------------------------ receivers

async function receiver(
  behaviour: 'ok' | 'slow' | 'failing' | 'hang',
): Promise<{ url: string; server: Server; count: () => number }> {
  let count = 0;
  const server = createServer((req, res) => {
    count++;
    req.resume();
    req.on('end', () => {
      if (behaviour === 'ok') res.writeHead(204).end();
      else if (behaviour === 'failing') res.writeHead(500).end('no');
      else if (behaviour === 'slow') setTimeout(() => res.writeHead(200).end('ok'), 1_500).unref();
      // 'hang': never answers; the service times the attempt out.
    });
    res.on('error', () => {});
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/${behaviour}`, server, count: () => count };
}

// ------------------------------------------------------------------------------------------------ the server

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

interface Service {
  child: ChildProcess;
  base: string;
  inspectorUrl: string;
  logLines: () => { total: number; byLevel: Record<string, number>; last: string[] };
  exited: Promise<number | null>;
}

async function startService(storeEnv: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const { DATABASE_URL: _url, DATA_DIR: _dir, ...inherited } = process.env;
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--inspect=127.0.0.1:0', '--import', 'tsx', 'src/server.ts', '--port', String(port)],
    {
      cwd: root,
      env: {
        ...inherited,
        ...storeEnv,
        LOG_LEVEL: 'warn',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_SCHEDULE: '200ms,1s,2s',
        WEBHOOK_TIMEOUT_MS: '2000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Logs are counted by level and the last few kept: a long run must not hold them all.
  const byLevel: Record<string, number> = {};
  const last: string[] = [];
  let total = 0;
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    const lines = (partial + d).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      total++;
      const level = /"level":(\d+)/.exec(line)?.[1] ?? '?';
      byLevel[level] = (byLevel[level] ?? 0) + 1;
      if (level !== '40' || last.length < 5) last.push(line.slice(0, 300));
      if (last.length > 20) last.shift();
    }
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-5_000)));

  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const up = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    const inspector = /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
    if (up && inspector)
      return {
        child,
        base,
        inspectorUrl: inspector,
        exited,
        logLines: () => ({ total, byLevel: { ...byLevel }, last: [...last] }),
      };
    await sleep(200);
  }
  child.kill('SIGKILL');
  throw new Error(`the service did not start:\n${stderr}`);
}

/** Evaluates an expression in the server process through its inspector (loopback only, this run only). */
class Inspector {
  private ws!: WebSocket;
  private next = 1;
  private readonly pending = new Map<number, (v: unknown) => void>();

  async connect(url: string): Promise<void> {
    this.ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      this.ws.addEventListener('open', () => resolve());
      this.ws.addEventListener('error', () => reject(new Error(`inspector: cannot connect to ${url}`)));
    });
    this.ws.addEventListener('message', (e) => {
      const msg = JSON.parse(String(e.data)) as { id?: number; result?: { result?: { value?: unknown } } };
      if (msg.id !== undefined) this.pending.get(msg.id)?.(msg.result?.result?.value);
    });
  }

  evaluate<T>(expression: string): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve) => {
      this.pending.set(id, (v) => {
        this.pending.delete(id);
        resolve(JSON.parse(String(v)) as T);
      });
      this.ws.send(JSON.stringify({ id, method: 'Runtime.evaluate', params: { expression } }));
    });
  }

  /** Heap used (and RSS) of the server process; after a full GC when `gc` is set. */
  memory(gc: boolean): Promise<{ heapUsed: number; heapTotal: number; external: number; rss: number }> {
    return this.evaluate(`(${gc ? 'globalThis.gc(), ' : ''}JSON.stringify(process.memoryUsage()))`);
  }

  close(): void {
    this.ws.close();
  }
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024;
}

// ------------------------------------------------------------------------------------------------ traffic

interface Window {
  start: number;
  latencies: number[];
  expected4xx: number;
  errors: number;
}

const stats = {
  windows: [] as Window[],
  total: 0,
  byOp: new Map<string, number>(),
  byStatus: new Map<number, number>(),
  errors: [] as string[],
  errorCount: 0,
};
let runStart = 0;
function windowAt(now: number): Window {
  const i = Math.floor((now - runStart) / WINDOW_MS);
  while (stats.windows.length <= i)
    stats.windows.push({ start: stats.windows.length * WINDOW_MS, latencies: [], expected4xx: 0, errors: 0 });
  return stats.windows[i]!;
}

class UnexpectedAnswer extends Error {}

interface Answer {
  status: number;
  body: any;
  etag: string | undefined;
}

// eslint-disable-next-line prefer-const -- assigned once the service has started, below
let pool: Pool;

/** One request; its status must be one of `expect`. */
async function call(
  op: string,
  method: string,
  path: string,
  expect: number[],
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const started = performance.now();
  let status = 0;
  let text: string;
  let etag: string | undefined;
  try {
    const res = await pool.request({
      method: method as 'GET',
      path,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    status = res.statusCode;
    etag = res.headers.etag as string | undefined;
    text = await res.body.text();
  } catch (err) {
    text = `network error: ${(err as Error).message}`;
  }
  const ms = performance.now() - started;
  const w = windowAt(performance.now());
  w.latencies.push(ms);
  stats.total++;
  stats.byOp.set(op, (stats.byOp.get(op) ?? 0) + 1);
  stats.byStatus.set(status, (stats.byStatus.get(status) ?? 0) + 1);
  if (!expect.includes(status)) {
    w.errors++;
    stats.errorCount++;
    if (stats.errors.length < 20) stats.errors.push(`${op}: ${method} ${path} → ${status} ${text.slice(0, 200)}`);
    throw new UnexpectedAnswer();
  }
  if (status >= 400) w.expected4xx++;
  return { status, body: text === '' || !text.startsWith('{') ? undefined : JSON.parse(text), etag };
}

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const USERS = ['alice', 'bob', 'carol'];
const SEEDED = {
  projects: ['proj_001', 'proj_002', 'proj_003', 'proj_004', 'proj_005'],
  tasks: Array.from({ length: 10 }, (_, i) => `task_${String(i + 1).padStart(3, '0')}`),
  teams: ['team_001', 'team_002', 'team_003'],
  comments: Array.from({ length: 6 }, (_, i) => `cmt_${String(i + 1).padStart(3, '0')}`),
  milestones: Array.from({ length: 5 }, (_, i) => `ms_${String(i + 1).padStart(3, '0')}`),
  'time-entries': Array.from({ length: 7 }, (_, i) => `te_${String(i + 1).padStart(3, '0')}`),
};
const webhookIds: string[] = [];

/** Reads: lists with filters, records, conditional GETs, the activity log, delivery logs. */
async function read(): Promise<void> {
  const r = Math.random();
  if (r < 0.25) {
    const [name, ids] = pick(Object.entries(SEEDED));
    await call('read-record', 'GET', `/api/${name}/${pick(ids)}`, [200]);
  } else if (r < 0.35) {
    const path = `/api/tasks/${pick(SEEDED.tasks)}`;
    const first = await call('read-conditional', 'GET', path, [200]);
    await call('read-conditional', 'GET', path, [200, 304], undefined, { 'if-none-match': first.etag ?? '"x"' });
  } else if (r < 0.7) {
    const lists = [
      '/api/projects?status=active',
      '/api/tasks?projectId=proj_002',
      `/api/tasks?assignee=${pick(USERS)}`,
      '/api/tasks?status=todo',
      '/api/teams',
      '/api/comments?targetType=task',
      '/api/milestones?projectId=proj_001',
      '/api/time-entries?username=bob',
      '/api/webhooks?active=true',
      `/api/notifications?username=${pick(USERS)}&read=false`,
      '/api/projects',
      '/api/milestones',
    ];
    await call('read-list', 'GET', pick(lists), [200]);
  } else if (r < 0.9) {
    const q = pick([
      'limit=50',
      'resourceType=task&limit=20',
      'actor=alice&limit=20',
      'action=task.created&limit=10',
      'since=2026-09-01&until=2026-10-31',
    ]);
    await call('read-activity', 'GET', `/api/activity-log?${q}`, [200]);
  } else {
    // The newest 100 attempts, as a client pages them: a durable store keeps every attempt for days.
    await call('read-deliveries', 'GET', `/api/webhooks/${pick(webhookIds)}/deliveries?limit=100`, [200]);
  }
}

/** Requests refused on purpose: each expects its 4xx. */
async function refused(): Promise<void> {
  const r = Math.random();
  if (r < 0.3) await call('refused', 'POST', '/api/tasks', [400], { projectId: 'proj_002', title: '', hours: '2' });
  else if (r < 0.5) await call('refused', 'GET', `/api/tasks/task_missing${Math.floor(Math.random() * 1e6)}`, [404]);
  else if (r < 0.7)
    await call(
      'refused',
      'PATCH',
      `/api/tasks/${pick(SEEDED.tasks)}`,
      [412],
      { status: 'done' },
      { 'if-match': '"stale"' },
    );
  else if (r < 0.85)
    await call('refused', 'POST', '/api/webhooks', [400], { url: 'https://x.example', events: ['nope'] });
  else await call('refused', 'PUT', '/api/activity-log/act_001', [405], { action: 'x' });
}

/**
 * A project's whole life: created, given tasks (one reassigned, one done), comments, time entries and a milestone
 * reached, updated, then deleted with everything in it. Actors are the assignees so no notification is left behind.
 */
async function lifecycle(): Promise<void> {
  const who = pick(USERS);
  const as = { 'x-actor': who };
  const project = await call(
    'lifecycle',
    'POST',
    '/api/projects',
    [201],
    { name: `Soak ${Date.now()}`, description: 'soak' },
    as,
  );
  const pid = project.body.data.id as string;
  try {
    const tasks: string[] = [];
    for (let i = 0; i < 2; i++) {
      const task = await call(
        'lifecycle',
        'POST',
        '/api/tasks',
        [201],
        { projectId: pid, title: `Task ${i}`, assignee: who, priority: pick(['low', 'high']) },
        as,
      );
      tasks.push(task.body.data.id);
    }
    const t0 = tasks[0]!;
    const read = await call('lifecycle', 'GET', `/api/tasks/${t0}`, [200]);
    await call(
      'lifecycle',
      'PATCH',
      `/api/tasks/${t0}`,
      [200],
      { status: 'in_progress', description: 'started' },
      { ...as, 'if-match': read.etag! },
    );
    await call('lifecycle', 'PATCH', `/api/tasks/${tasks[1]}`, [200], { status: 'done' }, as);
    const comment = await call(
      'lifecycle',
      'POST',
      '/api/comments',
      [201],
      { targetType: 'task', targetId: t0, author: who, body: 'On it' },
      as,
    );
    await call('lifecycle', 'PATCH', `/api/comments/${comment.body.data.id}`, [200], { body: 'On it, really' }, as);
    await call('lifecycle', 'POST', '/api/time-entries', [201], { taskId: t0, username: who, hours: 1.5 }, as);
    const ms = await call('lifecycle', 'POST', '/api/milestones', [201], { projectId: pid, title: 'Beta' }, as);
    await call('lifecycle', 'PATCH', `/api/milestones/${ms.body.data.id}`, [200], { status: 'reached' }, as);
    await call('lifecycle', 'PUT', `/api/projects/${pid}`, [200], { name: 'Soak (done)', status: 'completed' }, as);
    await call('lifecycle', 'GET', `/api/tasks?projectId=${pid}`, [200]);
    await call('lifecycle', 'DELETE', `/api/tasks/${tasks[1]}`, [200], undefined, as);
  } finally {
    await call('lifecycle', 'DELETE', `/api/projects/${pid}`, [200], undefined, as);
  }
}

/** A notification's life: created, read, marked read (with If-Match), deleted. Nothing of it is logged. */
async function notification(): Promise<void> {
  const user = `soak-${Math.random().toString(36).slice(2)}`;
  const n = await call('notification', 'POST', '/api/notifications', [201], {
    username: user,
    type: 'project_updated',
    message: 'Soak',
    resourceType: 'project',
    resourceId: 'proj_001',
  });
  const id = n.body.data.id as string;
  try {
    const got = await call('notification', 'GET', `/api/notifications/${id}`, [200]);
    await call('notification', 'PATCH', `/api/notifications/${id}/read`, [200], undefined, { 'if-match': got.etag! });
    await call('notification', 'GET', `/api/notifications?username=${user}&read=true`, [200]);
    await call('notification', 'PATCH', `/api/notifications/read-all?username=${user}`, [200]);
  } finally {
    await call('notification', 'DELETE', `/api/notifications/${id}`, [200]);
  }
}

async function ping(): Promise<void> {
  await call('ping', 'POST', `/api/webhooks/${pick(webhookIds)}/ping`, [202]);
}

type Phase = 'mixed' | 'store-nothing';

async function worker(deadline: number, phase: () => Phase): Promise<void> {
  while (performance.now() < deadline) {
    const r = Math.random();
    try {
      if (phase() === 'mixed') {
        if (r < 0.55) await read();
        else if (r < 0.8) await lifecycle();
        else if (r < 0.9) await notification();
        else if (r < 0.97) await refused();
        else await ping();
      } else if (r < 0.75) await read();
      else if (r < 0.88) await notification();
      else if (r < 0.97) await refused();
      else await ping();
    } catch (err) {
      if (!(err instanceof UnexpectedAnswer)) throw err;
    }
  }
}

// ------------------------------------------------------------------------------------------------ measuring

interface Sample {
  t: number;
  phase: Phase;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  heapAfterGc?: number;
  activity?: number;
  records?: number;
  /** The service's connections to its database (PostgreSQL). */
  dbConnections?: number;
}

async function storeSizes(): Promise<{ activity: number; records: number }> {
  const get = async (path: string) =>
    (await (await fetch(`${service.base}${path}`)).json()) as { count: number; total?: number };
  const activity = (await get('/api/activity-log?limit=0')).total!;
  let records = 0;
  for (const name of [
    'projects',
    'tasks',
    'teams',
    'comments',
    'milestones',
    'time-entries',
    'webhooks',
    'notifications',
  ])
    records += (await get(`/api/${name}`)).count;
  return { activity, records };
}

/** Heap cost of one activity entry in isolation: copies of the service's own entries in a MemoryActivityLog. */
async function activityEntryCost(): Promise<number | undefined> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return undefined;
  const sample = (
    (await (await fetch(`${service.base}/api/activity-log?limit=500`)).json()) as { data: ActivityEntry[] }
  ).data;
  const n = 50_000;
  gc();
  const before = process.memoryUsage().heapUsed;
  const log = new MemoryActivityLog<ActivityEntry>();
  const t0 = Date.parse('2027-01-01T00:00:00.000Z');
  for (let i = 0; i < n; i++) {
    const entry = JSON.parse(JSON.stringify(sample[i % sample.length])) as ActivityEntry;
    // As in the run, each resource has a few entries (created, updated, …, deleted): its own index bucket.
    const resourceId = `${entry.resourceId}_${Math.floor(i / 4)}`;
    await log.append({
      ...entry,
      id: `act_${String(i).padStart(16, 'x')}`,
      resourceId,
      timestamp: new Date(t0 + i).toISOString(),
    });
  }
  gc();
  const cost = (process.memoryUsage().heapUsed - before) / n;
  if ((await log.count()) !== n) throw new Error('baseline log lost entries');
  return cost;
}

const pct = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const mb = (bytes: number | undefined) =>
  bytes === undefined || Number.isNaN(bytes) ? '' : (bytes / 1_048_576).toFixed(1);

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? NaN : num / den;
}

// ------------------------------------------------------------------------------------------------ the run

const receivers = await Promise.all((['ok', 'slow', 'failing', 'hang'] as const).map(receiver));
const store = await storeUnderTest();
const service = await startService(store.env).catch(async (error: unknown) => {
  await store.remove();
  throw error;
});
const inspector = new Inspector();
await inspector.connect(service.inspectorUrl);
pool = new Pool(service.base, { connections: CONCURRENCY, pipelining: 1 });

// The sample webhooks point at reserved hosts: switched off, so that only the soak's receivers are called.
for (const id of ['wh_001', 'wh_002', 'wh_003', 'wh_004']) {
  await fetch(`${service.base}/api/webhooks/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: '{"active":false}',
  });
}
const SUBSCRIPTIONS: Record<string, string[]> = {
  ok: ['*'],
  slow: ['project.created', 'task.created'],
  failing: ['task.updated', 'comment.created'],
  hang: ['milestone.reached'],
};
for (const r of receivers) {
  const events = SUBSCRIPTIONS[r.url.split('/').pop()!]!;
  const res = await fetch(`${service.base}/api/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: r.url, events, description: `soak receiver: ${r.url}` }),
  });
  webhookIds.push(((await res.json()) as { data: { id: string } }).data.id);
}
const initial = await storeSizes();

process.stdout.write(
  `soak: ${DURATION_S} s against pid ${service.child.pid} (${service.base}), ${CONCURRENCY} concurrent clients; ` +
    `mixed traffic for ${MIXED_S} s (warm-up ${WARMUP_S} s), then traffic that stores nothing for ${DURATION_S - MIXED_S} s\n`,
);
process.stdout.write(
  `heap/GC: heap used after a forced full GC; * marks a window that includes the pause of the GC forced at its start\n`,
);
process.stdout.write(
  `${'t (s)'.padStart(6)} ${'phase'.padEnd(13)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'max ms'.padStart(7)} ${'4xx ok'.padStart(7)} ${'errors'.padStart(6)} ${'RSS MB'.padStart(7)} ${'heap MB'.padStart(7)} ${'heap/GC'.padStart(7)} ${'activity'.padStart(9)} ${'records'.padStart(7)}\n`,
);

runStart = performance.now();
const deadline = runStart + DURATION_S * 1_000;
const phaseAt = (now: number): Phase => (now - runStart < MIXED_S * 1_000 ? 'mixed' : 'store-nothing');
const samples: Sample[] = [];
const QUIET_MID_S = MIXED_S + Math.round((DURATION_S - MIXED_S) / 20) * 10;
/** Heap after GC: every GC_EVERY_S of the mixed phase, at its end, and at the middle and end of the quiet phase. */
const gcDue = (t: number) =>
  (t < MIXED_S && t % GC_EVERY_S === 10) || t === MIXED_S || t === QUIET_MID_S || t >= DURATION_S;
/** Windows whose latencies include the pause of a forced GC (the one sampled at their start). */
const disturbed = new Set<number>();

const sampler = (async () => {
  for (let i = 1; runStart + i * WINDOW_MS <= deadline + 1; i++) {
    await sleep(Math.max(0, runStart + i * WINDOW_MS - performance.now()));
    const now = performance.now();
    const t = Math.round((now - runStart) / 1_000);
    const phase = phaseAt(runStart + (i - 0.5) * WINDOW_MS); // the window's, not the sampling moment's
    const doGc = gcDue(t);
    const heap = await inspector.memory(false);
    const sample: Sample = {
      t,
      phase,
      rss: rssOf(service.child.pid!),
      heapUsed: heap.heapUsed,
      heapTotal: heap.heapTotal,
      external: heap.external,
      ...(store.connections ? { dbConnections: await store.connections() } : {}),
    };
    if (doGc) {
      disturbed.add(i); // the pause delays requests of the next window (index i)
      sample.heapAfterGc = (await inspector.memory(true)).heapUsed;
      Object.assign(sample, await storeSizes());
    }
    samples.push(sample);
    const w = stats.windows[i - 1] ?? { latencies: [], expected4xx: 0, errors: 0, start: 0 };
    const mark = disturbed.has(i - 1) ? '*' : ' ';
    const sorted = [...w.latencies].sort((a, b) => a - b);
    process.stdout.write(
      `${String(t).padStart(6)}${mark}${phase.padEnd(13)} ${(w.latencies.length / (WINDOW_MS / 1_000)).toFixed(0).padStart(7)} ` +
        `${pct(sorted, 50).toFixed(1).padStart(7)} ${pct(sorted, 99).toFixed(1).padStart(7)} ${(sorted[sorted.length - 1] ?? NaN).toFixed(0).padStart(7)} ` +
        `${String(w.expected4xx).padStart(7)} ${String(w.errors).padStart(6)} ${mb(sample.rss).padStart(7)} ${mb(sample.heapUsed).padStart(7)} ` +
        `${mb(sample.heapAfterGc).padStart(7)} ${String(sample.activity ?? '').padStart(9)} ${String(sample.records ?? '').padStart(7)}\n`,
    );
  }
})();

await Promise.all(Array.from({ length: CONCURRENCY }, () => worker(deadline, () => phaseAt(performance.now()))));
await sampler;
const elapsedS = (performance.now() - runStart) / 1_000;

// The end state: every record the traffic created is gone again; the queue is at its bound or below.
const final = await storeSizes();
const deliveriesKept = await Promise.all(
  webhookIds.map(async (id) =>
    Number((await fetch(`${service.base}/api/webhooks/${id}/deliveries?limit=1`)).headers.get('x-total-count')),
  ),
);
// What an activity entry costs in memory: only the memory store keeps them in the process.
const entryCost = STORE === 'memory' ? await activityEntryCost() : undefined;
await pool.close();
inspector.close();

const stopAt = performance.now();
service.child.kill('SIGTERM');
const exitCode = await Promise.race([service.exited, sleep(15_000).then(() => 'timeout' as const)]);
const stopMs = performance.now() - stopAt;
if (exitCode === 'timeout') service.child.kill('SIGKILL');
await store.remove();
for (const r of receivers) {
  r.server.closeAllConnections();
  r.server.close();
}

// ------------------------------------------------------------------------------------------------ the verdict

const all = stats.windows.flatMap((w) => w.latencies).sort((a, b) => a - b);
const gcd = samples.filter((s) => s.heapAfterGc !== undefined);
const steady = gcd.filter((s) => s.phase === 'mixed' && s.t >= WARMUP_S);
const quiet = gcd.filter((s) => s.t >= MIXED_S);
const perEntry = slope(steady.map((s) => [s.activity!, s.heapAfterGc!]));
const quietSlopePerMin = slope(quiet.map((s) => [s.t / 60, s.heapAfterGc!]));
const quietSpan = quiet.length > 1 ? quiet[quiet.length - 1]!.heapAfterGc! - quiet[0]!.heapAfterGc! : NaN;
const rssSteady = samples.filter((s) => s.t >= WARMUP_S);
const windowP99 = stats.windows
  .filter((w) => w.latencies.length > 0)
  .map((w) =>
    pct(
      [...w.latencies].sort((a, b) => a - b),
      99,
    ),
  );
const undisturbedP99 = stats.windows
  .filter((w, i) => w.latencies.length > 0 && !disturbed.has(i))
  .map((w) =>
    pct(
      [...w.latencies].sort((a, b) => a - b),
      99,
    ),
  );

// On a durable store the traffic's records, activity entries and delivery attempts are in the database: the heap
// after GC may not grow while the traffic stores either (the first steady sample against the last of the phase).
const steadySpan = steady.length > 1 ? steady[steady.length - 1]!.heapAfterGc! - steady[0]!.heapAfterGc! : NaN;
const dbConnections = samples.flatMap((s) => (s.dbConnections === undefined ? [] : [s.dbConnections]));
const checks = {
  noUnexpectedAnswers: stats.errorCount === 0,
  recordsBackToStart: final.records === initial.records,
  heapFlatWhenNothingIsStored: !(quietSpan > 5 * 1_048_576),
  ...(STORE === 'memory'
    ? {
        deliveryLogBounded: deliveriesKept.every((n) => n <= 100),
        heapGrowthExplainedByActivityEntries:
          entryCost === undefined || Number.isNaN(perEntry) || perEntry <= 2 * entryCost + 256,
      }
    : { heapFlatWhileStoring: !(steadySpan > 16 * 1_048_576) }),
  ...(STORE === 'postgres' ? { connectionsWithinPools: Math.max(...dbConnections) <= MAX_DB_CONNECTIONS } : {}),
  cleanShutdown: exitCode === 0,
};

const result = {
  store: STORE,
  durationS: Math.round(elapsedS),
  concurrency: CONCURRENCY,
  requests: stats.total,
  requestsPerSecond: Math.round(stats.total / elapsedS),
  latencyMs: {
    p50: pct(all, 50),
    p99: pct(all, 99),
    max: all[all.length - 1],
    p99PerWindow: { min: Math.min(...windowP99), max: Math.max(...windowP99) },
    p99PerWindowWithoutForcedGc: { min: Math.min(...undisturbedP99), max: Math.max(...undisturbedP99) },
  },
  byOperation: Object.fromEntries(stats.byOp),
  byStatus: Object.fromEntries([...stats.byStatus].sort(([a], [b]) => a - b)),
  unexpectedAnswers: stats.errorCount,
  firstUnexpected: stats.errors,
  records: { initial, final },
  deliveriesKeptPerWebhook: deliveriesKept,
  receiverCalls: Object.fromEntries(receivers.map((r) => [r.url.split('/').pop(), r.count()])),
  memory: {
    rssMB: {
      afterWarmup: mb(rssSteady[0]?.rss),
      end: mb(samples[samples.length - 1]?.rss),
      max: mb(Math.max(...samples.map((s) => s.rss))),
    },
    heapTotalMB: { afterWarmup: mb(rssSteady[0]?.heapTotal), end: mb(samples[samples.length - 1]?.heapTotal) },
    externalMB: { afterWarmup: mb(rssSteady[0]?.external), end: mb(samples[samples.length - 1]?.external) },
    heapAfterGcMB: gcd.map((s) => ({ t: s.t, phase: s.phase, heapMB: mb(s.heapAfterGc), activity: s.activity })),
    heapBytesPerStoredActivityEntry: Math.round(perEntry),
    activityEntryCostInIsolation: entryCost === undefined ? null : Math.round(entryCost),
    storeNothingPhase: { heapChangeMB: mb(quietSpan), slopeMBPerMinute: (quietSlopePerMin / 1_048_576).toFixed(2) },
    steadyMixedPhase: { heapChangeMB: mb(steadySpan) },
  },
  ...(dbConnections.length > 0
    ? { dbConnections: { max: Math.max(...dbConnections), bound: MAX_DB_CONNECTIONS } }
    : {}),
  serverLog: service.logLines(),
  shutdown: { exitCode, ms: Math.round(stopMs) },
  checks,
  samples,
};

const ok = Object.values(checks).every(Boolean);
process.stdout.write(
  `\n${JSON.stringify({ ...result, samples: undefined }, null, 2)}\n\nsoak ${ok ? 'PASSED' : 'FAILED'}\n`,
);
if (flags.out) writeFileSync(flags.out, JSON.stringify(result, null, 2));
process.exit(ok ? 0 : 1);

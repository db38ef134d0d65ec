/**
 * The webhook outbox under load (`npm run bench:webhooks`), judged against the outbox's targets. The service is the
 * built `dist/server.js` in a child process pinned to core 0 (as `npm run bench` runs it: `taskset`, LOG_LEVEL=warn,
 * WEBHOOK_ALLOW_PRIVATE=true so it may call receivers on 127.0.0.1, the seeded webhooks switched off); the load
 * generator (autocannon) and the receivers are this process, on the other core. On PostgreSQL each service gets a
 * fresh copy of a seeded database, created and dropped by the bench (server: `--database-url`, default
 * postgres://postgres@127.0.0.1:5432, its `postgres` database used for CREATE and DROP).
 * 1. throughput: `POST /api/tasks` saturating at `--connections`, with no webhook against one healthy receiver's
 *    webhook subscribed to `task.created` (its outbox row written in the create's transaction); one service and
 *    database per round, the webhook switched on and off between the two measurements, which goes first alternating
 *    by round. Reported: req/s, p99, the CPU of the service and of PostgreSQL, the deliveries made by the end of
 *    the measurement and in all, and the median of the rounds' ratios: of the creates alone, and counting only the
 *    creates delivered by the end of the measurement (a rate whose deliveries fall behind is not kept up). Target
 *    ≥ 0.8 on the second.
 * 2. delay: with the healthy receiver subscribed, `POST /api/tasks` at a fixed `--rate` (500/s) for `--seconds`;
 *    the receiver notes, for each event, its arrival minus the payload's `timestamp` (taken just before the commit:
 *    an upper bound of commit-to-receiver), counts events by `webhook-id` (none may arrive twice) and checks that
 *    each carries a `webhook-signature` header (presence only). Target p99 ≤ 100 ms.
 * 3. fairness: a receiver that never answers and a healthy one side by side, each subscribed to `task.created`,
 *    `POST /api/tasks` at `--rate`; the healthy one's delay. Target p99 < 1 s. On the memory store and on
 *    PostgreSQL (`--fairness-store`).
 *
 *   npm run bench:webhooks                                  # 3 rounds × 10 s, 500/s: bench/results/webhooks-pg.json
 *   npm run bench:webhooks -- --seconds 3 --rounds 1        # a smoke run (bench/results/webhooks-pg.tmp)
 *   npm run bench:webhooks -- --section delay --rate 1000   # one section (throughput, delay, fairness), another rate
 *   npm run bench:webhooks -- --fairness-store memory       # fairness on the memory store only
 *   npm run bench:webhooks -- --no-build                    # run the dist/ already built
 *   npm run bench:webhooks -- --dist dist-before            # run a saved build instead (a before/after)
 */
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { quietMeasure } from './lib/compare.ts';
import { freePort, serviceDist, serviceSpec } from './lib/fleet.ts';
import { median } from './lib/load.ts';
import { machine } from './lib/report.ts';
import { ROUTES } from './lib/routes.ts';
import { HOST, QUIET, cpuWatch, pinSelf, start, stop, type Running } from './lib/servers.ts';
import { SEEDED, call, hangingReceiver } from './lib/webhooks.ts';

const { values: a } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    rate: { type: 'string', default: '500' },
    section: { type: 'string', default: 'throughput,delay,fairness' },
    'fairness-store': { type: 'string', default: 'memory,postgres' },
    'database-url': { type: 'string' },
    out: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    /** Run this build of the service instead of building `dist/` (e.g. a copy of an earlier build). */
    dist: { type: 'string' },
    /** A setting for the service, `NAME=value` (repeatable), e.g. `--env WEBHOOK_CONCURRENCY_PER_WEBHOOK=8`. */
    env: { type: 'string', multiple: true, default: [] },
  },
});
const seconds = Number(a.seconds);
const rounds = Number(a.rounds);
const warmup = Number(a.warmup);
const connections = Number(a.connections);
const rate = Number(a.rate);
const sections = a.section!.split(',');
const fairnessStores = a['fairness-store']!.split(',').filter(Boolean) as ('memory' | 'postgres')[];
for (const s of fairnessStores)
  if (s !== 'memory' && s !== 'postgres') throw new Error(`--fairness-store: memory, postgres, not ${s}`);
if (a['database-url']) process.env.BENCH_PG_URL = a['database-url'];
// After BENCH_PG_URL is set: the module reads it once.
const { dropAll, dropDatabase, freshDatabase } = await import('./lib/pg.ts');

const full = seconds >= 10 && rounds >= 2;
const out = a.out ?? (full ? 'bench/results/webhooks-pg.json' : 'bench/results/webhooks-pg.tmp');
const log = (line: string) => process.stdout.write(`${line}\n`);
const TARGET = ROUTES.find((r) => r.name === 'POST /api/tasks')!.targets.service;
const ENV: Record<string, string> = {
  LOG_LEVEL: 'warn',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  ...Object.fromEntries(a.env!.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
};

// --- The healthy receiver -------------------------------------------------------------------------------------

interface Healthy {
  url: string;
  /** Arrival minus the event's `timestamp`, in ms, one per request received. */
  delays: number[];
  /** Requests per `webhook-id`. */
  ids: Map<string, number>;
  /** Requests received without a `webhook-signature` header. */
  unsigned: number;
  received: number;
  reset(): void;
  close(): Promise<void>;
}

async function healthyReceiver(): Promise<Healthy> {
  const port = await freePort();
  const r: Healthy = {
    url: `http://${HOST}:${port}/hook`,
    delays: [],
    ids: new Map(),
    unsigned: 0,
    received: 0,
    reset() {
      r.delays = [];
      r.ids = new Map();
      r.unsigned = 0;
      r.received = 0;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const now = Date.now();
      r.received++;
      const id = String(req.headers['webhook-id'] ?? '');
      r.ids.set(id, (r.ids.get(id) ?? 0) + 1);
      if (!req.headers['webhook-signature']) r.unsigned++;
      r.delays.push(now - Date.parse((JSON.parse(body) as { timestamp: string }).timestamp));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, HOST, resolve));
  return r;
}

/** Waits until the receiver has had nothing new for `quietMs` (the outbox drained), at most `maxMs`. */
async function drained(r: { received: number }, quietMs = 1_000, maxMs = 30_000): Promise<void> {
  const end = Date.now() + maxMs;
  let last = -1;
  let since = Date.now();
  while (Date.now() < end) {
    if (r.received !== last) {
      last = r.received;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return;
    await sleep(100);
  }
}

// --- The service ----------------------------------------------------------------------------------------------

interface Service {
  server: Running;
  cleanup: () => Promise<void>;
}

/** The service on a fresh PostgreSQL database (or the memory store), the seeded webhooks switched off. */
async function service(store: 'memory' | 'postgres'): Promise<Service> {
  const db = store === 'postgres' ? await freshDatabase() : undefined;
  const server = await start(await serviceSpec({ ...ENV, ...(db ? { DATABASE_URL: db.url } : {}) }));
  for (const id of SEEDED) await call(server, 'PATCH', `/api/webhooks/${id}`, { active: false });
  return {
    server,
    cleanup: async () => {
      await stop(server);
      if (db) await dropDatabase(db.name);
    },
  };
}

async function subscribe(server: Running, url: string): Promise<string> {
  const hook = (await call(server, 'POST', '/api/webhooks', { url, events: ['task.created'] })) as {
    data: { id: string };
  };
  return hook.data.id;
}

/** What a load run answers: as much of autocannon's result as the sections read, and the requests sent. */
interface Posted {
  requests: { total: number };
  duration: number;
  latency: { p99: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  sent: number;
}

/**
 * `POST /api/tasks` for `secs`: saturating from `connections` clients (autocannon), or, with `perSecond`, at that
 * rate spread evenly (an open loop: a request every 1/rate s, whatever the answers; autocannon's own rate limit
 * sends each second's requests in bursts, which a delay measurement would count as the service's).
 */
async function post(server: Running, secs: number, perSecond?: number): Promise<Posted> {
  if (perSecond) return paced(server, secs, perSecond);
  let n = 0;
  const result = await autocannon({
    url: server.url,
    connections,
    duration: secs,
    requests: [
      {
        method: 'POST',
        path: TARGET.path,
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: JSON.stringify(TARGET.body!(n++)) }),
      },
    ],
  });
  // Requests still in flight when autocannon stops are created but not counted in its `2xx`: `sent` counts them.
  return { ...result, sent: n };
}

async function paced(server: Running, secs: number, perSecond: number): Promise<Posted> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const url = new URL(TARGET.path, server.url);
  const latencies: number[] = [];
  const out = { ok: 0, non2xx: 0, errors: 0 };
  const send = (n: number) =>
    new Promise<void>((resolve) => {
      const body = JSON.stringify(TARGET.body!(n));
      const began = performance.now();
      const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - began);
          if (res.statusCode! >= 200 && res.statusCode! < 300) out.ok++;
          else out.non2xx++;
          resolve();
        });
      });
      req.on('error', () => {
        out.errors++;
        resolve();
      });
      req.end(body);
    });
  const start = performance.now();
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  for (;;) {
    const elapsed = performance.now() - start;
    if (elapsed >= secs * 1000) break;
    for (const due = Math.floor((elapsed / 1000) * perSecond); sent < due; sent++) {
      const p: Promise<void> = send(sent).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await sleep(1);
  }
  await Promise.all(inFlight);
  agent.destroy();
  const duration = (performance.now() - start) / 1000;
  return {
    requests: { total: latencies.length },
    duration,
    latency: { p99: Math.round(pct(latencies, 99)) },
    '2xx': out.ok,
    non2xx: out.non2xx,
    errors: out.errors,
    sent,
  };
}

const pct = (xs: readonly number[], p: number) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const r2 = (x: number) => Math.round(x * 100) / 100;
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT MET');

interface DelayFigures {
  /** Creates answered 201, and creates sent (those in flight at the end are created but not answered). */
  answered: number;
  sent: number;
  delivered: number;
  duplicates: number;
  unsigned: number;
  p50: number;
  p99: number;
  max: number;
}

function delayFigures(r: Healthy, answered: number, sent: number): DelayFigures {
  let duplicates = 0;
  for (const n of r.ids.values()) duplicates += n - 1;
  return {
    answered,
    sent,
    delivered: r.ids.size,
    duplicates,
    unsigned: r.unsigned,
    p50: pct(r.delays, 50),
    p99: pct(r.delays, 99),
    max: r.delays.length ? Math.max(...r.delays) : NaN,
  };
}
const delayLine = (d: DelayFigures) =>
  `${d.delivered} delivered (${d.answered} creates answered, ${d.sent} sent), ${d.duplicates} twice, ${d.unsigned} unsigned; p50 ${d.p50} ms, p99 ${d.p99} ms, max ${d.max} ms`;

// --- 1. Throughput --------------------------------------------------------------------------------------------

interface Side {
  rps: number;
  p99: number;
  cpu: number;
  db: number;
  others: number;
  non2xx: number;
  errors: number;
}
/** The side with the webhook: also the deliveries made by the end of the measurement, and in all. */
type HookSide = Side & { delivered: number; deliveredByEnd: number };

async function throughput() {
  log(`\n1. POST /api/tasks on PostgreSQL, ${connections} connections, saturating: no webhook vs one healthy receiver`);
  const receiver = await healthyReceiver();
  const runs: { round: number; first: string; none: Side; hook: HookSide }[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      const svc = await service('postgres');
      try {
        const { server } = svc;
        const hookId = await subscribe(server, receiver.url);
        if (warmup > 0) await post(server, warmup);
        await drained(receiver);
        const order: ('none' | 'hook')[] = round % 2 === 1 ? ['none', 'hook'] : ['hook', 'none'];
        const got: Partial<Record<'none' | 'hook', Side & Partial<HookSide>>> = {};
        for (const side of order) {
          await call(server, 'PATCH', `/api/webhooks/${hookId}`, { active: side === 'hook' });
          const { m, cpu, others, db } = await quietMeasure(server, TARGET, {
            connections,
            seconds,
            log,
            store: 'postgres',
            before: () => receiver.reset(),
          });
          // Delivered while the creates ran, against in all once the outbox drained: work left for after the
          // measurement is work it did not count, so a ratio whose deliveries fell behind flatters the webhook.
          const byEnd = receiver.ids.size;
          await drained(receiver);
          got[side] = { rps: m.rps, p99: m.p99, cpu: r2(cpu), db: r2(db ?? NaN), others: r2(others), ...bad(m) };
          if (side === 'hook') Object.assign(got.hook!, { delivered: receiver.ids.size, deliveredByEnd: byEnd });
          const s = got[side];
          log(
            `  round ${round} ${side === 'none' ? 'no webhook ' : 'one webhook'}: ${Math.round(m.rps)} req/s, p99 ${m.p99} ms, ` +
              `cpu service ${s.cpu.toFixed(2)}, PostgreSQL ${s.db.toFixed(2)}` +
              (side === 'hook'
                ? `; ${byEnd} delivered by its end, ${receiver.ids.size} in all (~${Math.round(m.rps * seconds)} created)`
                : '') +
              (m.non2xx + m.errors > 0 ? `  (${m.non2xx} non-2xx, ${m.errors} errors)` : '') +
              (others >= QUIET ? `  [other processes used ${others.toFixed(2)} cores: noisy]` : ''),
          );
        }
        runs.push({
          round,
          first: order[0]!,
          none: got.none!,
          hook: got.hook as HookSide,
        });
      } finally {
        await svc.cleanup();
      }
    }
  } finally {
    await receiver.close();
  }
  // The ratio the target reads counts the creates whose deliveries were made by the end of the measurement: a
  // rate whose deliveries fall behind cannot be kept up. The creates' own ratio is reported beside it.
  const sustained = (r: (typeof runs)[number]) => Math.min(r.hook.rps, r.hook.deliveredByEnd / seconds);
  const ratios = runs.map((r) => sustained(r) / r.none.rps);
  const createRatios = runs.map((r) => r.hook.rps / r.none.rps);
  const ratio = Math.round(median(ratios) * 1000) / 1000;
  const createRatio = Math.round(median(createRatios) * 1000) / 1000;
  const med = (side: 'none' | 'hook', k: keyof Side) => median(runs.map((r) => r[side][k]));
  const list = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(', ');
  log(
    `  median: no webhook ${Math.round(med('none', 'rps'))} req/s (p99 ${med('none', 'p99')} ms), ` +
      `one webhook ${Math.round(med('hook', 'rps'))} req/s (p99 ${med('hook', 'p99')} ms); ` +
      `ratio of the creates (median of the rounds' ${list(createRatios)}): ${createRatio.toFixed(2)}; ` +
      `counting only the creates delivered by the end (${list(ratios)}): ${ratio.toFixed(2)}, target ≥ 0.8: ${verdict(ratio >= 0.8)}`,
  );
  return {
    runs: runs.map((r) => ({
      ...r,
      none: { ...r.none, rps: Math.round(r.none.rps) },
      hook: { ...r.hook, rps: Math.round(r.hook.rps), sustained: Math.round(sustained(r)) },
    })),
    createRatios: createRatios.map((x) => Math.round(x * 1000) / 1000),
    createRatio,
    ratios: ratios.map((x) => Math.round(x * 1000) / 1000),
    ratio,
    met: ratio >= 0.8,
  };
}

const bad = (m: { non2xx: number; errors: number }) => ({ non2xx: m.non2xx, errors: m.errors });

// --- 2. Delay at a fixed rate ---------------------------------------------------------------------------------

async function delay() {
  log(`\n2. commit → receiver on PostgreSQL: POST /api/tasks at ${rate}/s for ${seconds} s, one healthy receiver`);
  const receiver = await healthyReceiver();
  const svc = await service('postgres');
  try {
    const { server } = svc;
    await subscribe(server, receiver.url);
    if (warmup > 0) await post(server, warmup, rate);
    await drained(receiver);
    receiver.reset();
    const watch = cpuWatch(server.child.pid, true);
    const res = await post(server, seconds, rate);
    const usage = watch();
    const posted = { rps: r2(res.requests.total / res.duration), p99: res.latency.p99, ...bad(res) };
    await drained(receiver);
    const d = delayFigures(receiver, res['2xx'], res.sent);
    const met =
      d.p99 <= 100 && d.delivered >= d.answered && d.delivered <= d.sent && d.duplicates === 0 && d.unsigned === 0;
    log(
      `  ${posted.rps} POST/s (p99 ${posted.p99} ms${posted.non2xx + posted.errors > 0 ? `, ${posted.non2xx} non-2xx, ${posted.errors} errors` : ''}), ` +
        `cpu service ${usage.cpu.toFixed(2)}, PostgreSQL ${(usage.db ?? NaN).toFixed(2)}, others ${usage.others.toFixed(2)}` +
        `\n  ${delayLine(d)}\n  target p99 ≤ 100 ms, all delivered once, signed: ${verdict(met)}`,
    );
    return {
      rate,
      posted,
      cpu: r2(usage.cpu),
      db: r2(usage.db ?? NaN),
      others: r2(usage.others),
      ...d,
      met,
    };
  } finally {
    await svc.cleanup();
    await receiver.close();
  }
}

// --- 3. Fairness ----------------------------------------------------------------------------------------------

async function fairness(store: 'memory' | 'postgres') {
  log(`\n3. fairness on ${store}: a hanging and a healthy receiver, POST /api/tasks at ${rate}/s for ${seconds} s`);
  const hanging = await hangingReceiver();
  const healthy = await healthyReceiver();
  const svc = await service(store);
  try {
    const { server } = svc;
    await subscribe(server, `http://${HOST}:${hanging.port}/hook`);
    await subscribe(server, healthy.url);
    const watch = cpuWatch(server.child.pid, store === 'postgres');
    const res = await post(server, seconds, rate);
    const usage = watch();
    await drained(healthy);
    const d = delayFigures(healthy, res['2xx'], res.sent);
    const met = d.p99 < 1000 && d.delivered >= d.answered && d.delivered <= d.sent;
    log(
      `  ${r2(res.requests.total / res.duration)} POST/s, cpu service ${usage.cpu.toFixed(2)}` +
        (usage.db === undefined ? '' : `, PostgreSQL ${usage.db.toFixed(2)}`) +
        `, hanging receiver holding ${hanging.requests()} requests on ${hanging.open()} connections\n  healthy: ${delayLine(d)}\n  target healthy p99 < 1 s: ${verdict(met)}`,
    );
    return {
      store,
      rps: r2(res.requests.total / res.duration),
      cpu: r2(usage.cpu),
      hangingRequests: hanging.requests(),
      hangingOpen: hanging.open(),
      ...d,
      met,
    };
  } finally {
    await svc.cleanup();
    hanging.close();
    await healthy.close();
  }
}

// --- Main -----------------------------------------------------------------------------------------------------

log(`pinning: ${pinSelf()}`);
if (a.dist) serviceDist.dir = a.dist;
else if (!a['no-build']) {
  log('building: npm run build');
  execSync('npm run build --silent', { stdio: 'inherit' });
}
const loadBefore = loadavg().map(r2);
log(`load average before: ${loadBefore.join(', ')}`);
const results: Record<string, unknown> = {};
try {
  if (sections.includes('throughput')) results.throughput = await throughput();
  if (sections.includes('delay')) results.delay = await delay();
  if (sections.includes('fairness')) {
    const all = [];
    for (const store of fairnessStores) all.push(await fairness(store));
    results.fairness = all;
  }
} finally {
  await dropAll();
}
const loadAfter = loadavg().map(r2);
log(`\nload average after: ${loadAfter.join(', ')}`);
mkdirSync('bench/results', { recursive: true });
const command = `npm run bench:webhooks -- ${process.argv.slice(2).join(' ')}`.trim().replace(/ --$/, '');
writeFileSync(
  out,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      command,
      machine: machine(),
      loadavg: { before: loadBefore, after: loadAfter },
      settings: { seconds, rounds, warmup, connections, rate },
      ...results,
    },
    null,
    1,
  )}\n`,
);
log(`written: ${out}`);

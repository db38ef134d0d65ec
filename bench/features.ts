/**
 * `npm run bench:profile`: what each part of the request path costs, on `GET /api/tasks/:id`,
 * `GET /api/tasks?limit=50` and `POST /api/tasks` (memory store): the service with everything on, then with each part
 * left out in turn (bench/servers/features.mjs; `AUTH=token` and `RATE_LIMIT` are added instead), the difference
 * being that part's cost per request. See bench/README.md, "What each part costs".
 *
 *   npm run bench:profile                           both measures: instructions, then time
 *   npm run bench:profile -- --measure instructions  callgrind only: instructions per request, the same on a busy
 *                                                    machine (run under valgrind, about 50× slower; parallel runs
 *                                                    with --jobs)
 *   npm run bench:profile -- --measure time          µs per request: all the variants started at once, each loaded
 *                                                    in turn (the order reversed every other round), paired by round
 *   --variants everything,cors                        only these (by key); --routes get,list,post
 *
 * Builds dist/ first (`--no-build` to skip). Results: bench/results/features-<measures>.json (.tmp for partial runs).
 */
import { spawn, execFileSync, execSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { freePort } from './lib/fleet.ts';
import { median, measure, type Target } from './lib/load.ts';
import { machine } from './lib/report.ts';
import { BENCH_ADMIN_TOKEN } from './lib/routes.ts';
import { cpuSeconds, HOST, pinSelf, start, stop, type Running } from './lib/servers.ts';

const { values: a } = parseArgs({
  options: {
    measure: { type: 'string', default: 'instructions,time' },
    variants: { type: 'string' },
    routes: { type: 'string', default: 'get,list,post' },
    /** Instructions: requests counted per route, after `warmup` not counted. */
    requests: { type: 'string', default: '1000' },
    /** Enough for V8 to have optimized a create's path: after 1,000, a `POST` still ran much of it as baseline code. */
    'warmup-requests': { type: 'string', default: '5000' },
    /** How many valgrind runs at once (instructions do not depend on load). */
    jobs: { type: 'string', default: '2' },
    /** How long a service may take to start under valgrind (minutes: on a busy machine, many). */
    'start-minutes': { type: 'string', default: '30' },
    /** Time: seconds per measurement, rounds, warm-up seconds per server and route. */
    duration: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '50' },
    'no-build': { type: 'boolean', default: false },
  },
});
const log = (line: string) => process.stdout.write(`${line}\n`);
const ADMIN_TOKEN = BENCH_ADMIN_TOKEN;

interface Variant {
  key: string;
  label: string;
  env: Record<string, string>;
  /** Requests carry the admin token. */
  token?: boolean;
}
const VARIANTS: Variant[] = [
  { key: 'everything', label: 'everything on (AUTH=none, no RATE_LIMIT)', env: {} },
  { key: 'request-id', label: 'request id', env: { BENCH_WITHOUT: 'request-id' } },
  { key: 'cors', label: 'CORS', env: { BENCH_WITHOUT: 'cors' } },
  { key: 'auth', label: 'auth and rate limit, both off', env: { BENCH_WITHOUT: 'auth' } },
  { key: 'logging', label: 'access log (LOG_LEVEL=warn)', env: { LOG_LEVEL: 'warn' } },
  { key: 'metrics', label: 'metrics (METRICS=false)', env: { METRICS: 'false' } },
  { key: 'validation', label: 'validation', env: { BENCH_WITHOUT: 'validation' } },
  { key: 'etag', label: 'ETag', env: { BENCH_WITHOUT: 'etag' } },
  { key: 'serialization', label: 'serialization', env: { BENCH_WITHOUT: 'serialization' } },
  { key: 'events', label: 'events (activity, notifications, stream, webhooks)', env: { BENCH_WITHOUT: 'events' } },
  { key: 'activity-log', label: '… of them, the activity entries', env: { BENCH_WITHOUT: 'activity-log' } },
  { key: 'notifications', label: '… the notifications', env: { BENCH_WITHOUT: 'notifications' } },
  { key: 'stream', label: "… the event stream's entries", env: { BENCH_WITHOUT: 'stream' } },
  { key: 'webhooks', label: '… the webhook deliveries', env: { BENCH_WITHOUT: 'webhooks' } },
  {
    key: 'nesting-check',
    label: '+ the nested-transaction check (CHECK_NESTED_TRANSACTIONS=true)',
    env: { CHECK_NESTED_TRANSACTIONS: 'true' },
  },
  { key: 'auth-token', label: '+ AUTH=token (the admin token)', env: { AUTH: 'token', ADMIN_TOKEN }, token: true },
  { key: 'rate-limit', label: '+ RATE_LIMIT=1000000/1m', env: { RATE_LIMIT: '1000000/1m' } },
  {
    key: 'token-and-limit',
    label: '+ both: AUTH=token and RATE_LIMIT',
    env: { AUTH: 'token', ADMIN_TOKEN, RATE_LIMIT: '1000000/1m' },
    token: true,
  },
];

interface Route {
  key: string;
  name: string;
  target: Target;
}
const ROUTES: Route[] = [
  { key: 'get', name: 'GET /api/tasks/:id', target: { method: 'GET', path: '/api/tasks/task_001' } },
  { key: 'list', name: 'GET /api/tasks?limit=50', target: { method: 'GET', path: '/api/tasks?limit=50' } },
  {
    key: 'post',
    name: 'POST /api/tasks',
    target: {
      method: 'POST',
      path: '/api/tasks',
      body: (n) => ({ projectId: 'proj_001', title: `Bench task ${n}`, assignee: 'dana', priority: 'high' }),
    },
  },
];
/** Tasks created before anything is measured, so that a page of 50 is full. */
const PREPARED_TASKS = 60;

const variants = a.variants ? VARIANTS.filter((v) => a.variants!.split(',').includes(v.key)) : VARIANTS;
const routes = ROUTES.filter((r) => a.routes!.split(',').includes(r.key));
const measures = a.measure!.split(',');

/** Sends `amount` requests of `target` over `connections` connections; throws on any answer outside 2xx. */
async function load(url: string, target: Target, amount: number, connections: number, token?: boolean) {
  let n = 0;
  const headers: Record<string, string> = {
    ...(target.body && { 'content-type': 'application/json' }),
    ...(token && { authorization: `Bearer ${ADMIN_TOKEN}` }),
  };
  const body = target.body;
  const result = await autocannon({
    url,
    connections,
    amount,
    // Under valgrind on a busy machine one request can take seconds.
    timeout: 300,
    requests: [
      {
        method: target.method,
        path: target.path,
        headers,
        ...(body && { setupRequest: (req) => ({ ...req, body: JSON.stringify(body(n++)) }) }),
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${target.method} ${target.path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
}

async function prepare(url: string, token?: boolean): Promise<void> {
  await load(url, ROUTES[2]!.target, PREPARED_TASKS, 1, token);
}

// ---- instructions (callgrind) ----

interface Counted {
  child: ChildProcess;
  url: string;
  outFile: string;
  /** Writes a control line and waits for its `ok`. */
  control(line: 'zero' | 'dump'): Promise<void>;
}

/** The valgrind runs, killed if the bench stops early. */
const counting = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of counting) child.kill('SIGKILL');
});

async function startCounted(variant: Variant, dir: string): Promise<Counted> {
  const port = await freePort();
  const outFile = join(dir, `${variant.key}.out`);
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${outFile}`,
      '--zero-before=uv_os_getpriority',
      '--dump-before=uv_os_setpriority',
      process.execPath,
      // V8 compiles and collects on the main thread: under valgrind, whose threads take turns, optimized code
      // made on a worker thread arrives hundreds of requests late, and the counts would depend on when.
      '--single-threaded',
      // Optimized 16 times sooner than by default (V8's budget counts bytecode run): after the warm-up, the counted
      // requests run optimized code, not the compiler (at the default, 1,000 requests of warm-up leave 60 % of
      // the counted instructions in Turbofan).
      '--interrupt-budget=4096',
      'bench/servers/features.mjs',
    ],
    {
      env: { ...process.env, PORT: String(port), HOST, ...variant.env },
      stdio: ['pipe', 'ignore', 'pipe'],
    },
  );
  counting.add(child);
  child.once('exit', () => counting.delete(child));
  let err = '';
  let waiting: (() => void) | undefined;
  child.stderr!.on('data', (c: Buffer) => {
    err = (err + c.toString()).slice(-4000);
    if (waiting && /(^|\n)ok\n/.test(c.toString())) {
      const w = waiting;
      waiting = undefined;
      w();
    }
  });
  const url = `http://${HOST}:${port}`;
  const startBy = Date.now() + Number(a['start-minutes']) * 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${variant.key} exited at start: ${err}`);
    if (Date.now() > startBy)
      throw new Error(`${variant.key} did not start within ${a['start-minutes']} minutes: ${err}`);
    try {
      const res = await fetch(`${url}/api/health`);
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    url,
    outFile,
    control: (line) =>
      new Promise<void>((resolve) => {
        waiting = resolve;
        child.stdin!.write(`${line}\n`);
      }),
  };
}

/**
 * The instructions (`Ir`) of the newest dump of `outFile`: all of them, those of Turbofan compiling (the inclusive
 * cost of `Runtime_CompileOptimized`, from callgrind_annotate) and those of the garbage collector (the inclusive costs
 * of `IncrementalMarking::Step`, `Heap::CollectGarbage` and `Heap::StartIncrementalMarking`, which do not call each
 * other), which depend on when V8 decides to optimize or collect more than on the requests.
 */
function lastDump(
  outFile: string,
  dir: string,
  before: Set<string>,
): { total: number; compiling: number; collecting: number } {
  const base = outFile.slice(dir.length + 1);
  const fresh = readdirSync(dir).filter((f) => f.startsWith(base) && !before.has(f));
  if (fresh.length !== 1) throw new Error(`expected one new dump of ${base}, found ${fresh.join(', ') || 'none'}`);
  const file = join(dir, fresh[0]!);
  const m = /^(?:summary|totals): (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!m) throw new Error(`no totals in ${fresh[0]}`);
  const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const inclusive = (name: string) => {
    const line = new RegExp(`^\\s*([\\d,]+) .*v8::internal::${name}\\(`, 'm').exec(annotated);
    return line ? Number(line[1]!.replaceAll(',', '')) : 0;
  };
  return {
    total: Number(m[1]),
    compiling: inclusive('Runtime_CompileOptimized'),
    collecting:
      inclusive('IncrementalMarking::Step') +
      inclusive('Heap::CollectGarbage') +
      inclusive('Heap::StartIncrementalMarking'),
  };
}

async function countVariant(variant: Variant, dir: string): Promise<Record<string, number>> {
  const server = await startCounted(variant, dir);
  const perRoute: Record<string, number> = {};
  const warm = Number(a['warmup-requests']);
  const amount = Number(a.requests);
  try {
    for (const route of routes) {
      if (route.key === 'list') await prepare(server.url, variant.token);
      await load(server.url, route.target, warm, 10, variant.token);
      await server.control('zero');
      const before = new Set(readdirSync(dir));
      await load(server.url, route.target, amount, 10, variant.token);
      await server.control('dump');
      const { total, compiling, collecting } = lastDump(server.outFile, dir, before);
      perRoute[route.key] = (total - compiling - collecting) / amount;
      perRoute[`${route.key}+compiling`] = (total - collecting) / amount;
      perRoute[`${route.key}+collecting`] = collecting / amount;
      log(
        `  ${variant.key.padEnd(14)} ${route.name.padEnd(24)} ${Math.round(total / amount)} instructions, ` +
          `${Math.round((total - compiling - collecting) / amount)} without Turbofan's and the collector's ` +
          `(collector: ${Math.round(collecting / amount)})`,
      );
    }
  } finally {
    server.child.kill('SIGKILL');
  }
  return perRoute;
}

async function countAll(): Promise<Record<string, Record<string, number>>> {
  const dir = mkdtempSync(join(tmpdir(), 'pm-callgrind-'));
  log(`instructions: callgrind, ${a['warmup-requests']} requests of warm-up then ${a.requests} counted per route`);
  const results: Record<string, Record<string, number>> = {};
  const queue = [...variants];
  const worker = async () => {
    for (let v = queue.shift(); v; v = queue.shift()) results[v.key] = await countVariant(v, dir);
  };
  await Promise.all(Array.from({ length: Number(a.jobs) }, worker));
  return results;
}

// ---- time (autocannon, paired by round) ----

type Rounds = Record<string, Record<string, number[]>>;

/**
 * Per variant and route, each round's µs per request: `wall`, from the throughput at saturation (1 / req/s, which
 * only a quiet machine makes meaningful); `cpu`, the server's CPU time over the requests it answered (less
 * sensitive to other processes, which take turns on the core rather than adding to its time).
 */
async function timeAll(): Promise<{ wall: Rounds; cpu: Rounds }> {
  log(`time: ${pinSelf()}; ${a.rounds} rounds of ${a.duration} s, ${a.connections} connections`);
  const servers = new Map<string, Running>();
  const perRound: Record<string, Record<string, number[]>> = {};
  const cpuRound: Record<string, Record<string, number[]>> = {};
  try {
    for (const v of variants) {
      const port = await freePort();
      const server = await start({
        name: v.key,
        argv: [process.execPath, 'bench/servers/features.mjs'],
        env: { PORT: String(port), HOST, ...v.env },
        port,
        readyPath: '/api/health',
      });
      servers.set(v.key, server);
      await prepare(server.url, v.token);
      perRound[v.key] = {};
      cpuRound[v.key] = {};
    }
    for (const route of routes) {
      for (const v of variants) await load(servers.get(v.key)!.url, route.target, 1, 1, v.token);
      for (let round = 0; round < Number(a.rounds); round++) {
        const order = round % 2 === 0 ? variants : [...variants].reverse();
        for (const v of order) {
          const url = servers.get(v.key)!.url;
          const opts = { connections: Number(a.connections), seconds: Number(a.warmup) };
          const target = v.token ? withToken(route.target) : route.target;
          await measure(url, target, opts);
          const pid = servers.get(v.key)!.child.pid;
          const cpu = cpuSeconds(pid);
          const m = await measure(url, target, { ...opts, seconds: Number(a.duration) });
          const requests = m.rps * Number(a.duration);
          if (m.non2xx > 0 || m.errors > 0) throw new Error(`${v.key} ${route.name}: non-2xx or errors`);
          (perRound[v.key]![route.key] ??= []).push(1e6 / m.rps);
          (cpuRound[v.key]![route.key] ??= []).push(((cpuSeconds(pid) - cpu) * 1e6) / requests);
        }
      }
    }
  } finally {
    for (const server of servers.values()) await stop(server);
  }
  return { wall: perRound, cpu: cpuRound };
}

function withToken(target: Target): Target {
  return { ...target, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };
}

// ---- the table ----

if (!a['no-build']) {
  log('building: npm run build');
  execSync('npm run build', { stdio: 'ignore' });
}
const counted = measures.includes('instructions') ? await countAll() : undefined;
const timed = measures.includes('time') ? await timeAll() : undefined;

const fmt = (n: number | undefined, digits = 0) =>
  n === undefined || Number.isNaN(n) ? '' : n.toLocaleString('en-US', { maximumFractionDigits: digits });
/** Everything on: its own figure; any other variant: what leaving its part out saves (paired by round for µs). */
const instructionsCell = (v: Variant, r: Route): string => {
  const ir = counted?.[v.key]?.[r.key];
  const base = counted?.everything?.[r.key];
  if (ir === undefined) return '';
  return v.key === 'everything' || base === undefined ? fmt(ir) : fmt(base - ir);
};
const microsCell = (rounds: Rounds | undefined, v: Variant, r: Route): string => {
  const us = rounds?.[v.key]?.[r.key];
  const base = rounds?.everything?.[r.key];
  if (us === undefined) return '';
  if (v.key === 'everything' || base === undefined) return fmt(median(us), 1);
  return fmt(median(us.map((u, i) => base[i]! - u)), 1);
};
const columns = ['instructions', ...(timed ? ['µs', 'CPU µs'] : [])];
log(`\n| part left out | ${routes.map((r) => columns.map((c) => `${r.name}: ${c}`).join(' | ')).join(' | ')} |`);
log(`|---|${routes.map(() => columns.map(() => '---:|').join('')).join('')}`);
for (const v of variants) {
  const cells = routes.flatMap((r) => [
    instructionsCell(v, r),
    ...(timed ? [microsCell(timed.wall, v, r), microsCell(timed.cpu, v, r)] : []),
  ]);
  log(`| ${v.label} | ${cells.join(' | ')} |`);
}
log('(everything on: per request; each other row: what leaving the part out saves; negative: what adding it costs)');

const full = variants.length === VARIANTS.length && routes.length === ROUTES.length;
const out = `bench/results/features-${measures.join('-')}.${full ? 'json' : 'tmp'}`;
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  out,
  JSON.stringify({ machine: machine(), settings: a, instructions: counted, microseconds: timed }, null, 2),
);
log(`written to ${out}`);

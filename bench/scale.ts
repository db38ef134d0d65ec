/**
 * `npm run bench:scale`: the service at a million tasks. Loads 1,000 projects and 1,000,000 tasks through the
 * services (built on the app's store and event bus, so every create publishes its event and writes its
 * activity entry: about 1,000,000 activity entries too), then times single operations through `app.inject`
 * (the full HTTP stack but the socket) and reports memory per task. Measured twice with the same k = 1,000
 * matches for the filtered list: at 100,000 tasks (projects 1–100 full) and at 1,000,000 (all 1,000 full).
 *
 *   npm run bench:scale                         (a few minutes; --tasks 200000 for a quicker look)
 *   npm run bench:scale -- --dist dist-before    (an earlier build, for a before/after)
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { memory, perOp } from './lib/timing.ts';

// `--store postgres`: the PostgreSQL variant, a separate script (the service as a process, data loaded in bulk).
if (process.argv.includes('--store') && process.argv[process.argv.indexOf('--store') + 1] === 'postgres') {
  await import('./scale-pg.ts');
  process.exit(0);
}

const { values: a } = parseArgs({
  options: {
    tasks: { type: 'string', default: '1000000' },
    /** Tasks per project: the k of the filtered list. */
    k: { type: 'string', default: '1000' },
    out: { type: 'string' },
    /** Measure a build of the service (e.g. a saved earlier one) instead of src/. */
    dist: { type: 'string' },
  },
});
/** A module of the service: from src/, or from the build in `--dist`. */
const moduleOf = (path: string) => (a.dist ? pathToFileURL(resolve(a.dist, `${path}.js`)).href : `../src/${path}.ts`);
const { buildApp } = (await import(moduleOf('app'))) as typeof import('../src/app.ts');
const { createServices } = (await import(
  moduleOf('resources/services')
)) as typeof import('../src/resources/services.ts');
const { MemoryStore } = (await import(moduleOf('store/memory/store'))) as typeof import('../src/store/memory/store.ts');
const { EventBus } = (await import(moduleOf('events/bus'))) as typeof import('../src/events/bus.ts');
const time = (await import(moduleOf('model/time'))) as typeof import('../src/model/time.ts');
const ids = (await import(moduleOf('model/ids'))) as typeof import('../src/model/ids.ts');
const cursors = (await import(moduleOf('http/cursor'))) as typeof import('../src/http/cursor.ts');
const { default: pino } = await import('pino');
const TOTAL = Number(a.tasks);
const K = Number(a.k);
const PROJECTS = Math.ceil(TOTAL / K);
const FIRST_STAGE = Math.min(TOTAL, 100_000);
const out = a.out ?? (TOTAL >= 1_000_000 ? 'bench/results/scale.json' : 'bench/results/scale.tmp');
const log = (line: string) => process.stdout.write(`${line}\n`);

// Webhook delivery is not what is measured here: the seeded webhooks are switched off (through the service) so
// that a million creates do not attempt a million deliveries to unresolvable hosts.
// The services the app serves, on its store and event bus: what they write is what the app's routes read.
const store = new MemoryStore();
const events = new EventBus(pino({ level: 'silent' }));
const app = await buildApp({ store, events, config: { logLevel: 'silent' } });
const noDeliveries = {
  send: () => Promise.reject(new Error('no deliveries here')),
  restage: async () => [],
  wake: () => {},
};
const services = createServices({ store, events, clock: time.systemClock, ids: ids.randomIds }, noDeliveries);
await app.ready();
for (const id of ['wh_001', 'wh_002', 'wh_003']) await services.webhooks.update(id, { active: false });
const before = memory();
log(`empty service: heap ${mb(before.heapUsed)} MB, RSS ${mb(before.rss)} MB`);

const projectIds: string[] = [];
const t0 = performance.now();
for (let p = 0; p < PROJECTS; p++) {
  const project = await services.projects.create({ name: `Scale project ${p}`, teamId: 'team_001' } as never);
  projectIds.push(project.id);
}
log(`${PROJECTS} projects in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

/** Tasks for projects [from, to), `K` each, round-robin so that a project's tasks are spread over the load. */
async function load(from: number, to: number): Promise<void> {
  const t = performance.now();
  for (let i = 0; i < K; i++) {
    for (let p = from; p < to; p++) {
      // Parsed from JSON, as a request body is: its strings are new (and flat), as they are in a request.
      await services.tasks.create(
        JSON.parse(`{"projectId":"${projectIds[p]!}","title":"Task ${i} of project ${p}"}`) as never,
      );
    }
  }
  const n = (to - from) * K;
  log(
    `${n} tasks in ${((performance.now() - t) / 1000).toFixed(1)} s (${(((performance.now() - t) * 1000) / n).toFixed(1)} µs each, event and activity entry included)`,
  );
}

const inject = async (method: 'GET' | 'POST', url: string, payload?: object) => {
  const res = await app.inject({ method, url, ...(payload ? { payload } : {}) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return res;
};

async function measureAt(label: string): Promise<Record<string, unknown>> {
  const tasks = await store.tasks.count();
  const entries = await store.activity.count();
  const mem = memory();
  const project = projectIds[0]!;
  const middle = (await services.activity.query({ limit: Math.floor(entries / 2) })).items.at(-1)!.timestamp;
  const list = await inject('GET', `/api/tasks?projectId=${project}`);
  const { count: k, data } = JSON.parse(list.body) as { count: number; data: { id: string }[] };
  const someTask = data[k >> 1]!.id;
  const since = await inject('GET', `/api/activity-log?since=${middle}&limit=50`);
  // The deep page: the 10,000th of 100 (or the last full one), its cursor from the position before it.
  const deepPage = Math.max(2, Math.min(10_000, Math.floor(tasks / 100)));
  const previous = await store.tasks.query({ limit: (deepPage - 1) * 100 });
  const deep = encodeURIComponent(cursors.encodeCursor(cursors.queryDigest('/api/tasks', {}), previous.next!));
  const ms = {
    [`GET /api/tasks?projectId (k=${k})`]: await perOp(() => inject('GET', `/api/tasks?projectId=${project}`), {
      batch: 5,
    }),
    [`service tasks.list (k=${k})`]: await perOp(() => services.tasks.list({ projectId: project } as never), {
      batch: 5,
    }),
    'GET /api/activity-log?limit=50': await perOp(() => inject('GET', '/api/activity-log?limit=50')),
    'service activity.query limit=50': await perOp(() => services.activity.query({ limit: 50 })),
    [`GET /api/activity-log?since=…&limit=50 (total ${(JSON.parse(since.body) as { total: number }).total})`]:
      await perOp(() => inject('GET', `/api/activity-log?since=${middle}&limit=50`)),
    'GET /api/tasks?limit=100': await perOp(() => inject('GET', '/api/tasks?limit=100')),
    [`GET /api/tasks?limit=100&cursor=<page ${deepPage}>`]: await perOp(() =>
      inject('GET', `/api/tasks?limit=100&cursor=${deep}`),
    ),
    [`GET /api/tasks?projectId&sort=-priority&limit=100 (k=${k})`]: await perOp(() =>
      inject('GET', `/api/tasks?projectId=${project}&sort=-priority&limit=100`),
    ),
    'GET /api/tasks?q=<one rare term>': await perOp(() => inject('GET', '/api/tasks?q=quetzalcoatl'), { batch: 1 }),
    'GET /api/tasks/:id': await perOp(() => inject('GET', `/api/tasks/${someTask}`), { batch: 100 }),
    'POST /api/tasks': await perOp(
      () => inject('POST', '/api/tasks', { projectId: projectIds.at(-1), title: 'One more' }),
      { batch: 50 },
    ),
  };
  const perTask = { rss: (mem.rss - before.rss) / tasks, heap: (mem.heapUsed - before.heapUsed) / tasks };
  log(
    `\nat ${tasks} tasks, ${entries} activity entries (${label}): heap ${mb(mem.heapUsed)} MB used of ${mb(mem.heapTotal)} MB, RSS ${mb(mem.rss)} MB`,
  );
  for (const [op, t] of Object.entries(ms))
    log(`  ${op.padEnd(58)} ${t < 1 ? `${(t * 1000).toFixed(0)} µs` : `${t.toFixed(2)} ms`}`);
  log(
    `  memory per task (with its activity entry): RSS ${perTask.rss.toFixed(0)} B, heap ${perTask.heap.toFixed(0)} B`,
  );
  return {
    tasks,
    entries,
    heapMb: mb(mem.heapUsed),
    heapTotalMb: mb(mem.heapTotal),
    rssMb: mb(mem.rss),
    msPerOp: ms,
    bytesPerTask: { rss: Math.round(perTask.rss), heap: Math.round(perTask.heap) },
  };
}

// One task with a rare word in its title, for `q`.
await services.tasks.create({ projectId: projectIds[0]!, title: 'Quetzalcoatl migration' } as never);
await load(0, FIRST_STAGE / K);
const small = await measureAt('projects 1–100 full');
await load(FIRST_STAGE / K, PROJECTS);
const large = TOTAL > FIRST_STAGE ? await measureAt('all projects full') : small;
await app.close();

const timed = large.msPerOp as Record<string, number>;
const limit50 = timed['GET /api/activity-log?limit=50']!;
const first = timed['GET /api/tasks?limit=100']!;
const deepMs = Object.entries(timed).find(([op]) => op.includes('cursor=<page'))!;
const priorityMs = Object.entries(timed).find(([op]) => op.includes('sort=-priority'))![1];
const searchMs = timed['GET /api/tasks?q=<one rare term>']!;
const rssPerTask = (large.bytesPerTask as { rss: number }).rss;
log(`\nTargets at ${large.tasks} tasks:`);
log(`${limit50 <= 1 ? 'met    ' : 'NOT MET'}  GET /api/activity-log?limit=50 ≤ 1 ms: ${limit50.toFixed(3)} ms`);
log(
  `${deepMs[1] <= 2 * first ? 'met    ' : 'NOT MET'}  ${deepMs[0]} within 2× of page 1: ${deepMs[1].toFixed(3)} ms vs ${first.toFixed(3)} ms`,
);
log(
  `${priorityMs <= 10 ? 'met    ' : 'NOT MET'}  one project by -priority, limit 100 ≤ 10 ms: ${priorityMs.toFixed(3)} ms`,
);
log(`${searchMs <= 150 ? 'met    ' : 'NOT MET'}  q with one rare term ≤ 150 ms: ${searchMs.toFixed(3)} ms`);
log(`${rssPerTask <= 1024 ? 'met    ' : 'NOT MET'}  RSS per task (with its activity entry) ≤ 1 KB: ${rssPerTask} B`);
writeFileSync(
  out,
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, command: `npm run bench:scale -- ${process.argv.slice(2).join(' ')}`.trim(), small, large }, null, 1)}\n`,
);
log(`written: ${out}`);

function mb(bytes: number): number {
  return Math.round(bytes / 1024 / 1024);
}

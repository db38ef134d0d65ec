/**
 * `npm run bench:scale -- --store postgres`: the service on PostgreSQL at a million tasks. A fresh database, migrated
 * and seeded by the built service at its start; then 1,000 projects, 1,000,000 tasks (k = 1,000 per project) and one
 * activity entry per task loaded in bulk with `INSERT … SELECT generate_series` (not through the service), then
 * ANALYZE. Each operation is timed over real HTTP, one request at a time (median of the requests after a warm-up):
 * the filtered list returning k records, and the newest 50 activity entries. The database is dropped at the end.
 *
 *   npm run bench:scale -- --store postgres                      (1,000,000 tasks)
 *   npm run bench:scale -- --store postgres --tasks 100000       (quicker, written to bench/results/scale-pg.tmp)
 */
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { serviceSpec } from './lib/fleet.ts';
import { median } from './lib/load.ts';
import { dropAll, emptyDatabase } from './lib/pg.ts';
import { start, stop } from './lib/servers.ts';
import { encodeCursor, queryDigest } from '../src/http/cursor.ts';

const { values: a } = parseArgs({
  options: {
    store: { type: 'string' },
    tasks: { type: 'string', default: '1000000' },
    k: { type: 'string', default: '1000' },
    requests: { type: 'string', default: '50' },
    out: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
  },
});
const TOTAL = Number(a.tasks);
const K = Number(a.k);
const PROJECTS = Math.ceil(TOTAL / K);
const REQUESTS = Number(a.requests);
const out = a.out ?? (TOTAL >= 1_000_000 ? 'bench/results/scale-pg.json' : 'bench/results/scale-pg.tmp');
const log = (line: string) => process.stdout.write(`${line}\n`);

if (!a['no-build']) execSync('npm run build --silent', { stdio: 'inherit' });

/** Milliseconds per request (median), one at a time, after a warm-up of a fifth as many; checks the count. */
async function timeGet(url: string, expect: number): Promise<{ ms: number; p90: number; count: number }> {
  const times: number[] = [];
  let count = 0;
  for (let i = 0; i < REQUESTS + Math.ceil(REQUESTS / 5); i++) {
    const t0 = performance.now();
    const res = await fetch(url);
    const body = (await res.json()) as { data: unknown[] };
    const ms = performance.now() - t0;
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    count = body.data.length;
    if (i >= Math.ceil(REQUESTS / 5)) times.push(ms);
  }
  if (count !== expect) throw new Error(`${url}: ${count} records, expected ${expect}`);
  times.sort((x, y) => x - y);
  const round3 = (x: number) => Math.round(x * 1000) / 1000;
  return { ms: round3(median(times)), p90: round3(times[Math.floor(times.length * 0.9)]!), count };
}

try {
  const db = await emptyDatabase();
  // First start: migrations and the sample records.
  await stop(await start(await serviceSpec({ DATABASE_URL: db.url })));

  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const t0 = performance.now();
  await client.query(
    `INSERT INTO projects (id, name, description, status, created_at, updated_at)
     SELECT 'proj_s' || lpad(p::text, 5, '0'), 'Scale project ' || p, '', 'active', now(), now()
     FROM generate_series(1, $1) AS p`,
    [PROJECTS],
  );
  // Round-robin over the projects, as bench:scale loads them: each project's k tasks spread through the table.
  await client.query(
    `INSERT INTO tasks (id, project_id, title, description, status, priority, assignee, created_at, updated_at)
     SELECT 'task_s' || lpad(n::text, 8, '0'), 'proj_s' || lpad((n % $2 + 1)::text, 5, '0'), 'Scale task ' || n, '',
            (ARRAY['todo', 'in_progress', 'done'])[n % 3 + 1], (ARRAY['low', 'medium', 'high'])[n % 3 + 1], NULL,
            t, t
     FROM generate_series(0, $1 - 1) AS n, LATERAL (SELECT now() + n * interval '1 millisecond' AS t) AS ts`,
    [TOTAL, PROJECTS],
  );
  await client.query(
    `INSERT INTO activity_log (id, action, actor, resource_type, resource_id, summary, metadata, occurred_at)
     SELECT 'act_s' || lpad(n::text, 8, '0'), 'task.created', 'system', 'task', 'task_s' || lpad(n::text, 8, '0'),
            'Task "Scale task ' || n || '" created', '{}', now() + n * interval '1 millisecond'
     FROM generate_series(0, $1 - 1) AS n`,
    [TOTAL],
  );
  // One task with a rare word in its title, for `q`.
  await client.query(
    `INSERT INTO tasks (id, project_id, title, description, status, priority, created_at, updated_at)
     VALUES ('task_rare', 'proj_s00001', 'Quetzalcoatl migration', '', 'todo', 'high', now(), now())`,
  );
  await client.query('ANALYZE');
  // The cursor of the deep page: after the last task of the page before it, in creation order.
  const deepPage = Math.max(2, Math.min(10_000, Math.floor(TOTAL / 100)));
  const before = await client.query<{ seq: string }>('SELECT seq FROM tasks ORDER BY seq OFFSET $1 LIMIT 1', [
    (deepPage - 1) * 100 - 1,
  ]);
  const deepCursor = encodeURIComponent(encodeCursor(queryDigest('/api/tasks', {}), [before.rows[0]!.seq]));
  const loadSeconds = (performance.now() - t0) / 1000;
  const size = await client.query<{ size: string }>(
    'SELECT pg_size_pretty(pg_database_size(current_database())) AS size',
  );
  await client.end();
  log(`loaded ${TOTAL} tasks, ${PROJECTS} projects, ${TOTAL} activity entries in ${loadSeconds.toFixed(1)} s`);

  const server = await start(await serviceSpec({ DATABASE_URL: db.url }));
  const mid = `proj_s${String(Math.ceil(PROJECTS / 2)).padStart(5, '0')}`;
  let filtered, activity, firstPage, deep, byPriority, search;
  try {
    filtered = await timeGet(`${server.url}/api/tasks?projectId=${mid}`, Math.min(K, TOTAL));
    activity = await timeGet(`${server.url}/api/activity-log?limit=50`, 50);
    firstPage = await timeGet(`${server.url}/api/tasks?limit=100`, 100);
    deep = await timeGet(`${server.url}/api/tasks?limit=100&cursor=${deepCursor}`, 100);
    byPriority = await timeGet(`${server.url}/api/tasks?projectId=${mid}&sort=-priority&limit=100`, Math.min(100, K));
    search = await timeGet(`${server.url}/api/tasks?q=quetzalcoatl`, 1);
  } finally {
    await stop(server);
  }
  const targets = [
    { target: `filtered list (${K} records) ≤ 30 ms`, value: `${filtered.ms} ms`, met: filtered.ms <= 30 },
    { target: 'GET /api/activity-log?limit=50 ≤ 3 ms', value: `${activity.ms} ms`, met: activity.ms <= 3 },
    {
      target: `page ${deepPage} of 100 within 2× of page 1`,
      value: `${deep.ms} ms vs ${firstPage.ms} ms`,
      met: deep.ms <= 2 * firstPage.ms,
    },
    { target: 'one project by -priority, limit 100 ≤ 30 ms', value: `${byPriority.ms} ms`, met: byPriority.ms <= 30 },
    { target: 'q with one rare term ≤ 50 ms', value: `${search.ms} ms`, met: search.ms <= 50 },
  ];
  log(`GET /api/tasks?projectId=${mid}: ${filtered.ms} ms (p90 ${filtered.p90} ms), ${filtered.count} records`);
  log(`GET /api/activity-log?limit=50: ${activity.ms} ms (p90 ${activity.p90} ms)`);
  log(`GET /api/tasks?limit=100 (X-Total-Count from the kept totals): ${firstPage.ms} ms (p90 ${firstPage.p90} ms)`);
  log(`GET /api/tasks?limit=100&cursor=<page ${deepPage}>: ${deep.ms} ms (p90 ${deep.p90} ms)`);
  log(`GET /api/tasks?projectId=${mid}&sort=-priority&limit=100: ${byPriority.ms} ms (p90 ${byPriority.p90} ms)`);
  log(`GET /api/tasks?q=quetzalcoatl: ${search.ms} ms (p90 ${search.p90} ms)`);
  for (const t of targets) log(`${t.met ? 'met    ' : 'NOT MET'}  ${t.target.padEnd(44)} ${t.value}`);
  writeFileSync(
    out,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        command: `npm run bench:scale -- ${process.argv.slice(2).join(' ')}`,
        store: 'postgres',
        tasks: TOTAL,
        projects: PROJECTS,
        k: K,
        requests: REQUESTS,
        loadSeconds: Math.round(loadSeconds * 10) / 10,
        databaseSize: size.rows[0]!.size,
        filteredList: filtered,
        activityLog: activity,
        firstPage,
        deepPage: { page: deepPage, ...deep },
        byPriority,
        search,
        targets,
      },
      null,
      1,
    )}\n`,
  );
  log(`written: ${out}`);
} finally {
  await dropAll();
}

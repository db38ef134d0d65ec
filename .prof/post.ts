// Quick experiment: the service on a fresh PG db, POST /api/tasks at 50 connections, with PG stats.
import { spawn } from 'node:child_process';
import pg from 'pg';
import { measure } from '../bench/lib/load.ts';
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS pm_prof WITH (FORCE)');
await admin.query('CREATE DATABASE pm_prof');
const url = 'postgres://postgres@127.0.0.1:5432/pm_prof';
const port = 3999;
const extra = JSON.parse(process.env.EXTRA_ENV ?? '{}');
const child = spawn('taskset', ['-c', '0', process.execPath, '--import', 'tsx', 'src/server.ts'], {
  env: { ...process.env, DATABASE_URL: url, PORT: String(port), LOG_LEVEL: 'warn', ...extra },
  stdio: ['ignore', 'inherit', 'inherit'],
});
for (;;) {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/api/tasks`);
    if (r.ok) break;
  } catch {}
  await new Promise((r) => setTimeout(r, 200));
}
const base = `http://127.0.0.1:${port}`;
if (process.env.NOHOOKS)
  for (const id of ['wh_001', 'wh_002', 'wh_003'])
    await fetch(`${base}/api/webhooks/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{"active":false}',
    });
const stat = async () =>
  (await admin.query(`select xact_commit::int c, xact_rollback::int r from pg_stat_database where datname='pm_prof'`))
    .rows[0];
const target = {
  method: 'POST' as const,
  path: process.env.PATHX ?? '/api/tasks',
  body: (n: number) => ({ projectId: 'proj_001', title: `Bench task ${n}`, assignee: 'dana', priority: 'high' }),
};
await measure(base, target, { connections: 50, seconds: 2 });
const { readFileSync, readdirSync } = await import('node:fs');
const ticks = (pid: string) => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
};
const pgTicks = () =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/comm`, 'utf8').startsWith('postgres');
      } catch {
        return false;
      }
    })
    .reduce((a, d) => a + ticks(d), 0);
const c0 = { svc: ticks(String(child.pid)), pg: pgTicks(), me: ticks(String(process.pid)) };
const s0 = await stat();
const m = await measure(base, target, {
  connections: Number(process.env.CONN ?? 50),
  seconds: Number(process.env.SECS ?? 5),
});
const s1 = await stat();
const secs = Number(process.env.SECS ?? 5);
console.log(
  'cores: service',
  ((ticks(String(child.pid)) - c0.svc) / 100 / secs).toFixed(2),
  'pg',
  ((pgTicks() - c0.pg) / 100 / secs).toFixed(2),
  'loadgen',
  ((ticks(String(process.pid)) - c0.me) / 100 / secs).toFixed(2),
);
console.log(JSON.stringify(m), 'commits', s1.c - s0.c, 'rollbacks', s1.r - s0.r);
child.kill('SIGTERM');
await new Promise((r) => child.on('exit', r));
await admin.query('DROP DATABASE IF EXISTS pm_prof WITH (FORCE)');
await admin.end();

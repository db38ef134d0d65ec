import pg from 'pg';
const orig = pg.Client.prototype.query as any;
const log: string[] = [];
const agg = new Map<string, number[]>();
let on = false;
(pg.Client.prototype as any).query = function (this: any, text: any, ...rest: any[]) {
  const t = typeof text === 'string' ? text : text?.text;
  const start = process.hrtime.bigint();
  const done = () => {
    if (!on) return;
    const k = String(t).replace(/\s+/g, ' ').slice(0, 100);
    const e = agg.get(k) ?? [0, 0];
    e[0]++;
    e[1] += Number(process.hrtime.bigint() - start) / 1e6;
    agg.set(k, e);
  };
  const cbi = rest.findIndex((x) => typeof x === 'function');
  if (cbi >= 0) {
    const cb = rest[cbi];
    rest[cbi] = (...a: any[]) => {
      done();
      return cb(...a);
    };
  }
  const r = orig.call(this, text, ...rest);
  if (cbi < 0 && r && typeof r.then === 'function') r.then(done, () => {});
  return r;
};
const { loadConfig } = await import('../src/config.ts');
const { openStore } = await import('../src/store/index.ts');
const { buildApp } = await import('../src/app.ts');
const url = 'postgres://postgres@127.0.0.1:5432/pm_prof';
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS pm_prof');
await admin.query('CREATE DATABASE pm_prof');
const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'error' } as any, []);
const store = await openStore({ databaseUrl: url } as any);
const app = await buildApp({ config, store, seed: false } as any);
await app.ready();
const body = { projectId: 'prj_1', title: 'x', assignee: 'bob', priority: 'high' };
const projects = await app.inject({ method: 'GET', url: '/api/projects' });
body.projectId = projects.json().data[0].id;
await new Promise((r) => setTimeout(r, 1500));
on = true;
const N = 300;
let res: any;
const t0 = Date.now();
const C = Number(process.env.CONC ?? 1);
for (let i = 0; i < N; i += C) {
  const rs = await Promise.all(
    Array.from({ length: C }, (_, j) =>
      app.inject({
        method: 'POST',
        url: process.env.PATHX ?? '/api/tasks',
        payload: { ...body, title: 't' + (i + j) },
        headers: { 'x-actor': 'alice' },
      }),
    ),
  );
  res = rs[0];
}
console.log('per POST ms', (Date.now() - t0) / N);
await new Promise((r) => setTimeout(r, 2000));
on = false;
console.log(res.statusCode);
for (const [k, [n, ms]] of [...agg].sort((a, b) => b[1][1] - a[1][1]))
  console.log((n / N).toFixed(2), (ms / n).toFixed(3), k);
await app.close();
await admin.query('DROP DATABASE IF EXISTS pm_prof WITH (FORCE)');
await admin.end();

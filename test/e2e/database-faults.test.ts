/**
 * The PostgreSQL server lost while the service runs (CONTRACT §7, issue 14 point 8): requests answer 503
 * SERVICE_UNAVAILABLE in the error shape within the connection and statement timeouts, never hang and never 500,
 * and the service serves again by itself once the server is back. The server is taken away by a TCP proxy between
 * the service and it, and by ending the service's sessions on the server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { StoreUnavailableError } from '../../src/store/errors.ts';
import { openStore } from '../../src/store/index.ts';
import type { SqlStore } from '../../src/store/sql/store.ts';
import { Api, type Res } from '../helpers/app.ts';
import { killAll, startServer, type ServerProcess } from '../helpers/server-process.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { assertError } from '../http/assert-error.ts';
import { testServer } from '../store/sql-harness.ts';

const found = await testServer();
const skip = 'skip' in found ? found.skip : undefined;

/** Timeouts short enough for a test: what bounds an answer while the server is away. */
const CONNECT_MS = 800;
const STATEMENT_MS = 800;
/** The longest any answer may take while the server is away: a connection attempt, then a statement's limit. */
const BOUND_MS = CONNECT_MS + STATEMENT_MS + 1_000 + 1_500;

async function timed(request: Promise<Res>): Promise<{ res: Res; ms: number }> {
  const started = Date.now();
  const res = await request;
  return { res, ms: Date.now() - started };
}

/** Asserts every request answers 503 SERVICE_UNAVAILABLE within the bound. */
async function allUnavailable(api: Api, what: string): Promise<void> {
  const answers = await Promise.all([
    timed(api.get('/api/health/ready')),
    timed(api.get('/api/tasks')),
    timed(api.get('/api/projects/proj_001')),
    timed(api.post('/api/projects', { name: 'While the database is away' })),
  ]);
  for (const { res, ms } of answers) {
    const e = assertError(res, 503, 'SERVICE_UNAVAILABLE');
    assert.equal(e.message, 'The database is unavailable; try again shortly', what);
    assert.ok(ms < BOUND_MS, `${what}: answered after ${ms} ms`);
  }
}

/** Polls readiness until it answers 200; how long that took. */
async function recovered(api: Api, limitMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const res = await api.get('/api/health/ready');
    if (res.status === 200) return Date.now() - started;
    assert.equal(res.status, 503, res.text);
    if (Date.now() - started > limitMs) assert.fail(`not ready ${limitMs} ms after the database came back`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A new database on the test server, and a proxy in front of the server; both gone when the test ends. */
async function proxiedDatabase(t: { after: (fn: () => Promise<void>) => void }) {
  if (!('server' in found)) throw new Error('no server');
  const server = found.server;
  t.after(() => server.dropAll());
  const url = await server.database();
  const target = new URL(url);
  const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
  t.after(() => proxy.down());
  return { url, proxy };
}

async function serviceOn(databaseUrl: string, t: { after: (fn: () => Promise<void>) => void }) {
  const store = await openStore({ databaseUrl, connectTimeoutMs: CONNECT_MS, statementTimeoutMs: STATEMENT_MS });
  const app = await buildApp({ store, seed: false, config: { logLevel: 'silent' } });
  t.after(() => app.close());
  return new Api(app);
}

/**
 * A service on a new database of the test server, serving; an administrator's session on the server (outside that
 * database) and the database's name. All gone when the test ends.
 */
async function serviceWithAdmin(t: { after: (fn: () => Promise<void>) => void }) {
  if (!('server' in found)) throw new Error('no server');
  const server = found.server;
  t.after(() => server.dropAll());
  const url = await server.database();
  const api = await serviceOn(url, t);
  assert.equal((await api.get('/api/tasks')).status, 200);
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  t.after(() => admin.end());
  return { api, admin, name: new URL(url).pathname.slice(1) };
}

test(
  'database lost while running: 503 within the timeouts, never a hang or a 500; back by itself',
  { skip },
  async (t) => {
    if (!('server' in found)) return;
    const { url, proxy } = await proxiedDatabase(t);
    const api = await serviceOn(proxy.urlFor(url), t);

    const ready = await api.get('/api/health/ready');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready', store: 'postgres' });
    const created = await api.post('/api/projects', { name: 'Before the outage' });
    assert.equal(created.status, 201);

    // The server gone: connections closed, new ones refused.
    await proxy.down();
    await allUnavailable(api, 'refused');
    assert.equal((await api.get('/api/health')).status, 200, 'liveness does not depend on the database');
    await proxy.up();
    await recovered(api, 5_000);
    assert.equal((await api.get(`/api/projects/${created.body.data.id}`)).status, 200);

    // The server silent: connections stay open and nothing comes back (a network partition).
    proxy.freeze();
    await allUnavailable(api, 'frozen');
    await proxy.up();
    await recovered(api, 5_000);
    const after = await api.post('/api/projects', { name: 'After the outage' });
    assert.equal(after.status, 201);
    assert.equal((await api.get('/api/projects')).body.data.length, 7, 'the 5 sample projects and the 2 created');
  },
);

test(
  'a statement held past DB_STATEMENT_TIMEOUT_MS: 503 saying the database did not answer in time',
  { skip },
  async (t) => {
    if (!('server' in found)) return;
    const server = found.server;
    const url = await server.database();
    // Another session holds the projects table: the service's read waits for it until its statement timeout. It is
    // ended before its database is dropped (the drop would end its session under it), also when an assertion fails.
    const admin = new pg.Client({ connectionString: url });
    let ended = false;
    const end = async () => {
      if (!ended) await admin.end();
      ended = true;
    };
    t.after(end);
    t.after(() => server.dropAll());
    const api = await serviceOn(url, t);
    assert.equal((await api.get('/api/projects')).status, 200);
    await admin.connect();
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE projects IN ACCESS EXCLUSIVE MODE');
    const { res, ms } = await timed(api.get('/api/projects'));
    const e = assertError(res, 503, 'SERVICE_UNAVAILABLE');
    assert.equal(e.message, 'The database did not answer in time; try again shortly');
    assert.equal(res.headers['retry-after'], '1');
    assert.ok(ms >= STATEMENT_MS - 50 && ms < BOUND_MS, `answered after ${ms} ms`);
    // The database itself answers: readiness says so, and the read goes through once the lock is gone.
    assert.equal((await api.get('/api/health/ready')).status, 200);
    await admin.query('ROLLBACK');
    await end();
    assert.equal((await api.get('/api/projects')).status, 200);
  },
);

test('the database made again empty under the service: 503 and readiness 503, never a 500', { skip }, async (t) => {
  if (!('server' in found)) return;
  const { api, admin, name: database } = await serviceWithAdmin(t);
  const name = pg.escapeIdentifier(database);
  await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  // The pool's connections were ended with the old database; the new ones find no table of the service's.
  for (const res of [
    await api.get('/api/tasks'),
    await api.get('/api/tasks'),
    await api.post('/api/projects', { name: 'Into an empty database' }),
    await api.get('/api/health/ready'),
  ]) {
    const e = assertError(res, 503, 'SERVICE_UNAVAILABLE');
    assert.equal(e.message, 'The database is unavailable; try again shortly');
  }
  assert.equal((await api.get('/api/health')).status, 200, 'liveness does not depend on the database');
});

test(
  "the server ends the service's sessions (pg_terminate_backend): 503 or 200, never 500; then 200",
  { skip },
  async (t) => {
    if (!('server' in found)) return;
    const { api, admin, name } = await serviceWithAdmin(t);
    const terminated = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    assert.ok(terminated.rowCount! > 0, 'the service had sessions open');
    const answers = await Promise.all(Array.from({ length: 10 }, () => api.get('/api/tasks')));
    for (const res of answers) {
      if (res.status !== 200) assertError(res, 503, 'SERVICE_UNAVAILABLE');
    }
    await recovered(api, 3_000);
    assert.equal((await api.get('/api/tasks')).status, 200);
  },
);

test(
  'the session ended in the middle of a transaction: the next statement fails as unavailable, the process lives',
  { skip },
  async (t) => {
    if (!('server' in found)) return;
    const server = found.server;
    t.after(() => server.dropAll());
    const url = await server.database();
    const store = await openStore({ databaseUrl: url });
    t.after(() => store.close());
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    t.after(() => admin.end());
    const name = new URL(url).pathname.slice(1);
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.projects.get('proj_001');
        await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
        // Between two statements: the connection's failure arrives while no statement is running.
        await new Promise((r) => setTimeout(r, 300));
        await tx.projects.get('proj_002');
      }),
      StoreUnavailableError,
    );
    assert.equal((await store.projects.get('proj_001'))?.id, 'proj_001', 'a new connection serves');
  },
);

test('DB_STATEMENT_TIMEOUT_MS cancels a longer statement; DB_POOL_SIZE caps the connections', { skip }, async (t) => {
  if (!('server' in found)) return;
  const server = found.server;
  t.after(() => server.dropAll());
  const url = await server.database();
  const store = (await openStore({ databaseUrl: url, statementTimeoutMs: 300, poolSize: 2 })) as SqlStore;
  t.after(() => store.close());
  const started = Date.now();
  const error = await store.driver.query('SELECT pg_sleep(5)').catch((e: unknown) => e);
  assert.ok(error instanceof StoreUnavailableError, String(error));
  assert.equal((error.cause as { code?: string }).code, '57014', 'cancelled by the server: statement_timeout');
  assert.equal(error.reason, 'timeout');
  assert.ok(Date.now() - started < 2_000);

  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  t.after(() => admin.end());
  let most = 0;
  const busy = Promise.all(Array.from({ length: 8 }, () => store.driver.query('SELECT pg_sleep(0.1)')));
  for (let i = 0; i < 5; i++) {
    const { rows } = await admin.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
      [name],
    );
    most = Math.max(most, rows[0]!.n);
    await new Promise((r) => setTimeout(r, 50));
  }
  await busy;
  assert.equal(most, 2);
});

test(
  'SIGTERM while the database does not answer: a request in flight gets its 503, the connections are dropped, exit 0',
  { skip },
  async (t) => {
    if (!('server' in found)) return;
    const graceMs = 4_000;
    const { service, proxy } = await proxiedService(t, graceMs, {
      DB_STATEMENT_TIMEOUT_MS: '1000',
      DB_CONNECT_TIMEOUT_MS: '1000',
    });
    // Connections open in the pools, the event stream's and the webhook workers' listeners.
    for (const path of ['/api/tasks', '/api/projects', '/api/health/ready']) {
      assert.equal((await fetch(`${service.baseUrl}${path}`)).status, 200);
    }

    // The server silent (a network cut): nothing comes back, not even the end of a connection the service closes.
    proxy.freeze();
    const inFlight = fetch(`${service.baseUrl}/api/projects`);
    await sleepMs(200);
    const { code, after } = await terminate(service, graceMs);
    assert.equal(code, 0, service.output().split('\n').slice(-6).join('\n'));
    assert.ok(after < graceMs, `exited ${Math.round(after)} ms after SIGTERM`);
    const answer = await inFlight;
    const text = await answer.text();
    const res = { status: answer.status, headers: Object.fromEntries(answer.headers), text, body: JSON.parse(text) };
    assertError(res, 503, 'SERVICE_UNAVAILABLE');
    assert.match(service.output(), /stopped: every request answered/);
    assert.doesNotMatch(service.output(), /grace period/);
  },
);

test(
  'SIGTERM with nothing in flight while the database does not answer: the stop does not wait for the statement timeout',
  { skip },
  async (t) => {
    if (!('server' in found)) return;
    const graceMs = 6_000;
    // The default statement timeout (10 s), longer than the grace: no step of the stop may wait for it.
    const { service, proxy } = await proxiedService(t, graceMs, { WEBHOOK_POLL_MS: '100' });
    assert.equal((await fetch(`${service.baseUrl}/api/health/ready`)).status, 200);

    // The server silent; the webhook workers' poll (every 100 ms) has a claim waiting on it when the signal comes.
    proxy.freeze();
    await sleepMs(500);
    const { code, after } = await terminate(service, graceMs);
    assert.equal(code, 0, service.output().split('\n').slice(-6).join('\n'));
    assert.ok(after < 4_000, `exited ${Math.round(after)} ms after SIGTERM`);
    assert.match(service.output(), /stopped: every request answered/);
  },
);

const sleepMs = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A service process on a new database behind a proxy, stopped with `graceMs`; both gone when the test ends. */
async function proxiedService(
  t: { after: (fn: () => Promise<void> | void) => void },
  graceMs: number,
  env: Record<string, string>,
): Promise<{ service: ServerProcess; proxy: TcpProxy }> {
  const { url, proxy } = await proxiedDatabase(t);
  const service = await startServer(['--shutdown-grace-ms', String(graceMs)], {
    DATABASE_URL: proxy.urlFor(url),
    ...env,
  });
  t.after(() => killAll(service.child));
  return { service, proxy };
}

/** Sends SIGTERM: the exit code ('still running' well past the grace period) and how long after the signal it came. */
async function terminate(service: ServerProcess, graceMs: number): Promise<{ code: unknown; after: number }> {
  const signalled = performance.now();
  service.child.kill('SIGTERM');
  const code = await Promise.race([service.exited, sleepMs(graceMs + 5_000).then(() => 'still running')]);
  return { code, after: performance.now() - signalled };
}

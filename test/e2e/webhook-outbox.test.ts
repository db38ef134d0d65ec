/**
 * Webhook deliveries across restarts and instances, through the real start command: with `DATA_DIR`, a retry
 * pending at SIGTERM and an attempt cut short by it go out after a restart, and the delivery log is intact; with
 * two instances on one PostgreSQL database (`TEST_DATABASE_URL`), seeding happens once, writes and `If-Match` are
 * shared, 100 events are each answered once, and after `kill -9` of one instance with failing and in-flight
 * deliveries the other delivers all of them.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAll, startServer, type ServerProcess } from '../helpers/server-process.ts';
import { until } from '../helpers/until.ts';
import { testServer } from '../store/sql-harness.ts';

const found = await testServer();
const pgSkip = 'skip' in found ? found.skip : undefined;
if (pgSkip) console.log(`# the two-instance webhook tests are skipped: ${pgSkip}`);

type Mode = 'ok' | 'fail' | 'hang';

/** A receiver whose answer the test switches: 200, 500, or none at all. Counts each event's 2xx answers. */
async function switchable(t: TestContext) {
  let mode: Mode = 'ok';
  const answered = new Map<string, number>();
  const arrivals: string[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      arrivals.push(id);
      if (mode === 'hang') return void hanging.add(res);
      if (mode === 'fail') return void res.writeHead(500).end();
      answered.set(id, (answered.get(id) ?? 0) + 1);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    answered,
    arrivals,
    set(m: Mode) {
      mode = m;
      if (m !== 'hang') {
        for (const res of hanging) res.destroy();
        hanging.clear();
      }
    },
  };
}

async function call(server: ServerProcess, method: string, path: string, body?: unknown, headers = {}) {
  const res = await fetch(new URL(path, server.baseUrl), {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** The service with webhooks to loopback allowed, short timeouts and retries. */
const ENV = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s,1s,1s',
  WEBHOOK_POLL_MS: '200',
};

async function start(t: TestContext, env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServer([], { ...ENV, ...env }, { startTimeoutMs: 90_000 });
  t.after(() => killAll(server.child));
  return server;
}

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0, server.output());
}

test('DATA_DIR: a retry pending and an attempt in flight at SIGTERM go out after a restart; the log is intact', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-outbox-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const rx = await switchable(t);
  const env = {
    DATA_DIR: dir,
    SHUTDOWN_GRACE_MS: '1500',
    WEBHOOK_TIMEOUT_MS: '5000',
    WEBHOOK_RETRY_SCHEDULE: '3s,3s,3s,3s,3s,3s,3s,3s',
  };

  let server = await start(t, env);
  const hook = (await call(server, 'POST', '/api/webhooks', { url: rx.url, events: ['task.created'] })).body.data;
  rx.set('fail');
  await call(server, 'POST', '/api/tasks', { projectId: 'proj_001', title: 'Fails first' });
  await until('the failed first attempt', () => rx.arrivals.length === 1);
  rx.set('hang');
  const inFlight = (await call(server, 'POST', '/api/tasks', { projectId: 'proj_001', title: 'In flight' })).body;
  await until('the attempt in flight', () => rx.arrivals.length >= 2);
  await stop(server);
  assert.equal(rx.answered.size, 0);

  rx.set('ok');
  server = await start(t, env);
  await until('both events answered after the restart', () => rx.answered.size === 2);
  const log = (await call(server, 'GET', `/api/webhooks/${hook.id}/deliveries`)).body.data;
  const byEvent = new Map<string, any[]>();
  for (const d of log) byEvent.set(d.eventId, [...(byEvent.get(d.eventId) ?? []), d]);
  assert.equal(byEvent.size, 2);
  for (const attempts of byEvent.values()) {
    // Newest first: the success after the restart, then the failed attempts made before it, each kept.
    assert.deepEqual(
      attempts.map((d) => d.status),
      ['succeeded', ...attempts.slice(1).map(() => 'failed')],
      JSON.stringify(attempts),
    );
    assert.equal(attempts[0].url, rx.url);
  }
  const [first, cut] = [...byEvent.values()].sort((x, y) => y.length - x.length);
  assert.ok(first!.length >= 2, 'the failed attempt made before the stop is in the log');
  assert.equal(cut!.length, 1, 'the attempt cut short by the stop was made again after it, not recorded as failed');
  assert.equal(rx.answered.get(inFlight.data ? cut![0].eventId : '') ?? 1, 1);
  await stop(server);
});

test(
  'two instances on one PostgreSQL database: seeded once, shared writes and If-Match',
  { skip: pgSkip },
  async (t) => {
    if (!('server' in found)) return;
    t.after(() => found.server.dropAll());
    const url = await found.server.database();
    const [a, b] = await Promise.all([start(t, { DATABASE_URL: url }), start(t, { DATABASE_URL: url })]);
    for (const s of [a, b]) assert.equal((await call(s, 'GET', '/api/projects')).body.count, 5, 'seeded once');
    const created = (await call(a, 'POST', '/api/tasks', { projectId: 'proj_001', title: 'On A' })).body.data;
    assert.equal((await call(b, 'GET', `/api/tasks/${created.id}`)).body.data.title, 'On A');
    const etag = (await call(a, 'GET', `/api/tasks/${created.id}`)).headers.get('etag')!;
    assert.equal(
      (await call(b, 'PATCH', `/api/tasks/${created.id}`, { title: 'B' }, { 'if-match': etag })).status,
      200,
    );
    assert.equal(
      (await call(a, 'PATCH', `/api/tasks/${created.id}`, { title: 'A' }, { 'if-match': etag })).status,
      412,
    );
  },
);

test('two instances: 100 events spread over both are each answered once', { skip: pgSkip }, async (t) => {
  if (!('server' in found)) return;
  t.after(() => found.server.dropAll());
  const url = await found.server.database();
  const rx = await switchable(t);
  const [a, b] = await Promise.all([start(t, { DATABASE_URL: url }), start(t, { DATABASE_URL: url })]);
  await call(a, 'POST', '/api/webhooks', { url: rx.url, events: ['task.created'] });
  const posts = Array.from({ length: 100 }, (_, i) =>
    call(i % 2 ? a : b, 'POST', '/api/tasks', { projectId: 'proj_001', title: `Event ${i}` }),
  );
  assert.deepEqual(new Set((await Promise.all(posts)).map((r) => r.status)), new Set([201]));
  await until('100 events answered', () => rx.answered.size === 100);
  await new Promise((r) => setTimeout(r, 1_000)); // time for a duplicate to show up, if any
  assert.deepEqual(new Set(rx.answered.values()), new Set([1]), 'each event answered once');
  assert.equal(rx.arrivals.length, 100, 'no attempt made twice');
});

test(
  'two instances: after kill -9 of one with failing and in-flight deliveries, the other delivers them all',
  { skip: pgSkip },
  async (t) => {
    if (!('server' in found)) return;
    t.after(() => found.server.dropAll());
    const url = await found.server.database();
    const rx = await switchable(t);
    // Only A runs at first, so that it holds every delivery when it dies.
    const a = await start(t, { DATABASE_URL: url });
    await call(a, 'POST', '/api/webhooks', { url: rx.url, events: ['task.created'] });
    rx.set('fail');
    for (let i = 0; i < 5; i++) await call(a, 'POST', '/api/tasks', { projectId: 'proj_001', title: `Failing ${i}` });
    await until('the failing attempts', () => new Set(rx.arrivals).size === 5);
    rx.set('hang');
    const before = rx.arrivals.length;
    for (let i = 0; i < 3; i++) await call(a, 'POST', '/api/tasks', { projectId: 'proj_001', title: `In flight ${i}` });
    await until('attempts in flight', () => rx.arrivals.length >= before + 3);
    killAll(a.child);
    await a.exited;
    rx.set('ok');
    const b = await start(t, { DATABASE_URL: url });
    await until('all 8 events answered by the other instance', () => rx.answered.size === 8, 40_000);
    assert.deepEqual(new Set(rx.answered.values()), new Set([1]));
    await stop(b);
  },
);

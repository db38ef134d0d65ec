import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { Metrics, metricsServer, outcomeOf } from '../../src/metrics/index.ts';
import { realTimers } from '../../src/webhooks/types.ts';
import { testApp } from '../helpers/app.ts';
import { ADMIN_TOKEN, AS_ADMIN, authApp, bearer } from '../helpers/auth.ts';
import { appWithReceivers, receiver, subscribe } from '../webhooks/helpers.ts';
import { byName, sampleOf, samples, scrape, valueOf } from './helpers.ts';

/** The service's own families and their types (the process's and the runtime's come besides). */
const FAMILIES = {
  http_server_request_duration_seconds: 'HISTOGRAM',
  http_server_unavailable_responses_total: 'COUNTER',
  webhook_delivery_attempts_total: 'COUNTER',
  webhook_delivery_attempts_settled_total: 'COUNTER',
  webhook_delivery_delay_seconds: 'HISTOGRAM',
  webhook_outbox_deliveries: 'GAUGE',
  event_stream_clients: 'GAUGE',
  event_stream_events_sent_total: 'COUNTER',
};

/** A record id anywhere in a label value: `task_001`, `proj_ab12…`. */
const ID = /\b(proj|task|team|cmt|ms|te|wh|act|notif|dlv|evt|tok)_[A-Za-z0-9]/;

test('GET /metrics: the Prometheus text format, every family with its type and help, names by the rules', async (t) => {
  const { app } = await testApp(t);
  await app.inject('/api/tasks/task_001');
  const { families, contentType, text } = await scrape(app);
  assert.match(String(contentType), /^text\/plain; version=0\.0\.4/);
  for (const [name, type] of Object.entries(FAMILIES)) assert.equal(families.get(name)?.type, type, name);
  for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds']) {
    assert.ok(families.has(name), `${name} (collectDefaultMetrics)`);
  }
  assert.ok(families.has('nodejs_gc_duration_seconds'), 'GC durations');
  for (const family of families.values()) {
    assert.ok(family.help.length > 0, `${family.name} has help`);
    assert.match(family.name, /^[a-z_][a-z0-9_]*$/);
    if (family.type === 'COUNTER') assert.match(family.name, /_total$/, `${family.name}: a counter ends in _total`);
    else assert.doesNotMatch(family.name, /_total$/, `${family.name}: only a counter ends in _total`);
  }
  // Only the memory store here: the SQL store's families are absent rather than zero.
  assert.ok(!families.has('db_pool_connections'));
  assert.ok(!/^db_/m.test(text));
});

test('a request moves the duration histogram, labelled by method, route template and status class', async (t) => {
  const { app } = await testApp(t);
  const count = 'http_server_request_duration_seconds_count';
  const labels = { method: 'GET', route: '/api/tasks/:id', status_class: '2xx' };
  const was = sampleOf((await scrape(app)).text, count, labels) ?? 0;
  await app.inject('/api/tasks/task_001');
  await app.inject('/api/tasks/task_001');
  await app.inject('/api/tasks/task_nope'); // 404 on the route: its template, not the id
  await app.inject('/api/no-such-thing/task_002'); // no route at all
  const { text, families } = await scrape(app);
  assert.equal(sampleOf(text, count, labels), was + 2);
  assert.equal(sampleOf(text, count, { ...labels, status_class: '4xx' }), 1);
  assert.equal(sampleOf(text, count, { route: 'unmatched', status_class: '4xx' }), 1);
  const series = samples(text, count);
  assert.ok(series.length >= 3);
  for (const { labels: own } of series) {
    assert.deepEqual(Object.keys(own).sort(), ['method', 'route', 'status_class']);
    assert.match(own.status_class!, /^[1-5]xx$/);
  }
  for (const family of families.values()) {
    for (const sample of family.metrics) {
      for (const value of Object.values(sample.labels ?? {}))
        assert.doesNotMatch(value, ID, `${family.name}: ${value}`);
    }
  }
  for (const { labels: own } of samples(text, 'http_server_request_duration_seconds_bucket')) {
    for (const value of Object.values(own)) assert.doesNotMatch(value, ID, value);
  }
});

test('a webhook attempt moves the attempts, their outcomes and the delay from the commit', async (t) => {
  let fail = true;
  const hook = await receiver(t, (_req, res) => {
    res.statusCode = fail ? 500 : 200;
    res.end();
  });
  // Real timers: the receiver answers over real sockets, and the retry comes 30 ms after.
  const { app, api, watched } = await appWithReceivers(t, { scheduler: realTimers });
  await subscribe(api, hook.url, ['task.created']);
  const created = await api.post('/api/tasks', { projectId: 'proj_001', title: 'Counted' });
  assert.equal(created.status, 201);
  await watched.until(1); // the first attempt fails: a retry is scheduled
  fail = false;
  await watched.until(2); // the retry succeeds
  const { families, text } = await scrape(app);
  assert.equal(valueOf(families.get('webhook_delivery_attempts_total')), 2);
  const settled = families.get('webhook_delivery_attempts_settled_total');
  assert.equal(valueOf(settled, { outcome: 'retried' }), 1);
  assert.equal(valueOf(settled, { outcome: 'succeeded' }), 1);
  assert.equal(sampleOf(text, 'webhook_delivery_delay_seconds_count'), 1, 'first attempts only');
  assert.equal(valueOf(families.get('webhook_outbox_deliveries'), { state: 'due' }), 0);
  assert.equal(valueOf(families.get('webhook_outbox_deliveries'), { state: 'waiting' }), 0);
});

test('outcomes: succeeded, retried, failed, refused, cancelled', () => {
  const base = { nextAttemptAt: null, stopReason: null };
  assert.equal(outcomeOf({ ...base, status: 'succeeded' }), 'succeeded');
  assert.equal(outcomeOf({ ...base, status: 'failed', nextAttemptAt: '2026-11-22T10:00:05.000Z' }), 'retried');
  assert.equal(outcomeOf({ ...base, status: 'failed', stopReason: 'exhausted' }), 'failed');
  assert.equal(outcomeOf({ ...base, status: 'refused', stopReason: 'refused' }), 'refused');
  assert.equal(outcomeOf({ ...base, status: 'failed', stopReason: 'cancelled: webhook deleted' }), 'cancelled');
});

test("a SQL store's pool and conflict retries, read at the scrape", async () => {
  const metrics = new Metrics({
    backlog: async () => ({ due: 3, waiting: 7 }),
    store: () => ({ conflictRetries: 4, pool: { inUse: 2, idle: 5, waiting: 1 } }),
  });
  const families = byName((await metrics.scrape()).text);
  assert.equal(families.get('db_transaction_conflict_retries_total')?.type, 'COUNTER');
  assert.equal(valueOf(families.get('db_transaction_conflict_retries_total')), 4);
  assert.equal(valueOf(families.get('db_pool_connections'), { state: 'in_use' }), 2);
  assert.equal(valueOf(families.get('db_pool_connections'), { state: 'idle' }), 5);
  assert.equal(valueOf(families.get('db_pool_waiting_requests')), 1);
  assert.equal(valueOf(families.get('webhook_outbox_deliveries'), { state: 'due' }), 3);
  assert.equal(valueOf(families.get('webhook_outbox_deliveries'), { state: 'waiting' }), 7);
  metrics.unavailable.inc({ reason: 'contention' });
  const again = byName((await metrics.scrape()).text);
  assert.equal(valueOf(again.get('http_server_unavailable_responses_total'), { reason: 'contention' }), 1);
});

test('a store that is away: the scrape still answers', async () => {
  const metrics = new Metrics({ backlog: () => Promise.reject(new Error('the database is unavailable')) });
  assert.ok(byName((await metrics.scrape()).text).has('webhook_outbox_deliveries'));
});

test('METRICS=false: no /metrics, nothing timed', async (t) => {
  const { app } = await testApp(t, { config: { logLevel: 'silent', metrics: false } });
  assert.equal(app.metrics, null);
  assert.equal((await app.inject('/metrics')).statusCode, 404);
});

test('not in the OpenAPI document', async (t) => {
  const { app } = await testApp(t);
  const doc = (await app.inject('/api/openapi.json')).json() as { paths: Record<string, unknown> };
  assert.ok(!Object.keys(doc.paths).some((path) => path.includes('metrics')));
});

test('AUTH=token: /metrics needs a token with the admin scope', async (t) => {
  const { app, issue } = await authApp(t);
  assert.equal((await app.inject('/metrics')).statusCode, 401);
  const { token } = await issue({ username: 'reader', scopes: ['read', 'write'] });
  assert.equal((await app.inject({ url: '/metrics', headers: bearer(token) })).statusCode, 403);
  assert.equal((await app.inject({ url: '/metrics', headers: AS_ADMIN })).statusCode, 200);
  assert.equal((await app.inject({ url: '/metrics', headers: bearer(ADMIN_TOKEN) })).statusCode, 200);
  // Outside the API, the rest stays public.
  assert.equal((await app.inject('/api/health')).statusCode, 200);
});

test('METRICS_PORT: the metrics on a listener of their own, not on the service port', async (t) => {
  const { app } = await testApp(t, { config: { logLevel: 'silent', metricsPort: 0 } });
  assert.equal((await app.inject('/metrics')).statusCode, 404);
  const server = metricsServer(app.metrics!).listen(0, '127.0.0.1');
  t.after(() => server.close());
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const res = await fetch(`${base}/metrics`);
  assert.equal(res.status, 200);
  assert.ok(byName(await res.text()).has('http_server_request_duration_seconds'));
  assert.equal((await fetch(`${base}/other`)).status, 404);
  assert.equal((await fetch(`${base}/metrics`, { method: 'POST' })).status, 405);
});

test('promtool check metrics passes on the output', async (t) => {
  const run = promisify(execFile);
  try {
    await run('promtool', ['--version']);
  } catch {
    return t.skip('promtool is not installed (Debian: apt-get install prometheus)');
  }
  const { app } = await testApp(t);
  await app.inject('/api/tasks/task_001');
  const { text } = await scrape(app);
  const child = execFile('promtool', ['check', 'metrics']);
  child.stdin!.end(text);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk));
  const [code] = (await once(child, 'close')) as [number];
  assert.equal(code, 0, out);
  assert.equal(out.trim(), '', out);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../../src/model/time.ts';
import { TestDispatcher as WebhookDispatcher } from '../helpers/dispatcher.ts';
import {
  appWithReceivers,
  captureLogger,
  chronological,
  dispatcher,
  event,
  gate,
  receiver,
  sequentialIds,
  subscribe,
  target,
} from './helpers.ts';

test('at most `concurrency` requests are in flight; the rest wait their turn in order', async (t) => {
  const slow = gate();
  const rx = await receiver(t, slow.handler);
  const { d } = dispatcher(t, { concurrency: 2, timeoutMs: 2_000 });
  const events = Array.from({ length: 6 }, () => event());
  for (const e of events) d.enqueue(target(rx.url), e);
  await rx.arrived(2);
  assert.deepEqual(await d.stats(), { pending: 6, inFlight: 2 }, 'the others wait for an answer');
  slow.release();
  await d.idle();
  assert.equal(rx.requests.length, 6);
  assert.equal(rx.maxConcurrent, 2);
  // FIFO: they go two by two in the order queued (within a pair, either may reach the receiver first).
  const pairs = (ids: unknown[]) => [0, 2, 4].map((i) => ids.slice(i, i + 2).sort());
  assert.deepEqual(pairs(rx.requests.map((r) => r.headers['webhook-id'])), pairs(events.map((e) => e.id)));
  assert.ok((await d.deliveries('wh_001')).every((r) => r.status === 'succeeded'));
});

test('the default 32 requests in flight at once (4 webhooks, 8 each) make Node print no warning (each listens for the shutdown)', async (t) => {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  t.after(() => process.off('warning', onWarning));
  const slow = gate();
  const rx = await receiver(t, slow.handler);
  const { d } = dispatcher(t, { timeoutMs: 2_000 }); // concurrency: the default, 32
  for (let i = 0; i < 40; i++) d.enqueue(target(rx.url, `wh_${i % 4}`), event());
  await rx.arrived(32);
  assert.equal(rx.concurrent, 32);
  slow.release();
  await d.idle();
  assert.equal(rx.requests.length, 40);
  await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  assert.deepEqual(
    warnings.map((w) => w.name),
    [],
  );
});

test('a full queue drops the delivery, records it as failed "queue full" and warns', async (t) => {
  const slow = gate();
  const rx = await receiver(t, slow.handler);
  const { d, log } = dispatcher(t, { concurrency: 1, maxQueue: 3, timeoutMs: 2_000 });
  const events = Array.from({ length: 5 }, () => event());
  for (const e of events) d.enqueue(target(rx.url), e);
  assert.equal((await d.stats()).pending, 3);
  const dropped = (await d.deliveries('wh_001')).filter((r) => r.error === 'queue full');
  assert.deepEqual(
    dropped.map((r) => [r.eventId, r.status, r.attempt, r.nextAttemptAt]),
    [
      [events[4]!.id, 'failed', 1, null],
      [events[3]!.id, 'failed', 1, null],
    ],
  );
  // Two drops in a row: one warning (the log is rate-limited while the queue stays full).
  const warnings = log.lines.filter((l) => l.level === 'warn' && /queue full/.test(l.msg ?? ''));
  assert.equal(warnings.length, 1);
  assert.equal((warnings[0]!.obj as { dropped: number }).dropped, 1);
  slow.release();
  await d.idle();
  assert.deepEqual(
    rx.requests.map((r) => r.headers['webhook-id']),
    events.slice(0, 3).map((e) => e.id),
  );
  // Room again once they are done.
  d.enqueue(target(rx.url), event());
  await d.idle();
  assert.equal(rx.requests.length, 4);
  assert.equal((await d.deliveries('wh_001'))[0]!.status, 'succeeded');
});

test('scheduled retries count toward maxQueue', async (t) => {
  const rx = await receiver(t, (_req, res) => void res.writeHead(500).end());
  const { d, timers } = dispatcher(t, { maxQueue: 2, retrySchedule: [5_000] });
  d.enqueue(target(rx.url), event());
  d.enqueue(target(rx.url), event());
  await d.idle();
  assert.deepEqual(timers.pending, [5_000], 'both waiting to retry (one wake-up for both)');
  d.enqueue(target(rx.url), event());
  assert.equal((await d.deliveries('wh_001'))[0]!.error, 'queue full');
  assert.deepEqual(await d.stats(), { pending: 2, inFlight: 0 });
});

test('Retry-After asking for longer than the step is honoured', async (t) => {
  const rx = await receiver(
    t,
    (_req, res, n) => void (n === 1 ? res.writeHead(503, { 'retry-after': '1' }).end() : res.end('ok')),
  );
  const { d, timers } = dispatcher(t, { retrySchedule: [50, 2_000] });
  d.enqueue(target(rx.url), event());
  await d.idle();
  assert.deepEqual(timers.pending, [1_000]);
  timers.advance(999);
  await d.idle();
  assert.equal(rx.requests.length, 1, 'not at the scheduled step');
  timers.advance(1);
  await d.idle();
  assert.equal(rx.requests.length, 2);
  const [first] = chronological(await d.deliveries('wh_001'));
  const planned = Date.parse(first!.nextAttemptAt!) - Date.parse(first!.completedAt!);
  assert.equal(planned, 1_000, 'nextAttemptAt is Retry-After after the failure');
});

test('retries stop when the webhook is no longer active; the attempt due says so', async (t) => {
  const rx = await receiver(t, (_req, res) => void res.writeHead(500).end());
  let active = true;
  const checked: string[] = [];
  const { d, timers } = dispatcher(t, {
    isActive: async (id) => {
      checked.push(id);
      return active;
    },
  });
  d.enqueue(target(rx.url), event());
  await d.idle();
  timers.advance(50);
  await d.idle();
  assert.equal(rx.requests.length, 2);
  active = false;
  timers.advance(100);
  await d.idle();
  assert.deepEqual(await d.stats(), { pending: 0, inFlight: 0 });
  assert.deepEqual(timers.pending, []);
  assert.equal(rx.requests.length, 2);
  assert.deepEqual(checked, ['wh_001', 'wh_001', 'wh_001'], 'read before every attempt');
  const [last] = await d.deliveries('wh_001');
  assert.deepEqual(
    [last!.attempt, last!.status, last!.error, last!.stopReason, last!.url, last!.nextAttemptAt],
    [3, 'failed', 'cancelled: webhook inactive', 'cancelled: webhook inactive', null, null],
  );
});

test('forget drops the history and pending retries of a deleted webhook', async (t) => {
  const rx = await receiver(t, (_req, res) => void res.writeHead(500).end());
  const { d, timers } = dispatcher(t, { retrySchedule: [100] });
  d.enqueue(target(rx.url), event());
  await d.idle();
  assert.deepEqual(timers.pending, [100]);
  d.forget('wh_001');
  await d.idle();
  assert.deepEqual(await d.deliveries('wh_001'), []);
  assert.deepEqual(await d.stats(), { pending: 0, inFlight: 0 });
  timers.advance(100);
  await d.idle();
  assert.equal(rx.requests.length, 1);
});

test('the body is serialized once per event, whatever the number of webhooks and attempts', async (t) => {
  const rx = await receiver(t, (_req, res, n) => void res.writeHead(n <= 2 ? 500 : 200).end());
  const { d, timers } = dispatcher(t);
  let serialized = 0;
  const data = { toJSON: () => (serialized++, { id: 'task_1' }) };
  const evt = event({ data });
  d.enqueue(target(rx.url, 'wh_a'), evt);
  d.enqueue(target(rx.url, 'wh_b'), evt);
  await d.idle();
  timers.advance(50);
  await d.idle();
  assert.equal(rx.requests.length, 4);
  assert.equal(serialized, 1);
});

test('enqueue never throws at the caller; a delivery that cannot be signed or serialized fails for good', async (t) => {
  const { d, log } = dispatcher(t);
  assert.doesNotThrow(() => d.enqueue({ id: 'wh_bad', url: 'http://127.0.0.1:1/', secret: 'not a secret!' }, event()));
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  assert.doesNotThrow(() => d.enqueue(target('http://127.0.0.1:1/'), event({ data: circular })));
  await d.idle();
  for (const webhookId of ['wh_bad', 'wh_001']) {
    const [record] = await d.deliveries(webhookId);
    assert.equal(record?.status, 'failed', webhookId);
    assert.match(String(record?.error), /^could not be signed: /);
    assert.equal(record?.nextAttemptAt, null);
  }
  assert.equal(log.lines.filter((l) => l.level === 'error').length, 2);
  assert.deepEqual(await d.stats(), { pending: 0, inFlight: 0 });
});

test('options that cannot work are refused at construction', () => {
  const base = { clock: systemClock, ids: sequentialIds(), log: captureLogger(), allowPrivate: false };
  for (const bad of [
    { concurrency: 0 },
    { maxQueue: 1.5 },
    { timeoutMs: -1 },
    { historyPerWebhook: 0 },
    { retrySchedule: [5, Number.NaN] },
    { jitter: 1 },
  ]) {
    assert.throws(() => new WebhookDispatcher({ ...base, ...bad }), /WebhookDispatcher: /, JSON.stringify(bad));
  }
});

test('a receiver that hangs does not hold up the API: the write has answered while the delivery is still open', async (t) => {
  const { api } = await appWithReceivers(t, { timeoutMs: 5_000 });
  const r = await receiver(t, () => new Promise<void>(() => {})); // never answers
  await subscribe(api, r.url, ['task.created']);
  const created: number[] = [];
  for (let i = 0; i < 20; i++)
    created.push((await api.post('/api/tasks', { projectId: 'proj_001', title: `T${i}` })).status);
  assert.deepEqual(new Set(created), new Set([201]));
  await r.arrived(8);
  assert.equal(r.concurrent, 8, 'outbound requests to one webhook bounded by the per-webhook limit (the default, 8)');
  assert.equal((await api.get('/api/tasks?projectId=proj_001')).body.count, 23);
});

test('a receiver that hangs holds only its own share of the slots: a healthy webhook next to it is not delayed', async (t) => {
  const { api } = await appWithReceivers(t, { timeoutMs: 5_000, concurrency: 4, perWebhookConcurrency: 2 });
  const hanging = await receiver(t, () => new Promise<void>(() => {})); // never answers
  const healthy = await receiver(t);
  await subscribe(api, hanging.url, ['task.created']);
  for (let i = 0; i < 10; i++) await api.post('/api/tasks', { projectId: 'proj_001', title: `Hung ${i}` });
  await hanging.arrived(2);
  await subscribe(api, healthy.url, ['task.updated']);
  for (let i = 0; i < 10; i++) await api.patch('/api/tasks/task_001', { title: `Healthy ${i}` });
  const written = performance.now();
  await healthy.arrived(10);
  assert.ok(performance.now() - written < 2_000, 'the healthy deliveries went out while the other receiver hung');
  assert.equal(hanging.concurrent, 2, 'the hanging receiver holds its two slots, no more');
  assert.ok(healthy.maxConcurrent <= 2);
});

test('an observer that throws is logged and changes nothing: the delivery and its retry go on', async (t) => {
  const rx = await receiver(t, (_req, res, n) => void res.writeHead(n === 1 ? 500 : 204).end());
  const seen: string[] = [];
  const observer = {
    settled(record: { status: string }) {
      seen.push(record.status);
      throw new Error('observer broke');
    },
  };
  const { d, log, timers } = dispatcher(t, { observer });
  d.enqueue(target(rx.url), event());
  await d.idle();
  timers.advance(50);
  await d.idle();
  assert.deepEqual(seen, ['failed', 'succeeded']);
  assert.deepEqual(
    chronological(await d.deliveries('wh_001')).map((r) => r.status),
    ['failed', 'succeeded'],
  );
  assert.equal(log.lines.filter((l) => l.level === 'error' && /observer failed/.test(l.msg ?? '')).length, 2);
});

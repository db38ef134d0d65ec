import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../../src/core/runtime.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import {
  captureLogger,
  chronological,
  dispatcher,
  event,
  idle,
  receiver,
  sequentialIds,
  sleep,
  target,
  waitFor,
} from './helpers.ts';

test('at most `concurrency` requests are in flight; the rest wait their turn in order', async (t) => {
  const rx = await receiver(t, async (_req, res) => {
    await sleep(80);
    res.end('ok');
  });
  const { d } = dispatcher(t, { concurrency: 2, timeoutMs: 2_000 });
  const events = Array.from({ length: 6 }, () => event());
  for (const e of events) d.enqueue(target(rx.url), e);
  assert.deepEqual(d.stats(), { queued: 4, inFlight: 2, scheduledRetries: 0 });
  await waitFor('all delivered', () => idle(d) && rx.requests.length === 6);
  assert.equal(rx.maxConcurrent, 2);
  // FIFO: they go two by two in the order queued (within a pair, either may reach the receiver first).
  const pairs = (ids: unknown[]) => [0, 2, 4].map((i) => ids.slice(i, i + 2).sort());
  assert.deepEqual(pairs(rx.requests.map((r) => r.headers['webhook-id'])), pairs(events.map((e) => e.id)));
  assert.ok(d.deliveries('wh_001').every((r) => r.status === 'succeeded'));
});

test('the default 16 requests in flight at once make Node print no warning (each listens for the shutdown)', async (t) => {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  t.after(() => process.off('warning', onWarning));
  const rx = await receiver(t, async (_req, res) => {
    await sleep(100);
    res.end('ok');
  });
  const { d } = dispatcher(t, { timeoutMs: 2_000 }); // concurrency: the default, 16
  for (let i = 0; i < 20; i++) d.enqueue(target(rx.url), event());
  await waitFor('16 in flight', () => rx.concurrent === 16);
  await waitFor('all delivered', () => idle(d) && rx.requests.length === 20);
  await sleep(10); // warnings are emitted on the next tick
  assert.deepEqual(
    warnings.map((w) => w.name),
    [],
  );
});

test('a full queue drops the delivery, records it as failed "queue full" and warns', async (t) => {
  const rx = await receiver(t, async (_req, res) => {
    await sleep(50);
    res.end('ok');
  });
  const { d, log } = dispatcher(t, { concurrency: 1, maxQueue: 3, timeoutMs: 2_000 });
  const events = Array.from({ length: 5 }, () => event());
  for (const e of events) d.enqueue(target(rx.url), e);
  assert.deepEqual(d.stats(), { queued: 2, inFlight: 1, scheduledRetries: 0 });
  const dropped = d.deliveries('wh_001').filter((r) => r.error === 'queue full');
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
  await waitFor('accepted ones delivered', () => idle(d));
  assert.deepEqual(
    rx.requests.map((r) => r.headers['webhook-id']),
    events.slice(0, 3).map((e) => e.id),
  );
  // Room again once they are done.
  d.enqueue(target(rx.url), event());
  await waitFor('delivered', () => idle(d) && rx.requests.length === 4);
});

test('scheduled retries count toward maxQueue', async (t) => {
  const rx = await receiver(t, (_req, res) => void res.writeHead(500).end());
  const { d } = dispatcher(t, { maxQueue: 2, retrySchedule: [5_000] });
  d.enqueue(target(rx.url), event());
  d.enqueue(target(rx.url), event());
  await waitFor('both waiting to retry', () => d.stats().scheduledRetries === 2);
  d.enqueue(target(rx.url), event());
  assert.equal(d.deliveries('wh_001')[0]!.error, 'queue full');
  assert.deepEqual(d.stats(), { queued: 0, inFlight: 0, scheduledRetries: 2 });
});

test('history is bounded per webhook, newest first', async (t) => {
  const rx = await receiver(t);
  const { d } = dispatcher(t, { historyPerWebhook: 3 });
  const events = Array.from({ length: 5 }, () => event());
  for (const e of events) d.enqueue(target(rx.url), e);
  d.enqueue(target(rx.url, 'wh_other'), event());
  await waitFor('delivered', () => idle(d) && rx.requests.length === 6);
  assert.deepEqual(
    d.deliveries('wh_001').map((r) => r.eventId),
    [events[4]!.id, events[3]!.id, events[2]!.id],
  );
  assert.equal(d.deliveries('wh_other').length, 1);
  assert.deepEqual(d.deliveries('wh_unknown'), []);
  // Callers get copies.
  d.deliveries('wh_001')[0]!.status = 'failed';
  assert.equal(d.deliveries('wh_001')[0]!.status, 'succeeded');
});

test('redeliver sends the same event again with the same webhook-id, as a new delivery', async (t) => {
  const rx = await receiver(t);
  const { d } = dispatcher(t);
  const evt = event();
  d.enqueue(target(rx.url), evt);
  await waitFor('first delivery', () => idle(d));
  const original = d.deliveries('wh_001')[0]!;

  const again = d.redeliver('wh_001', original.id);
  assert.ok(again);
  assert.notEqual(again.id, original.id);
  assert.deepEqual([again.status, again.attempt, again.eventId, again.eventType], ['pending', 1, evt.id, evt.type]);
  await waitFor('redelivery', () => idle(d) && rx.requests.length === 2);
  assert.equal(rx.requests[1]!.headers['webhook-id'], evt.id);
  assert.equal(rx.requests[1]!.body, rx.requests[0]!.body);
  assert.deepEqual(
    d.deliveries('wh_001').map((r) => [r.id, r.status]),
    [
      [again.id, 'succeeded'],
      [original.id, 'succeeded'],
    ],
  );

  assert.equal(d.redeliver('wh_001', 'dlv_nope'), undefined);
  assert.equal(d.redeliver('wh_other', original.id), undefined, "another webhook's delivery");
});

test('Retry-After asking for longer than the step is honoured', async (t) => {
  const rx = await receiver(
    t,
    (_req, res, n) => void (n === 1 ? res.writeHead(503, { 'retry-after': '1' }).end() : res.end('ok')),
  );
  const { d } = dispatcher(t, { retrySchedule: [50, 2_000] });
  d.enqueue(target(rx.url), event());
  await waitFor('retry', () => idle(d) && rx.requests.length === 2, 4_000);
  const gap = rx.requests[1]!.at - rx.requests[0]!.at;
  assert.ok(gap >= 950 && gap < 3_000, `retry came ${gap} ms later`);
  const [first] = chronological(d.deliveries('wh_001'));
  const planned = Date.parse(first!.nextAttemptAt!) - Date.parse(first!.completedAt!);
  assert.equal(planned, 1_000, 'nextAttemptAt is Retry-After after the failure');
});

test('retries stop when the webhook is no longer active', async (t) => {
  const rx = await receiver(t, (_req, res) => void res.writeHead(500).end());
  let active = true;
  const checked: string[] = [];
  const { d } = dispatcher(t, {
    isActive: async (id) => {
      checked.push(id);
      return active;
    },
  });
  d.enqueue(target(rx.url), event());
  await waitFor('first retry', () => rx.requests.length === 2);
  active = false;
  await waitFor('stopped', () => idle(d) && d.stats().scheduledRetries === 0 && checked.length === 2);
  await sleep(150);
  assert.equal(rx.requests.length, 2);
  assert.deepEqual(checked, ['wh_001', 'wh_001']);
  assert.equal(d.deliveries('wh_001')[0]!.nextAttemptAt, null);
});

test('forget drops the history and pending retries of a deleted webhook', async (t) => {
  const rx = await receiver(t, (_req, res) => void res.writeHead(500).end());
  const { d } = dispatcher(t, { retrySchedule: [100] });
  d.enqueue(target(rx.url), event());
  await waitFor('retry scheduled', () => d.stats().scheduledRetries === 1);
  d.forget('wh_001');
  assert.deepEqual(d.deliveries('wh_001'), []);
  assert.deepEqual(d.stats(), { queued: 0, inFlight: 0, scheduledRetries: 0 });
  await sleep(200);
  assert.equal(rx.requests.length, 1);
});

test('the body is serialized once per event, whatever the number of webhooks and attempts', async (t) => {
  const rx = await receiver(t, (_req, res, n) => void res.writeHead(n <= 2 ? 500 : 200).end());
  const { d } = dispatcher(t);
  let serialized = 0;
  const data = { toJSON: () => (serialized++, { id: 'task_1' }) };
  const evt = event({ data });
  d.enqueue(target(rx.url, 'wh_a'), evt);
  d.enqueue(target(rx.url, 'wh_b'), evt);
  await waitFor('delivered', () => idle(d, 'wh_a') && idle(d, 'wh_b') && rx.requests.length === 4);
  assert.equal(serialized, 1);
});

test('enqueue never throws at the caller; a delivery that cannot be signed or serialized fails for good', async (t) => {
  const { d, log } = dispatcher(t);
  assert.doesNotThrow(() => d.enqueue({ id: 'wh_bad', url: 'http://127.0.0.1:1/', secret: 'not a secret!' }, event()));
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  assert.doesNotThrow(() => d.enqueue(target('http://127.0.0.1:1/'), event({ data: circular })));
  await waitFor('both settled', () => idle(d));
  for (const webhookId of ['wh_bad', 'wh_001']) {
    const [record] = d.deliveries(webhookId);
    assert.equal(record?.status, 'failed', webhookId);
    assert.match(String(record?.error), /^could not be signed: /);
    assert.equal(record?.nextAttemptAt, null);
  }
  assert.equal(log.lines.filter((l) => l.level === 'error').length, 2);
  assert.deepEqual(d.stats(), { queued: 0, inFlight: 0, scheduledRetries: 0 });
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

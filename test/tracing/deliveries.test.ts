/**
 * The span of each webhook attempt links to the request that caused its delivery, through the trace context kept
 * with the delivery in the outbox: after a restart too (a new app, its dispatcher over the same store), on every
 * store. Traces off, nothing is kept.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { Tracer } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { buildApp } from '../../src/app.ts';
import type { IdGenerator } from '../../src/model/ids.ts';
import { systemClock, type Clock } from '../../src/model/time.ts';
import { SqlStore } from '../../src/store/sql/store.ts';
import type { Store } from '../../src/store/store.ts';
import { Api, sequentialIds } from '../helpers/app.ts';
import { onEveryStore } from '../events/stores.ts';
import { receiver, subscribe, watch } from '../webhooks/helpers.ts';
import { memoryTracing } from './helpers.ts';

const { exporter, tracer } = memoryTracing();
const HOUR = 3_600_000;

/**
 * An instance of the service on `store`: loopback receivers allowed, one retry an hour after a failure, its
 * deliveries watched; closed when the test ends, unless closed before (`close`).
 */
async function instance(
  t: TestContext,
  store: Store,
  ids: IdGenerator,
  options: { tracer?: Tracer; seed: boolean; clock?: Clock },
) {
  const watched = watch();
  const app = await buildApp({
    store,
    ids,
    seed: options.seed,
    config: { logLevel: 'silent' },
    ...(options.tracer && { tracer: options.tracer }),
    webhooks: {
      allowPrivate: true,
      retrySchedule: [HOUR],
      jitter: 0,
      timeoutMs: 2_000,
      clock: options.clock ?? systemClock,
      observer: watched.observer,
    },
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
  };
  t.after(close);
  const api = new Api(app);
  if (options.seed) {
    // The seeded webhooks go to hosts that never resolve: off, so that only the test's receiver is delivered to.
    for (const id of ['wh_001', 'wh_002', 'wh_003']) await api.patch(`/api/webhooks/${id}`, { active: false });
  }
  return { api, watched, close };
}

/** The trace context the outbox keeps with each attempt of a webhook, oldest first (null: none). */
async function kept(store: Store, webhookId: string): Promise<(string | null)[]> {
  if (store instanceof SqlStore) {
    const rows = await store.driver.query<{ trace: string | null }>(
      'SELECT trace_parent AS trace FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY seq',
      [webhookId],
    );
    return rows.map((r) => r.trace);
  }
  return (await store.deliveries.list(webhookId)).reverse().map((row) => row.traceParent ?? null);
}

const named = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);
const attempts = () =>
  named('webhook delivery').sort(
    (a, b) => Number(a.attributes['webhook.delivery.attempt']) - Number(b.attributes['webhook.delivery.attempt']),
  );
const linksOf = (span: ReadableSpan) => span.links.map((l) => `${l.context.traceId}/${l.context.spanId}`);
const idOf = (span: ReadableSpan) => `${span.spanContext().traceId}/${span.spanContext().spanId}`;
const traceParentOf = (span: ReadableSpan) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;

onEveryStore('webhook attempt spans', (fresh) => {
  test('an attempt made after a restart links to the request whose change caused it', async (t) => {
    const rx = await receiver(t, (_req, res, n) => void res.writeHead(n === 1 ? 503 : 200).end());
    const store = await fresh();
    // One id generator for both lives: the second adds to the outbox the first left.
    const ids = sequentialIds();
    const first = await instance(t, store, ids, { tracer, seed: true });
    const hook = await subscribe(first.api, rx.url, ['task.created']);
    exporter.reset();
    assert.equal((await first.api.post('/api/tasks', { projectId: 'proj_001', title: 'Traced' })).status, 201);
    await first.watched.until(1); // answered 503: the retry is due in an hour
    await first.close();

    // Started again over the same store, an hour later: the retry is due, and a new dispatcher makes it.
    const later = { now: () => new Date(Date.now() + HOUR + 1_000) };
    const second = await instance(t, store, ids, { tracer, seed: false, clock: later });
    await second.watched.until(1);
    assert.equal(rx.requests.length, 2);

    const [request] = named('POST /api/tasks');
    assert.ok(request);
    assert.deepEqual(
      attempts().map((a) => [a.attributes['webhook.delivery.attempt'], a.attributes['webhook.delivery.status']]),
      [
        [1, 'failed'],
        [2, 'succeeded'],
      ],
    );
    for (const attempt of attempts()) assert.deepEqual(linksOf(attempt), [idOf(request)]);
    assert.deepEqual(await kept(store, hook.id), [traceParentOf(request), traceParentOf(request)]);
  });

  test('a ping and a redelivery link to the request that asked for them', async (t) => {
    const rx = await receiver(t);
    const store = await fresh();
    const { api, watched } = await instance(t, store, sequentialIds(), { tracer, seed: true });
    const hook = await subscribe(api, rx.url, ['task.created']);
    exporter.reset();
    const ping = await api.post(`/api/webhooks/${hook.id}/ping`);
    assert.equal(ping.status, 202);
    await watched.until(1);
    const again = await api.post(`/api/webhooks/${hook.id}/deliveries/${ping.body.data.id}/redeliver`);
    assert.equal(again.status, 202);
    await watched.until(2);
    const [pinged] = named('POST /api/webhooks/:id/ping');
    const [redelivered] = named('POST /api/webhooks/:id/deliveries/:deliveryId/redeliver');
    assert.ok(pinged && redelivered);
    assert.deepEqual(attempts().map(linksOf), [[idOf(pinged)], [idOf(redelivered)]]);
  });

  test('traces off: nothing is kept with a delivery', async (t) => {
    const rx = await receiver(t, (_req, res, n) => void res.writeHead(n === 1 ? 503 : 200).end());
    const store = await fresh();
    const ids = sequentialIds();
    const first = await instance(t, store, ids, { seed: true });
    const hook = await subscribe(first.api, rx.url, ['task.created']);
    exporter.reset();
    assert.equal((await first.api.post('/api/tasks', { projectId: 'proj_001', title: 'Untraced' })).status, 201);
    await first.watched.until(1);
    await first.close();
    const later = { now: () => new Date(Date.now() + HOUR + 1_000) };
    const second = await instance(t, store, ids, { seed: false, clock: later });
    await second.watched.until(1);
    assert.deepEqual(await kept(store, hook.id), [null, null]);
    assert.deepEqual(exporter.getFinishedSpans(), []);
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dispatcher, event, gate, receiver, target } from './helpers.ts';

/** Whether `promise` has settled by the time the work already queued has run. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.finally(() => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

test('close lets a request in flight finish within the grace period', async (t) => {
  const slow = gate();
  const rx = await receiver(t, slow.handler);
  const { d } = dispatcher(t, { timeoutMs: 2_000 });
  d.enqueue(target(rx.url), event());
  await rx.arrived(1);
  const closing = d.close(5_000);
  assert.equal(await settledYet(closing), false, 'close waits for the request in flight');
  slow.release();
  assert.deepEqual(await closing, { abandoned: 0 }, 'resolved when the request finished, before the grace period');
  assert.equal(d.deliveries('wh_001')[0]!.status, 'succeeded');
});

test('close waits up to the grace period for a slow request, then aborts it and reports it abandoned', async (t) => {
  const rx = await receiver(t, () => {}); // never answers
  const { d, log, timers } = dispatcher(t, { timeoutMs: 5_000 });
  const evt = event();
  d.enqueue(target(rx.url), evt);
  await rx.arrived(1);
  const closing = d.close(200);
  timers.advance(199);
  assert.equal(await settledYet(closing), false, 'still within the grace period');
  timers.advance(1);
  const { abandoned } = await closing;
  assert.equal(abandoned, 1);
  const [record] = d.deliveries('wh_001');
  assert.equal(record!.status, 'failed');
  assert.equal(record!.error, 'aborted: dispatcher closed');
  assert.equal(record!.nextAttemptAt, null, 'no retry after close');
  assert.deepEqual(timers.pending, []);
  assert.ok(log.lines.some((l) => l.level === 'warn' && /in flight after the grace period/.test(l.msg ?? '')));
});

test('close drops queued attempts and scheduled retries, logging their events, and stops accepting', async (t) => {
  const slow = gate();
  const rx = await receiver(t, slow.handler);
  const failing = await receiver(t, (_req, res) => void res.writeHead(500).end());
  const { d, log, timers } = dispatcher(t, { concurrency: 1, retrySchedule: [10_000], timeoutMs: 2_000 });
  d.enqueue(target(failing.url, 'wh_fail'), event({ id: 'evt_retry' }));
  await d.idle();
  assert.deepEqual(timers.pending, [10_000]);
  d.enqueue(target(rx.url), event({ id: 'evt_inflight' }));
  d.enqueue(target(rx.url), event({ id: 'evt_queued', type: 'project.updated' }));
  assert.deepEqual(d.stats(), { queued: 1, inFlight: 1, scheduledRetries: 1 });

  await rx.arrived(1);
  const closing = d.close(1_000);
  slow.release();
  const { abandoned } = await closing;
  assert.equal(abandoned, 2, 'the queued attempt and the retry; the request in flight finished');
  assert.deepEqual(d.stats(), { queued: 0, inFlight: 0, scheduledRetries: 0 });
  assert.deepEqual(timers.pending, [], 'the retry timer is cleared');
  assert.deepEqual(
    d.deliveries('wh_001').map((r) => [r.eventId, r.status, r.error]),
    [
      ['evt_queued', 'failed', 'abandoned: dispatcher closed before this attempt'],
      ['evt_inflight', 'succeeded', null],
    ],
  );
  assert.equal(d.deliveries('wh_fail')[0]!.nextAttemptAt, null);
  const warning = log.lines.find((l) => /abandoned at shutdown/.test(l.msg ?? ''));
  assert.deepEqual(warning?.obj, {
    count: 2,
    deliveries: [
      { webhookId: 'wh_001', eventId: 'evt_queued', eventType: 'project.updated', attempt: 1 },
      { webhookId: 'wh_fail', eventId: 'evt_retry', eventType: 'task.created', attempt: 1 },
    ],
  });

  d.enqueue(target(rx.url), event());
  assert.deepEqual(d.stats(), { queued: 0, inFlight: 0, scheduledRetries: 0 }, 'nothing accepted after close');
  assert.equal(d.redeliver('wh_001', d.deliveries('wh_001')[0]!.id), undefined);
  await d.idle();
  assert.equal(rx.requests.length, 1);
  assert.deepEqual(await d.close(0), { abandoned: 2 }, 'closing twice is harmless');
});

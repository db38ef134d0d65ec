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
  assert.deepEqual(await closing, { left: 0 }, 'resolved when the request finished, before the grace period');
  assert.equal((await d.deliveries('wh_001'))[0]!.status, 'succeeded');
});

test('close waits up to the grace period for a slow request, then aborts it and leaves it pending for retry', async (t) => {
  const rx = await receiver(t, () => {}); // never answers
  const { d, log, timers } = dispatcher(t, { timeoutMs: 5_000 });
  d.enqueue(target(rx.url), event());
  await rx.arrived(1);
  const closing = d.close(200);
  timers.advance(199);
  assert.equal(await settledYet(closing), false, 'still within the grace period');
  timers.advance(1);
  const { left } = await closing;
  assert.equal(left, 1);
  const [record] = await d.deliveries('wh_001');
  assert.equal(record!.status, 'pending', 'not recorded as failed: the next start (or another instance) makes it');
  assert.equal(record!.attempt, 1);
  assert.deepEqual(timers.pending, []);
  assert.ok(log.lines.some((l) => l.level === 'warn' && /in flight after the grace period/.test(l.msg ?? '')));
});

test('close leaves queued attempts and scheduled retries in the outbox, and stops accepting', async (t) => {
  const slow = gate();
  const rx = await receiver(t, slow.handler);
  const failing = await receiver(t, (_req, res) => void res.writeHead(500).end());
  const { d, log, timers } = dispatcher(t, { concurrency: 1, retrySchedule: [10_000], timeoutMs: 2_000 });
  d.enqueue(target(failing.url, 'wh_fail'), event({ id: 'evt_retry' }));
  await d.idle();
  assert.deepEqual(timers.pending, [10_000]);
  d.enqueue(target(rx.url), event({ id: 'evt_inflight' }));
  d.enqueue(target(rx.url), event({ id: 'evt_queued', type: 'project.updated' }));
  await rx.arrived(1);
  assert.deepEqual(await d.stats(), { pending: 3, inFlight: 1 });

  const closing = d.close(1_000);
  slow.release();
  const { left } = await closing;
  assert.equal(left, 2, 'the queued attempt and the retry; the request in flight finished');
  assert.deepEqual(timers.pending, [], 'the wake-up timer is cleared');
  assert.deepEqual(
    (await d.deliveries('wh_001')).map((r) => [r.eventId, r.status]),
    [
      ['evt_queued', 'pending'],
      ['evt_inflight', 'succeeded'],
    ],
  );
  assert.deepEqual(
    (await d.deliveries('wh_fail')).map((r) => [r.attempt, r.status]),
    [
      [2, 'pending'],
      [1, 'failed'],
    ],
  );
  assert.ok(log.lines.some((l) => l.level === 'warn' && /not yet made at shutdown/.test(l.msg ?? '')));

  d.enqueue(target(rx.url), event());
  assert.equal((await d.stats()).pending, 2, 'nothing accepted after close');
  assert.equal(await d.redeliver('wh_001', (await d.deliveries('wh_001'))[0]!.id), undefined);
  await d.idle();
  assert.equal(rx.requests.length, 1);
  assert.deepEqual(await d.close(0), { left: 0 }, 'closing twice is harmless');
});

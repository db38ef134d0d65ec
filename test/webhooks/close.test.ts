import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dispatcher, event, receiver, sleep, target, waitFor } from './helpers.ts';

test('close lets a request in flight finish within the grace period', async (t) => {
  const rx = await receiver(t, async (_req, res) => {
    await sleep(100);
    res.end('ok');
  });
  const { d } = dispatcher(t, { timeoutMs: 2_000 });
  d.enqueue(target(rx.url), event());
  await waitFor('in flight', () => rx.requests.length === 1);
  const started = performance.now();
  assert.deepEqual(await d.close(5_000), { abandoned: 0 });
  assert.ok(
    performance.now() - started < 2_500,
    'resolved as soon as the request finished, not after the grace period',
  );
  assert.equal(d.deliveries('wh_001')[0]!.status, 'succeeded');
});

test('close waits up to the grace period for a slow request, then aborts it and reports it abandoned', async (t) => {
  const rx = await receiver(t, () => {}); // never answers
  const { d, log } = dispatcher(t, { timeoutMs: 5_000 });
  const evt = event();
  d.enqueue(target(rx.url), evt);
  await waitFor('in flight', () => rx.requests.length === 1);
  const started = performance.now();
  const { abandoned } = await d.close(200);
  const took = performance.now() - started;
  assert.equal(abandoned, 1);
  assert.ok(took >= 190 && took < 3_000, `close took ${took} ms`);
  const [record] = d.deliveries('wh_001');
  assert.equal(record!.status, 'failed');
  assert.equal(record!.error, 'aborted: dispatcher closed');
  assert.equal(record!.nextAttemptAt, null, 'no retry after close');
  assert.ok(log.lines.some((l) => l.level === 'warn' && /in flight after the grace period/.test(l.msg ?? '')));
});

test('close drops queued attempts and scheduled retries, logging their events, and stops accepting', async (t) => {
  const slow = await receiver(t, async (_req, res) => {
    await sleep(100);
    res.end('ok');
  });
  const failing = await receiver(t, (_req, res) => void res.writeHead(500).end());
  const { d, log } = dispatcher(t, { concurrency: 1, retrySchedule: [10_000], timeoutMs: 2_000 });
  d.enqueue(target(failing.url, 'wh_fail'), event({ id: 'evt_retry' }));
  await waitFor('retry scheduled', () => d.stats().scheduledRetries === 1);
  d.enqueue(target(slow.url), event({ id: 'evt_inflight' }));
  d.enqueue(target(slow.url), event({ id: 'evt_queued', type: 'project.updated' }));
  assert.deepEqual(d.stats(), { queued: 1, inFlight: 1, scheduledRetries: 1 });

  const { abandoned } = await d.close(1_000);
  assert.equal(abandoned, 2, 'the queued attempt and the retry; the request in flight finished');
  assert.deepEqual(d.stats(), { queued: 0, inFlight: 0, scheduledRetries: 0 });
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

  d.enqueue(target(slow.url), event());
  assert.equal(d.redeliver('wh_001', d.deliveries('wh_001')[0]!.id), undefined);
  await sleep(50);
  assert.equal(slow.requests.length, 1);
  assert.deepEqual(await d.close(0), { abandoned: 2 }, 'closing twice is harmless');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeliveryHistory, Ring } from '../../src/webhooks/history.ts';
import type { DeliveryRecord } from '../../src/webhooks/types.ts';
import { dispatcher, event, receiver, target } from './helpers.ts';

const newestFirst = <T>(ring: Ring<T>) => Array.from({ length: ring.size }, (_, i) => ring.newest(i));

test('a ring keeps the last `limit` items, newest first, before and after it wraps around', () => {
  const ring = new Ring<number>(3);
  assert.deepEqual(newestFirst(ring), []);
  ring.push(1);
  ring.push(2);
  assert.deepEqual(newestFirst(ring), [2, 1]);
  const seen: number[][] = [];
  for (let n = 3; n <= 8; n++) {
    ring.push(n);
    seen.push(newestFirst(ring));
  }
  assert.deepEqual(seen, [
    [3, 2, 1],
    [4, 3, 2],
    [5, 4, 3],
    [6, 5, 4],
    [7, 6, 5],
    [8, 7, 6],
  ]);
  const one = new Ring<string>(1);
  for (const s of ['a', 'b', 'c']) one.push(s);
  assert.deepEqual(newestFirst(one), ['c']);
});

test('delivery history: per webhook, bounded, newest first; a dropped record is no longer found', () => {
  const history = new DeliveryHistory<string>(2);
  const record = (id: string, webhookId = 'wh_1') => ({ id, webhookId }) as DeliveryRecord;
  for (const id of ['dlv_1', 'dlv_2', 'dlv_3']) history.add(record(id), `context of ${id}`);
  history.add(record('dlv_9', 'wh_2'), 'other');
  assert.deepEqual(
    history.list('wh_1').map((r) => r.id),
    ['dlv_3', 'dlv_2'],
  );
  assert.deepEqual(
    history.list('wh_2').map((r) => r.id),
    ['dlv_9'],
  );
  assert.equal(history.find('wh_1', 'dlv_2')?.context, 'context of dlv_2');
  assert.equal(history.find('wh_1', 'dlv_1'), undefined);
  assert.equal(history.find('wh_2', 'dlv_3'), undefined);
  history.forget('wh_1');
  assert.deepEqual(history.list('wh_1'), []);
});

test('history is bounded per webhook, newest first', async (t) => {
  const rx = await receiver(t);
  const { d } = dispatcher(t, { historyPerWebhook: 3 });
  const events = Array.from({ length: 5 }, () => event());
  for (const e of events) d.enqueue(target(rx.url), e);
  d.enqueue(target(rx.url, 'wh_other'), event());
  await d.idle();
  assert.equal(rx.requests.length, 6);
  assert.deepEqual(
    (await d.deliveries('wh_001')).map((r) => r.eventId),
    [events[4]!.id, events[3]!.id, events[2]!.id],
  );
  assert.equal((await d.deliveries('wh_other')).length, 1);
  assert.deepEqual(await d.deliveries('wh_unknown'), []);
  // Callers get copies.
  (await d.deliveries('wh_001'))[0]!.status = 'failed';
  assert.equal((await d.deliveries('wh_001'))[0]!.status, 'succeeded');
});

test('redeliver sends the same event again with the same webhook-id, as a new delivery', async (t) => {
  const rx = await receiver(t);
  const { d } = dispatcher(t);
  const evt = event();
  d.enqueue(target(rx.url), evt);
  await d.idle();
  const original = (await d.deliveries('wh_001'))[0]!;

  const again = await d.redeliver('wh_001', original.id);
  assert.ok(again);
  assert.notEqual(again.id, original.id);
  assert.deepEqual([again.status, again.attempt, again.eventId, again.eventType], ['pending', 1, evt.id, evt.type]);
  await d.idle();
  assert.equal(rx.requests.length, 2);
  assert.equal(rx.requests[1]!.headers['webhook-id'], evt.id);
  assert.equal(rx.requests[1]!.body, rx.requests[0]!.body);
  assert.deepEqual(
    (await d.deliveries('wh_001')).map((r) => [r.id, r.status]),
    [
      [again.id, 'succeeded'],
      [original.id, 'succeeded'],
    ],
  );

  assert.equal(await d.redeliver('wh_001', 'dlv_nope'), undefined);
  assert.equal(await d.redeliver('wh_other', original.id), undefined, "another webhook's delivery");
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeliveryHistory, Ring } from '../../src/webhooks/history.ts';
import type { DeliveryRecord } from '../../src/webhooks/types.ts';

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

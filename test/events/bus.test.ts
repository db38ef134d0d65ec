/** The event bus over a store that runs a transaction's work again after a conflict (as the SQL store does). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { EventBus } from '../../src/events/bus.ts';
import type { DomainEvent } from '../../src/events/types.ts';
import { RerunningStore } from '../helpers/store.ts';

const event = (id: string): DomainEvent => ({
  id,
  type: 'project.created',
  resourceType: 'project',
  kind: 'created',
  record: { id },
  actor: 'system',
  at: '2026-01-01T00:00:00.000Z',
});

test('work run again after a conflict: only the run that committed is released, once', async () => {
  const retrying = new RerunningStore();
  const bus = new EventBus(pino({ level: 'silent' }));
  const inTransaction: string[] = [];
  const released: string[] = [];
  bus.subscribeInTransaction('test', async (e) => void inTransaction.push(e.id));
  bus.subscribe('test', (e) => void released.push(e.id));

  let run = 0;
  const answer = await bus.transaction(retrying, async (unit) => {
    run++;
    await unit.publish(event(`evt_run${run}_a`));
    await unit.publish(event(`evt_run${run}_b`));
    return run;
  });
  assert.equal(answer, 2);
  assert.deepEqual(inTransaction, ['evt_run1_a', 'evt_run1_b', 'evt_run2_a', 'evt_run2_b']);
  assert.deepEqual(released, ['evt_run2_a', 'evt_run2_b']);
});

test('begin runs as each run of the work starts, before it, with the unit its consumer is handed', async () => {
  const retrying = new RerunningStore();
  const bus = new EventBus(pino({ level: 'silent' }));
  const seen: string[] = [];
  const begun = new Set<unknown>();
  bus.subscribeInTransaction(
    'test',
    async (e, unit) => void seen.push(`${e.id} ${begun.has(unit) ? 'begun' : 'not begun'}`),
    (unit) => {
      seen.push('begin');
      begun.add(unit);
    },
  );
  let run = 0;
  await bus.transaction(retrying, async (unit) => {
    seen.push(`work ${++run}`);
    await unit.publish(event(`evt_${run}`));
  });
  assert.deepEqual(seen, ['begin', 'work 1', 'evt_1 begun', 'begin', 'work 2', 'evt_2 begun']);
});

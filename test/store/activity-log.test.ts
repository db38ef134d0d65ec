import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryActivityLog } from '../../src/store/memory/activity-log.ts';
import type { ActivityLog, ActivityRecord } from '../../src/store/types.ts';

const implementations: [string, () => ActivityLog<ActivityRecord>][] = [['memory', () => new MemoryActivityLog()]];

const entry = (
  id: string,
  timestamp: string,
  action = 'task.created',
  actor = 'alice',
  resourceId = 'task_1',
): ActivityRecord => ({
  id,
  timestamp,
  action,
  actor,
  resourceType: 'task',
  resourceId,
});
const T = (minute: number) => `2026-11-22T10:${String(minute).padStart(2, '0')}:00.000Z`;
const ms = (minute: number) => Date.parse(T(minute));

for (const [name, make] of implementations) {
  describe(`ActivityLog contract: ${name}`, () => {
    test('newest first; equal timestamps: last appended first; out-of-order appends are placed by time', async () => {
      const log = make();
      await log.append(entry('a', T(1)));
      await log.append(entry('b', T(3)));
      await log.append(entry('c', T(2))); // older than b
      await log.append(entry('d', T(3))); // same time as b, appended later
      const { items, total } = await log.query({ filter: {} });
      assert.deepEqual(
        items.map((e) => e.id),
        ['d', 'b', 'c', 'a'],
      );
      assert.equal(total, 4);
      assert.equal((await log.get('c'))?.timestamp, T(2));
      assert.equal(await log.count(), 4);
    });

    test('limit: count after, total before; limit 0 gives only the total', async () => {
      const log = make();
      for (let i = 0; i < 10; i++) await log.append(entry(`e${i}`, T(i)));
      const page = await log.query({ filter: {}, limit: 3 });
      assert.deepEqual(
        page.items.map((e) => e.id),
        ['e9', 'e8', 'e7'],
      );
      assert.equal(page.total, 10);
      const none = await log.query({ filter: {}, limit: 0 });
      assert.deepEqual(none.items, []);
      assert.equal(none.total, 10);
    });

    test('since and until are inclusive bounds', async () => {
      const log = make();
      for (let i = 0; i < 10; i++) await log.append(entry(`e${i}`, T(i)));
      const window = await log.query({ filter: {}, since: ms(3), until: ms(5) });
      assert.deepEqual(
        window.items.map((e) => e.id),
        ['e5', 'e4', 'e3'],
      );
      assert.equal(window.total, 3);
      assert.equal((await log.query({ filter: {}, since: ms(20) })).total, 0);
      assert.equal((await log.query({ filter: {}, until: ms(-1) })).total, 0);
      assert.equal((await log.query({ filter: {}, since: ms(5), until: ms(4) })).total, 0);
    });

    test('exact-match filters, combined with each other, the window and the limit', async () => {
      const log = make();
      await log.append(entry('1', T(1), 'task.created', 'alice', 'task_1'));
      await log.append(entry('2', T(2), 'task.updated', 'bob', 'task_1'));
      await log.append(entry('3', T(3), 'task.updated', 'alice', 'task_2'));
      await log.append(entry('4', T(4), 'task.updated', 'alice', 'task_1'));
      await log.append(entry('5', T(5), 'task.deleted', 'alice', 'task_1'));
      const q = async (filter: object, extra: object = {}) => {
        const r = await log.query({ filter, ...extra });
        return [r.items.map((e) => e.id), r.total];
      };
      assert.deepEqual(await q({ action: 'task.updated' }), [['4', '3', '2'], 3]);
      assert.deepEqual(await q({ action: 'task.updated', actor: 'alice' }), [['4', '3'], 2]);
      assert.deepEqual(await q({ actor: 'alice', resourceId: 'task_1' }, { limit: 1 }), [['5'], 3]);
      assert.deepEqual(await q({ actor: 'alice' }, { since: ms(3), until: ms(4) }), [['4', '3'], 2]);
      assert.deepEqual(await q({ actor: 'nobody' }), [[], 0]);
      assert.deepEqual(await q({ action: undefined }), [['5', '4', '3', '2', '1'], 5]);
    });
  });
}

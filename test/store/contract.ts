import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NestedTransactionError, type Store } from '../../src/store/store.ts';
import { AnyOf } from '../../src/model/list.ts';
import type { StoredDelivery } from '../../src/store/outbox.ts';
import * as data from '../../src/store/seed-data.ts';
import { seedInto } from '../../src/store/seed.ts';
import {
  T,
  activity,
  comment,
  delivery,
  milestone,
  ms,
  notification,
  project,
  task,
  team,
  timeEntry,
  webhook,
} from './records.ts';
import { queryContract } from './query-contract.ts';
import { loadContract } from './load-contract.ts';

/** How a test file gives the contract its store. */
export interface StoreHarness {
  /** Once before the tests (start a database, migrate). */
  setup?(): Promise<void>;
  /** An empty store for the next test. */
  empty(): Promise<Store>;
  /** Once after the tests, whatever happened (close, drop the database). */
  teardown?(): Promise<void>;
}

const ids = (records: readonly { id: string }[]) => records.map((r) => r.id);

/**
 * The behaviour every store keeps (src/store/types.ts and store.ts say it in words): run by one small test file
 * per store. `skip`, when set, says why this store cannot be tested here; the suite is then reported skipped.
 */
export function storeContract(name: string, harness: StoreHarness, skip?: string): void {
  describe(`Store contract: ${name}`, { skip: skip ?? false }, () => {
    let store: Store;
    before(async () => harness.setup?.());
    after(async () => harness.teardown?.());
    beforeEach(async () => {
      store = await harness.empty();
    });

    /** A project p1 and, in it, tasks: what most tests stand on. */
    async function withTasks(...tasks: ReturnType<typeof task>[]): Promise<void> {
      await store.projects.insert(project('p1'));
      for (const t of tasks) await store.tasks.insert(t);
    }

    describe('collections', () => {
      test('every kind of record reads back deep-equal to what was written, with its keys in the same order', async () => {
        const records = {
          teams: [team('team_1'), team('team_2', { members: [] })],
          projects: [project('p1', { teamId: 'team_1', status: 'planned' }), project('p2')],
          tasks: [task('t1', 'p1', { assignee: 'bob', status: 'in_progress', priority: 'high' }), task('t2', 'p1')],
          comments: [comment('c1', 'task', 't1'), comment('c2', 'project', 'p1', { body: '' })],
          milestones: [
            milestone('m1', 'p1', { status: 'reached', dueDate: '2026-12-31', reachedAt: T(9, 59, 999) }),
            milestone('m2', 'p1'),
          ],
          timeEntries: [
            timeEntry('e1', 't1', { hours: 4.25 }),
            timeEntry('e2', 't1', { hours: 0.1 }),
            timeEntry('e3', 't1', { hours: 24, date: '2024-02-29' }),
            timeEntry('e4', 't1', { hours: 1 / 3 }),
          ],
          webhooks: [webhook('w1', { events: ['*', 'task.deleted'] }), webhook('w2', { events: [], active: false })],
          notifications: [notification('n1'), notification('n2', { resourceType: null, resourceId: null, read: true })],
        } as const;
        for (const [kind, list] of Object.entries(records)) {
          const collection = store[kind as keyof typeof records] as unknown as {
            insert(r: object): Promise<void>;
            get(id: string): Promise<object | undefined>;
          };
          for (const r of list) await collection.insert(r);
        }
        for (const [kind, list] of Object.entries(records)) {
          const collection = store[kind as keyof typeof records];
          for (const r of list) {
            const back = await collection.get(r.id);
            assert.deepEqual(back, r, `${kind} ${r.id}`);
            assert.equal(JSON.stringify(back), JSON.stringify(r), `${kind} ${r.id}: key order`);
          }
          assert.deepEqual(await collection.list(), list, kind);
        }
      });

      test('insert, get, count, list in insertion order; an unknown id is undefined', async () => {
        await withTasks(task('t_b', 'p1'), task('t_a', 'p1'), task('t_c', 'p1'));
        assert.equal(await store.tasks.get('t_zzz'), undefined);
        assert.equal(await store.tasks.count(), 3);
        assert.deepEqual(ids(await store.tasks.list()), ['t_b', 't_a', 't_c']);
        assert.equal(await store.projects.count(), 1);
      });

      test('a duplicate id is refused', async () => {
        await withTasks(task('t1', 'p1'));
        await assert.rejects(store.tasks.insert(task('t1', 'p1', { title: 'Other' })));
        assert.equal((await store.tasks.get('t1'))?.title, 'Task t1');
        assert.equal(await store.tasks.count(), 1);
      });

      test('filters: exact match, combined, null, undefined ignored, nothing matching', async () => {
        await store.projects.insert(project('p1'));
        await store.projects.insert(project('p2'));
        await withTasksIn([
          task('1', 'p1', { status: 'todo', assignee: 'bob' }),
          task('2', 'p2', { status: 'done', assignee: 'bob' }),
          task('3', 'p1', { status: 'todo', assignee: null }),
          task('4', 'p1', { status: 'done', assignee: 'carol' }),
        ]);
        const list = async (f: object) => ids(await store.tasks.list(f));
        assert.deepEqual(await list({ projectId: 'p1' }), ['1', '3', '4']);
        assert.deepEqual(await list({ projectId: 'p1', status: 'todo' }), ['1', '3']);
        assert.deepEqual(await list({ projectId: 'p1', assignee: 'bob' }), ['1']);
        assert.deepEqual(await list({ assignee: null }), ['3']);
        assert.deepEqual(await list({ assignee: null, status: 'done' }), []);
        assert.deepEqual(await list({ status: undefined, assignee: undefined }), ['1', '2', '3', '4']);
        assert.deepEqual(await list({ projectId: 'nope' }), []);
        assert.deepEqual(await list({ noSuchField: 'x' }), []);
        assert.deepEqual(await list({ noSuchField: undefined }), ['1', '2', '3', '4']);
      });

      test('filters on booleans, dates and numbers', async () => {
        for (const n of [notification('n1'), notification('n2', { read: true }), notification('n3')]) {
          await store.notifications.insert(n);
        }
        assert.deepEqual(ids(await store.notifications.list({ read: false })), ['n1', 'n3']);
        assert.deepEqual(ids(await store.notifications.list({ read: true, username: 'alice' })), ['n2']);
        await withTasks(task('t1', 'p1'));
        await store.timeEntries.insert(timeEntry('e1', 't1', { date: '2026-01-02', hours: 2.5 }));
        await store.timeEntries.insert(timeEntry('e2', 't1', { date: '2026-01-03', hours: 2.5 }));
        assert.deepEqual(ids(await store.timeEntries.list({ date: '2026-01-03' })), ['e2']);
        assert.deepEqual(ids(await store.timeEntries.list({ hours: 2.5 })), ['e1', 'e2']);
        assert.deepEqual(ids(await store.timeEntries.list({ hours: 2 })), []);
      });

      test('array fields match by membership; AnyOf matches any of its values, null included', async () => {
        await store.webhooks.insert(webhook('w1', { events: ['task.created', 'task.updated'] }));
        await store.webhooks.insert(webhook('w2', { events: ['*'] }));
        await store.webhooks.insert(webhook('w3', { events: ['comment.created'], active: false }));
        await store.webhooks.insert(webhook('w4', { events: [] }));
        const hooks = async (f: object) => ids(await store.webhooks.list(f));
        assert.deepEqual(await hooks({ events: 'task.updated' }), ['w1']);
        assert.deepEqual(await hooks({ events: new AnyOf('task.updated', '*') }), ['w1', 'w2']);
        assert.deepEqual(await hooks({ events: new AnyOf('comment.created', '*'), active: true }), ['w2']);
        assert.deepEqual(await hooks({ events: new AnyOf() }), []);
        assert.deepEqual(await hooks({ active: new AnyOf(true, false) }), ['w1', 'w2', 'w3', 'w4']);

        await withTasks(
          task('1', 'p1', { status: 'todo', assignee: 'bob' }),
          task('2', 'p1', { status: 'done', assignee: null }),
          task('3', 'p1', { status: 'in_progress', assignee: 'carol' }),
        );
        const list = async (f: object) => ids(await store.tasks.list(f));
        assert.deepEqual(await list({ status: new AnyOf('todo', 'in_progress') }), ['1', '3']);
        assert.deepEqual(await list({ assignee: new AnyOf(null, 'carol') }), ['2', '3']);
        assert.deepEqual(await list({ assignee: new AnyOf('bob', 'carol'), status: 'todo' }), ['1']);
      });

      test('replace keeps the record in its place and moves it between filter results', async () => {
        await withTasks(task('1', 'p1'), task('2', 'p1'), task('3', 'p1'));
        await store.tasks.replace(task('1', 'p1', { status: 'done', title: 'Renamed', updatedAt: T(8) }));
        await store.tasks.replace(task('1', 'p1', { status: 'todo', updatedAt: T(9) }));
        assert.deepEqual(ids(await store.tasks.list({ status: 'todo' })), ['1', '2', '3']);
        await store.tasks.replace(task('2', 'p1', { status: 'done', assignee: 'bob' }));
        assert.deepEqual(ids(await store.tasks.list({ status: 'todo' })), ['1', '3']);
        assert.deepEqual(ids(await store.tasks.list({ status: 'done' })), ['2']);
        assert.deepEqual(ids(await store.tasks.list()), ['1', '2', '3']);
        assert.deepEqual(await store.tasks.get('1'), task('1', 'p1', { updatedAt: T(9) }));
        await assert.rejects(store.tasks.replace(task('missing', 'p1')));
        assert.equal(await store.tasks.get('missing'), undefined);
      });

      test('delete: true once, then false; gone from every list; inserted again, the record goes last', async () => {
        await withTasks(task('1', 'p1', { assignee: 'bob' }), task('2', 'p1'), task('3', 'p1'));
        assert.equal(await store.tasks.delete('1'), true);
        assert.equal(await store.tasks.delete('1'), false);
        assert.equal(await store.tasks.get('1'), undefined);
        assert.deepEqual(await store.tasks.list({ assignee: 'bob' }), []);
        assert.equal(await store.tasks.count(), 2);
        await store.tasks.insert(task('1', 'p1'));
        assert.deepEqual(ids(await store.tasks.list()), ['2', '3', '1']);
      });

      test('order, lookups and filters hold through many deletions, updates and re-inserts', async () => {
        await store.projects.insert(project('p1'));
        const alive = new Map<string, ReturnType<typeof task>>();
        for (let i = 0; i < 150; i++) {
          const t = task(`r${i}`, 'p1', { status: i % 3 === 0 ? 'todo' : 'done', assignee: `u${i % 7}` });
          await store.tasks.insert(t);
          alive.set(t.id, t);
        }
        for (let i = 0; i < 150; i++) {
          if (i % 5 !== 0) {
            assert.equal(await store.tasks.delete(`r${i}`), true);
            alive.delete(`r${i}`);
          } else if (i % 2 === 0) {
            const moved = task(`r${i}`, 'p1', { status: 'in_progress', assignee: `u${i % 7}` });
            await store.tasks.replace(moved);
            alive.set(moved.id, moved);
          }
        }
        const back = task('r1', 'p1', { status: 'in_progress', assignee: 'u1' });
        await store.tasks.insert(back);
        alive.set(back.id, back);
        const expected = [...alive.values()];
        assert.equal(await store.tasks.count(), expected.length);
        assert.deepEqual(await store.tasks.list(), expected);
        assert.deepEqual(
          await store.tasks.list({ status: 'in_progress' }),
          expected.filter((t) => t.status === 'in_progress'),
        );
        assert.deepEqual(
          await store.tasks.list({ assignee: 'u1' }),
          expected.filter((t) => t.assignee === 'u1'),
        );
      });

      test('the sample records read back as they are written', async () => {
        await store.transaction((tx) => seedInto(tx));
        assert.deepEqual(await store.teams.list(), data.teams);
        assert.deepEqual(await store.projects.list(), data.projects);
        assert.deepEqual(await store.tasks.list(), data.tasks);
        assert.deepEqual(await store.comments.list(), data.comments);
        assert.deepEqual(await store.milestones.list(), data.milestones);
        assert.deepEqual(await store.timeEntries.list(), data.timeEntries);
        // Webhooks are seeded with fresh secrets: everything else as written.
        assert.deepEqual(
          (await store.webhooks.list()).map(({ secret: _secret, ...rest }) => rest),
          data.webhooks,
        );
        assert.deepEqual((await store.activity.query({ filter: {} })).items, [...data.activity].reverse());
      });
    });

    describe('set-based changes', () => {
      test('deleteWhere removes the matching records and answers them as they were, in creation order', async () => {
        await store.projects.insert(project('p1'));
        await store.projects.insert(project('p2'));
        await withTasksIn([
          task('t1', 'p1', { assignee: 'bob' }),
          task('t2', 'p2'),
          task('t3', 'p1'),
          task('t4', 'p1', { assignee: 'carol' }),
        ]);
        await store.tasks.replace(task('t1', 'p1', { assignee: 'bob', title: 'Changed' }));
        assert.deepEqual(await store.tasks.deleteWhere({ projectId: 'p1', assignee: new AnyOf('bob', null) }), [
          task('t1', 'p1', { assignee: 'bob', title: 'Changed' }),
          task('t3', 'p1'),
        ]);
        assert.deepEqual(ids(await store.tasks.list()), ['t2', 't4']);
        assert.deepEqual(await store.tasks.deleteWhere({ projectId: 'p1', assignee: 'nobody' }), []);
        assert.deepEqual(ids(await store.tasks.deleteWhere({ id: new AnyOf('t4', 't2') })), ['t2', 't4']);
        assert.equal(await store.tasks.count(), 0);
      });

      test('updateWhere writes the changes into the matching records, each stamped strictly later', async () => {
        await store.teams.insert(team('team_1'));
        await store.teams.insert(team('team_2'));
        await store.projects.insert(project('p1', { teamId: 'team_1', updatedAt: T(1) }));
        await store.projects.insert(project('p2', { teamId: 'team_2' }));
        await store.projects.insert(project('p3', { teamId: 'team_1', updatedAt: T(9) }));
        const updated = await store.projects.updateWhere({ teamId: 'team_1' }, { teamId: null }, T(5));
        assert.deepEqual(updated, [
          {
            previous: project('p1', { teamId: 'team_1', updatedAt: T(1) }),
            record: project('p1', { teamId: null, updatedAt: T(5) }),
          },
          {
            previous: project('p3', { teamId: 'team_1', updatedAt: T(9) }),
            record: project('p3', { teamId: null, updatedAt: T(9, 0, 1) }),
          },
        ]);
        assert.deepEqual(await store.projects.list(), [
          project('p1', { teamId: null, updatedAt: T(5) }),
          project('p2', { teamId: 'team_2' }),
          project('p3', { teamId: null, updatedAt: T(9, 0, 1) }),
        ]);
        assert.deepEqual(ids(await store.projects.list({ teamId: null })), ['p1', 'p3']);
        assert.deepEqual(ids(await store.projects.list({ teamId: 'team_1' })), []);
        // Without `updatedAt`, only the changes are written.
        const renamed = await store.projects.updateWhere({ id: 'p2' }, { name: 'Renamed' });
        assert.deepEqual(
          renamed.map((u) => u.record),
          [project('p2', { teamId: 'team_2', name: 'Renamed' })],
        );
        assert.deepEqual(await store.projects.updateWhere({ teamId: 'team_9' }, { teamId: null }, T(5)), []);
      });

      test('a transaction that throws undoes its deleteWhere and updateWhere', async () => {
        await store.teams.insert(team('team_1'));
        await store.projects.insert(project('p1', { teamId: 'team_1' }));
        await withTasksIn([task('t1', 'p1'), task('t2', 'p1'), task('t3', 'p1')]);
        await assert.rejects(
          store.transaction(async (tx) => {
            assert.equal((await tx.tasks.deleteWhere({ projectId: 'p1' })).length, 3);
            assert.equal((await tx.projects.updateWhere({ teamId: 'team_1' }, { teamId: null }, T(30))).length, 1);
            assert.equal(await tx.tasks.count(), 0);
            throw new Error('undo');
          }),
        );
        assert.deepEqual(await store.tasks.list(), [task('t1', 'p1'), task('t2', 'p1'), task('t3', 'p1')]);
        assert.deepEqual(await store.projects.list({ teamId: 'team_1' }), [project('p1', { teamId: 'team_1' })]);
      });
    });

    queryContract(() => store);
    loadContract(() => store);

    describe('activity log', () => {
      test('newest first; equal timestamps: last appended first; out-of-order appends are placed by time', async () => {
        await store.activity.append(activity('a', T(1)));
        await store.activity.append(activity('b', T(3)));
        await store.activity.append(activity('c', T(2))); // older than b
        await store.activity.append(activity('d', T(3))); // same time as b, appended later
        const { items, total } = await store.activity.query({ filter: {} });
        assert.deepEqual(ids(items), ['d', 'b', 'c', 'a']);
        assert.equal(total, 4);
        assert.deepEqual(await store.activity.get('c'), activity('c', T(2)));
        assert.equal(await store.activity.get('zzz'), undefined);
        assert.equal(await store.activity.count(), 4);
      });

      test('an entry reads back deep-equal, metadata included', async () => {
        const entry = activity('a', T(1, 2, 3), {
          metadata: { from: null, to: 'bob', fields: ['a', 'b'], nested: { n: 1.5, ok: true } },
        });
        await store.activity.append(entry);
        assert.deepEqual(await store.activity.get('a'), entry);
        assert.deepEqual((await store.activity.query({ filter: {} })).items, [entry]);
        await assert.rejects(store.activity.append(activity('a', T(2))));
      });

      test('limit: items after it, total before it; limit 0 gives only the total', async () => {
        for (let i = 0; i < 10; i++) await store.activity.append(activity(`e${i}`, T(i)));
        const page = await store.activity.query({ filter: {}, limit: 3 });
        assert.deepEqual(ids(page.items), ['e9', 'e8', 'e7']);
        assert.equal(page.total, 10);
        const none = await store.activity.query({ filter: {}, limit: 0 });
        assert.deepEqual(none.items, []);
        assert.equal(none.total, 10);
      });

      test('since and until are inclusive bounds', async () => {
        for (let i = 0; i < 10; i++) await store.activity.append(activity(`e${i}`, T(i)));
        const window = await store.activity.query({ filter: {}, since: ms(3), until: ms(5) });
        assert.deepEqual(ids(window.items), ['e5', 'e4', 'e3']);
        assert.equal(window.total, 3);
        assert.equal((await store.activity.query({ filter: {}, since: ms(20) })).total, 0);
        assert.equal((await store.activity.query({ filter: {}, until: ms(0) - 1 })).total, 0);
        assert.equal((await store.activity.query({ filter: {}, since: ms(5), until: ms(4) })).total, 0);
        // Millisecond precision at the bounds.
        await store.activity.append(activity('x', T(30, 0, 1)));
        assert.equal((await store.activity.query({ filter: {}, since: ms(30) + 1 })).total, 1);
        assert.equal((await store.activity.query({ filter: {}, since: ms(30) + 2 })).total, 0);
        assert.equal((await store.activity.query({ filter: {}, since: ms(30), until: ms(30) })).total, 0);
      });

      test('exact-match filters, combined with each other, the window and the limit', async () => {
        const add = (id: string, minute: number, action: string, actor: string, resourceId: string) =>
          store.activity.append(activity(id, T(minute), { action, actor, resourceId }));
        await add('1', 1, 'task.created', 'alice', 'task_1');
        await add('2', 2, 'task.updated', 'bob', 'task_1');
        await add('3', 3, 'task.updated', 'alice', 'task_2');
        await add('4', 4, 'task.updated', 'alice', 'task_1');
        await add('5', 5, 'task.deleted', 'alice', 'task_1');
        await store.activity.append(activity('6', T(6), { resourceType: 'project', resourceId: 'p1' }));
        const q = async (filter: object, extra: object = {}) => {
          const r = await store.activity.query({ filter, ...extra });
          return [ids(r.items), r.total];
        };
        assert.deepEqual(await q({ action: 'task.updated' }), [['4', '3', '2'], 3]);
        assert.deepEqual(await q({ action: 'task.updated', actor: 'alice' }), [['4', '3'], 2]);
        assert.deepEqual(await q({ actor: 'alice', resourceId: 'task_1' }, { limit: 1 }), [['5'], 3]);
        assert.deepEqual(await q({ actor: 'alice' }, { since: ms(3), until: ms(4) }), [['4', '3'], 2]);
        assert.deepEqual(await q({ resourceType: 'project' }), [['6'], 1]);
        assert.deepEqual(await q({ actor: 'nobody' }), [[], 0]);
        assert.deepEqual(await q({ action: undefined }), [['6', '5', '4', '3', '2', '1'], 6]);
      });
    });

    describe('transactions', () => {
      test('a transaction sees its own writes, and what it returns is passed on', async () => {
        const result = await store.transaction(async (tx) => {
          await tx.projects.insert(project('p1'));
          await tx.tasks.insert(task('t1', 'p1'));
          assert.equal((await tx.tasks.get('t1'))?.title, 'Task t1');
          assert.deepEqual(ids(await tx.tasks.list({ projectId: 'p1' })), ['t1']);
          return 42;
        });
        assert.equal(result, 42);
        assert.equal(await store.tasks.count(), 1);
      });

      test('a transaction that throws leaves nothing of its writes, and its error passes on', async () => {
        await withTasks(task('t1', 'p1'), task('t2', 'p1', { assignee: 'bob' }), task('t3', 'p1'));
        await store.activity.append(activity('a1', T(1)));
        const failure = new Error('boom');
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.tasks.insert(task('t4', 'p1'));
            await tx.tasks.replace(task('t2', 'p1', { assignee: 'carol', title: 'Changed' }));
            assert.equal(await tx.tasks.delete('t1'), true);
            await tx.comments.insert(comment('c1', 'task', 't3'));
            await tx.activity.append(activity('a2', T(2)));
            await tx.tasks.insert(task('t1', 'p1', { title: 'Again' }));
            throw failure;
          }),
          (error) => error === failure,
        );
        assert.deepEqual(await store.tasks.list(), [
          task('t1', 'p1'),
          task('t2', 'p1', { assignee: 'bob' }),
          task('t3', 'p1'),
        ]);
        assert.deepEqual(ids(await store.tasks.list({ assignee: 'bob' })), ['t2']);
        assert.deepEqual(await store.tasks.list({ assignee: 'carol' }), []);
        assert.equal(await store.comments.count(), 0);
        assert.equal(await store.activity.get('a2'), undefined);
        assert.deepEqual((await store.activity.query({ filter: {} })).total, 1);
        // The store goes on working after a rollback.
        await store.transaction(async (tx) => tx.tasks.insert(task('t5', 'p1')));
        assert.deepEqual(ids(await store.tasks.list()), ['t1', 't2', 't3', 't5']);
      });

      test('a rolled-back transaction that deleted most records brings every one back in its place', async () => {
        await store.projects.insert(project('p1'));
        const all = Array.from({ length: 150 }, (_, i) => task(`t${i}`, 'p1', { assignee: `u${i % 3}` }));
        await withTasksIn(all);
        await assert.rejects(
          store.transaction(async (tx) => {
            for (const t of all.slice(0, 140)) await tx.tasks.delete(t.id);
            await tx.tasks.insert(task('new', 'p1'));
            throw new Error('undo');
          }),
        );
        assert.deepEqual(await store.tasks.list(), all);
        assert.deepEqual(
          await store.tasks.list({ assignee: 'u1' }),
          all.filter((t) => t.assignee === 'u1'),
        );
      });

      test('a failing write rolls back the writes before it', async () => {
        await withTasks(task('t1', 'p1'));
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.tasks.insert(task('t2', 'p1'));
            await tx.tasks.insert(task('t1', 'p1')); // duplicate id
          }),
        );
        assert.deepEqual(ids(await store.tasks.list()), ['t1']);
      });

      test('failed transactions give back what they hold: many in a row, then one that succeeds', async () => {
        for (let i = 0; i < 25; i++) {
          await assert.rejects(
            store.transaction(async (tx) => {
              await tx.projects.insert(project(`p${i}`));
              throw new Error('undo');
            }),
          );
        }
        await store.transaction((tx) => tx.projects.insert(project('p_ok')));
        assert.deepEqual(ids(await store.projects.list()), ['p_ok']);
      });

      test('transactions do not nest: a call inside one is refused, the outer one goes on', async () => {
        const outcome = await store.transaction(async (tx) => {
          await tx.projects.insert(project('p1'));
          await assert.rejects(
            store.transaction(async () => 'inner'),
            (error) => error instanceof NestedTransactionError,
          );
          return 'outer';
        });
        assert.equal(outcome, 'outer');
        assert.equal(await store.projects.count(), 1);
      });

      test('work left behind by a transaction may open one once it has closed', async () => {
        let closed!: () => void;
        const gate = new Promise<void>((resolve) => (closed = resolve));
        let later: Promise<unknown> | undefined;
        await store.transaction(async (tx) => {
          await tx.projects.insert(project('p1'));
          // Set up inside the transaction, run after it.
          later = gate.then(() => store.transaction((next) => next.projects.insert(project('p2'))));
        });
        closed();
        await later;
        assert.deepEqual(ids(await store.projects.list()), ['p1', 'p2']);
      });

      test('transactions are exclusive: concurrent read-then-write transactions lose no update', async () => {
        await store.projects.insert(project('p1', { name: '0' }));
        const increment = () =>
          store.transaction(async (tx) => {
            const p = (await tx.projects.get('p1'))!;
            await new Promise((resolve) => setTimeout(resolve, 2));
            await tx.projects.replace({ ...p, name: String(Number(p.name) + 1) });
          });
        await Promise.all(Array.from({ length: 8 }, increment));
        assert.equal((await store.projects.get('p1'))?.name, '8');
      });
    });

    describe('webhook outbox', () => {
      test('a claim takes at most `room` of each webhook it names, `perWebhook` of the others, `limit` in all', async () => {
        await store.deliveries.add([
          ...['a1', 'a2', 'a3', 'a4'].map((id) => delivery(`dlv_${id}`, 'wh_a')),
          ...['b1', 'b2', 'b3', 'b4'].map((id) => delivery(`dlv_${id}`, 'wh_b')),
          ...['c1', 'c2', 'c3', 'c4'].map((id) => delivery(`dlv_${id}`, 'wh_c')),
        ]);
        const claim = (room: [string, number][], limit = 10) =>
          store.deliveries.claim({
            now: T(1),
            leaseUntil: T(2),
            owner: 'w',
            limit,
            perWebhook: 2,
            room: new Map(room),
          });
        const first = ids(
          await claim([
            ['wh_a', 3],
            ['wh_b', 0],
          ]),
        );
        assert.deepEqual(first.sort(), ['dlv_a1', 'dlv_a2', 'dlv_a3', 'dlv_c1', 'dlv_c2']);
        // Rows already leased are not claimed again; a negative room is none.
        assert.deepEqual(
          ids(
            await claim([
              ['wh_a', 4],
              ['wh_c', -1],
            ]),
          ).sort(),
          ['dlv_a4', 'dlv_b1', 'dlv_b2'],
        );
        assert.equal((await claim([], 1)).length, 1, 'limit');
      });

      test('one settle writes many outcomes: only the rows the worker holds, each with its next attempt', async () => {
        await store.deliveries.add(['a', 'b', 'c', 'd'].map((id) => delivery(`dlv_${id}`, 'wh_1')));
        const claimed = await store.deliveries.claim({
          now: T(1),
          leaseUntil: T(2),
          owner: 'w',
          limit: 3,
          perWebhook: 3,
          room: new Map(),
        });
        assert.deepEqual(ids(claimed).sort(), ['dlv_a', 'dlv_b', 'dlv_c']);
        const done = (id: string, over: Partial<StoredDelivery>): StoredDelivery => ({
          ...delivery(id, 'wh_1'),
          completedAt: T(1),
          url: 'https://example.com/hook',
          ...over,
        });
        const written = await store.deliveries.settle(
          [
            { done: done('dlv_a', { status: 'succeeded', responseStatus: 204 }) },
            {
              done: done('dlv_b', { status: 'failed', responseStatus: 500, nextAttemptAt: T(3) }),
              next: delivery('dlv_b2', 'wh_1', { attempt: 2, dueAt: T(3) }),
            },
            // Not this worker's: dlv_c is held by `w` and settled by someone else, dlv_d by nobody.
            { done: done('dlv_d', { status: 'failed' }), next: delivery('dlv_d2', 'wh_1', { attempt: 2 }) },
          ],
          'w',
        );
        assert.deepEqual([...written].sort(), ['dlv_a', 'dlv_b']);
        assert.deepEqual(
          [...(await store.deliveries.settle([{ done: done('dlv_c', { status: 'failed' }) }], 'x'))],
          [],
        );
        const status = async (id: string) => (await store.deliveries.find('wh_1', id))?.status;
        assert.deepEqual(await Promise.all(['dlv_a', 'dlv_b', 'dlv_b2', 'dlv_c', 'dlv_d', 'dlv_d2'].map(status)), [
          'succeeded',
          'failed',
          'pending',
          'pending',
          'pending',
          undefined,
        ]);
        const b = (await store.deliveries.find('wh_1', 'dlv_b'))!;
        assert.deepEqual(
          [b.responseStatus, b.nextAttemptAt, b.url, b.leasedBy],
          [500, T(3), 'https://example.com/hook', null],
        );
        assert.equal(await store.deliveries.pending(), 3);
        assert.deepEqual([...(await store.deliveries.settle([], 'w'))], []);
      });

      test('a trace context kept with a row comes back with its claim and goes on with its retry; none if none', async () => {
        const parent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
        // Rows with and without one added together, and a row alone without one.
        await store.deliveries.add([delivery('dlv_t', 'wh_1', { traceParent: parent }), delivery('dlv_u', 'wh_1')]);
        await store.deliveries.add([delivery('dlv_v', 'wh_2')]);
        const claim = (at: string) =>
          store.deliveries.claim({ now: at, leaseUntil: T(9), owner: 'w', limit: 10, perWebhook: 10, room: new Map() });
        const traces = (rows: readonly StoredDelivery[]) =>
          rows.map((r) => [r.id, 'traceParent' in r ? r.traceParent : 'none']).sort();
        assert.deepEqual(traces(await claim(T(1))), [
          ['dlv_t', parent],
          ['dlv_u', 'none'],
          ['dlv_v', 'none'],
        ]);
        const failed = (row: StoredDelivery): StoredDelivery => ({ ...row, status: 'failed', completedAt: T(1) });
        const retry = (row: StoredDelivery) => ({ ...row, id: `${row.id}2`, attempt: 2, dueAt: T(2) });
        const t = delivery('dlv_t', 'wh_1', { traceParent: parent });
        const u = delivery('dlv_u', 'wh_1');
        const v = delivery('dlv_v', 'wh_2');
        // Retries with and without one in one settle, then one without alone.
        await store.deliveries.settle(
          [
            { done: failed(t), next: retry(t) },
            { done: failed(u), next: retry(u) },
          ],
          'w',
        );
        await store.deliveries.settle([{ done: failed(v), next: retry(v) }], 'w');
        assert.deepEqual(traces(await claim(T(2))), [
          ['dlv_t2', parent],
          ['dlv_u2', 'none'],
          ['dlv_v2', 'none'],
        ]);
      });

      test("an attempt is settled once; a give-back frees only its holder's rows; the next due time skips held ones", async () => {
        await store.deliveries.add([
          delivery('dlv_now', 'wh_1'),
          delivery('dlv_held', 'wh_2', { dueAt: T(0, 30) }),
          delivery('dlv_later', 'wh_1', { dueAt: T(5) }),
          delivery('dlv_soon', 'wh_2', { dueAt: T(3) }),
          delivery('dlv_done', 'wh_3', { dueAt: T(2), status: 'succeeded' }),
        ]);
        assert.equal(await store.deliveries.nextDue(T(0)), T(0, 30));
        const claim = (owner: string) =>
          store.deliveries.claim({ now: T(1), leaseUntil: T(9), owner, limit: 10, perWebhook: 5, room: new Map() });
        assert.deepEqual(ids(await claim('w')).sort(), ['dlv_held', 'dlv_now']);
        // Held rows are not waited for; settled ones never are: the earliest after T(1) nobody holds.
        assert.equal(await store.deliveries.nextDue(T(0)), T(3));
        assert.equal(await store.deliveries.nextDue(T(3)), T(5));
        assert.equal(await store.deliveries.nextDue(T(5)), null);

        const made = { ...delivery('dlv_now', 'wh_1'), status: 'succeeded' as const, completedAt: T(1) };
        assert.deepEqual([...(await store.deliveries.settle([{ done: made }], 'w'))], ['dlv_now']);
        assert.deepEqual([...(await store.deliveries.settle([{ done: made }], 'w'))], [], 'settled already');

        await store.deliveries.release(['dlv_held', 'dlv_now'], 'x');
        assert.deepEqual(ids(await claim('y')), [], 'given back by one that does not hold it: still held');
        await store.deliveries.release(['dlv_held', 'dlv_now'], 'w');
        assert.deepEqual(ids(await claim('y')), ['dlv_held']);
        assert.equal((await store.deliveries.find('wh_1', 'dlv_now'))?.status, 'succeeded');
      });
    });

    /** Inserts tasks whose projects exist. */
    async function withTasksIn(tasks: ReturnType<typeof task>[]): Promise<void> {
      for (const t of tasks) await store.tasks.insert(t);
    }
  });
}

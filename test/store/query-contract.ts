import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/store.ts';
import { type Collection, type Entity } from '../../src/store/types.ts';
import { AnyOf, PositionError, Range, type ListQuery } from '../../src/model/list.ts';
import { T, activity, milestone, project, task, timeEntry } from './records.ts';

const ids = (records: readonly { id: string }[]) => records.map((r) => r.id);
const PRIORITY = { field: 'priority', progression: ['low', 'medium', 'high'] } as const;
const STATUS = { field: 'status', progression: ['todo', 'in_progress', 'done'] } as const;

/** Every page of a query, followed through `next`: the ids, and the totals each page gave. */
async function walk<T extends Entity>(c: Collection<T>, q: ListQuery<T>): Promise<{ ids: string[]; totals: number[] }> {
  const seen: string[] = [];
  const totals: number[] = [];
  let after = q.after;
  for (let pages = 0; pages < 100; pages++) {
    const page = await c.query({ ...q, after });
    seen.push(...ids(page.items));
    totals.push(page.total);
    if (page.next === null) return { ids: seen, totals };
    after = page.next;
  }
  throw new Error('no last page');
}

/** `ListQuery` and the log's query on every store (types.ts): the same answers, page by page. */
export function queryContract(current: () => Store): void {
  describe('list queries', () => {
    const tasks = () => current().tasks;
    async function seedTasks(): Promise<void> {
      await current().projects.insert(project('p1'));
      await current().projects.insert(project('p2'));
      const rows: [string, string, string, string, string][] = [
        // id, project, priority, status, title
        ['t1', 'p1', 'medium', 'done', 'Write the Docs'],
        ['t2', 'p1', 'high', 'todo', 'fix login bug'],
        ['t3', 'p2', 'low', 'in_progress', 'Apple pie'],
        ['t4', 'p1', 'high', 'in_progress', 'Banana split'],
        ['t5', 'p1', 'low', 'todo', 'cherry 100% done_now'],
        ['t6', 'p2', 'medium', 'todo', 'Zebra docs'],
        ['t7', 'p1', 'high', 'done', 'apple crumble'],
      ];
      for (const [i, [id, projectId, priority, status, title]] of rows.entries()) {
        await tasks().insert(
          task(id, projectId, {
            priority: priority as 'low',
            status: status as 'todo',
            title,
            description: id === 't6' ? 'About the LOGIN page' : '',
            createdAt: T(10 + i),
            updatedAt: T(20 + (i % 3)),
          }),
        );
      }
    }

    test('pages in creation order: limit, next, the total on every page, null after the last', async () => {
      await seedTasks();
      const first = await tasks().query({ limit: 3 });
      assert.deepEqual([ids(first.items), first.total], [['t1', 't2', 't3'], 7]);
      assert.notEqual(first.next, null);
      assert.deepEqual(await walk(tasks(), { limit: 3 }), {
        ids: ['t1', 't2', 't3', 't4', 't5', 't6', 't7'],
        totals: [7, 7, 7],
      });
      assert.deepEqual(await walk(tasks(), { limit: 7 }), { ids: ids(await tasks().list()), totals: [7] });
      const all = await tasks().query({});
      assert.deepEqual([ids(all.items), all.total, all.next], [ids(await tasks().list()), 7, null]);
      assert.deepEqual((await tasks().query({ limit: 0 })).items, []);
    });

    test('records added or removed while paging: none seen twice, none that stayed missed', async () => {
      await seedTasks();
      const first = await tasks().query({ limit: 3, filter: { projectId: 'p1' } });
      assert.deepEqual(ids(first.items), ['t1', 't2', 't4']);
      await tasks().delete('t2'); // already seen
      await tasks().delete('t5'); // not yet seen
      await tasks().insert(task('t8', 'p1', { createdAt: T(30) }));
      const rest = await walk(tasks(), { limit: 2, filter: { projectId: 'p1' }, after: first.next! });
      assert.deepEqual(rest, { ids: ['t7', 't8'], totals: [4] });
    });

    test('the total without a condition follows inserts, deletes and rolled-back changes', async () => {
      await seedTasks();
      assert.equal((await tasks().query({ limit: 1 })).total, 7);
      await tasks().deleteWhere({ projectId: 'p2' });
      assert.equal((await tasks().query({ limit: 1 })).total, 5);
      await current()
        .transaction(async (tx) => {
          await tx.tasks.insert(task('t9', 'p1'));
          assert.equal((await tx.tasks.query({ limit: 1 })).total, 6);
          throw new Error('undo');
        })
        .catch(() => undefined);
      assert.equal((await tasks().query({ limit: 1 })).total, 5);
      for (let i = 0; i < 150; i++) await current().notifications.insert({ ...notification(i) });
      await current().notifications.delete('n0');
      assert.equal((await current().notifications.query({ limit: 1 })).total, 149);
    });

    test('sort: enumerations by their progression, ties in creation order, either direction', async () => {
      await seedTasks();
      const byPriority = await tasks().query({ sort: [{ ...PRIORITY, descending: true }] });
      assert.deepEqual(ids(byPriority.items), ['t2', 't4', 't7', 't1', 't6', 't3', 't5']);
      const byStatus = await tasks().query({ sort: [STATUS, { field: 'createdAt', descending: true }] });
      assert.deepEqual(ids(byStatus.items), ['t6', 't5', 't2', 't4', 't3', 't7', 't1']);
      // Text by code point (capitals first), as written.
      const byTitle = await tasks().query({ sort: [{ field: 'title' }] });
      assert.deepEqual(ids(byTitle.items), ['t3', 't4', 't1', 't6', 't7', 't5', 't2']);
      for (const sort of [[{ ...PRIORITY, descending: true }], [STATUS, { field: 'title', descending: true }]]) {
        const whole = ids((await tasks().query({ sort })).items);
        for (const limit of [1, 2, 3]) assert.deepEqual((await walk(tasks(), { sort, limit })).ids, whole);
      }
    });

    test('sort: missing values come last in both directions', async () => {
      const store = current();
      await store.projects.insert(project('p1'));
      const dues: (string | null)[] = [null, '2026-12-01', null, '2026-11-01', '2026-12-01'];
      for (const [i, dueDate] of dues.entries()) {
        await store.milestones.insert(milestone(`m${i}`, 'p1', { dueDate, createdAt: T(i) }));
      }
      const up = [{ field: 'dueDate' }];
      const down = [{ field: 'dueDate', descending: true }];
      assert.deepEqual(ids((await store.milestones.query({ sort: up })).items), ['m3', 'm1', 'm4', 'm0', 'm2']);
      assert.deepEqual(ids((await store.milestones.query({ sort: down })).items), ['m1', 'm4', 'm3', 'm0', 'm2']);
      for (const sort of [up, down]) {
        const whole = ids((await store.milestones.query({ sort })).items);
        assert.deepEqual((await walk(store.milestones, { sort, limit: 1 })).ids, whole);
        assert.deepEqual((await walk(store.milestones, { sort, limit: 2 })).ids, whole);
      }
    });

    test('ranges on instants, dates and numbers; any-of; all combined with a search and a sort', async () => {
      await seedTasks();
      const q = async (query: ListQuery<ReturnType<typeof task>>) => {
        const page = await tasks().query(query);
        return [ids(page.items), page.total];
      };
      assert.deepEqual(await q({ filter: { createdAt: new Range({ gte: T(12), lt: T(14) }) } }), [['t3', 't4'], 2]);
      assert.deepEqual(await q({ filter: { createdAt: new Range({ gt: T(15) }) } }), [['t7'], 1]);
      assert.deepEqual(await q({ filter: { updatedAt: new Range({ lte: T(20) }) } }), [['t1', 't4', 't7'], 3]);
      assert.deepEqual(await q({ filter: { status: AnyOf.of(['todo', 'done']), projectId: 'p1' } }), [
        ['t1', 't2', 't5', 't7'],
        4,
      ]);
      assert.deepEqual(
        await q({
          filter: { status: AnyOf.of(['todo', 'in_progress', 'done']), createdAt: new Range({ gte: T(11) }) },
          sort: [{ ...PRIORITY, descending: true }],
          limit: 2,
        }),
        [['t2', 't4'], 6],
      );
      const store = current();
      for (const [i, [hours, date]] of (
        [
          [1, '2026-11-01'],
          [2.5, '2026-11-15'],
          [8, '2026-12-01'],
        ] as const
      ).entries()) {
        await store.timeEntries.insert(timeEntry(`e${i}`, 't1', { hours, date }));
      }
      const entries = async (filter: object) => ids((await store.timeEntries.query({ filter })).items);
      assert.deepEqual(await entries({ hours: new Range({ gt: 1, lte: 8 }) }), ['e1', 'e2']);
      assert.deepEqual(await entries({ date: new Range({ lt: '2026-11-15' }) }), ['e0']);
      assert.deepEqual(await entries({ date: new Range({ gte: '2026-11-15' }), hours: new Range({ lt: 8 }) }), ['e1']);
      const hoursDown = await store.timeEntries.query({ sort: [{ field: 'hours', descending: true }] });
      assert.deepEqual(ids(hoursDown.items), ['e2', 'e1', 'e0']);
    });

    test('search: every term, ignoring case, in one of the fields; wildcards are literal', async () => {
      await seedTasks();
      const fields = ['title', 'description'] as const;
      const q = async (...terms: string[]) => {
        const page = await tasks().query({ search: { terms, fields: [...fields] } });
        return [ids(page.items), page.total];
      };
      assert.deepEqual(await q('APPLE'), [['t3', 't7'], 2]);
      assert.deepEqual(await q('login'), [['t2', 't6'], 2]);
      assert.deepEqual(await q('docs', 'login'), [['t6'], 1]);
      assert.deepEqual(await q('docs', 'nowhere'), [[], 0]);
      assert.deepEqual(await q('100%'), [['t5'], 1]);
      assert.deepEqual(await q('e_n'), [['t5'], 1]);
      assert.deepEqual(await q('%'), [['t5'], 1]);
      assert.deepEqual(await q('_'), [['t5'], 1]);
      const paged = await walk(tasks(), { search: { terms: ['a'], fields: [...fields] }, limit: 2 });
      assert.deepEqual(paged.ids, ['t3', 't4', 't6', 't7']);
    });

    test('search: a term never spans two fields; with a filter; on other collections', async () => {
      await seedTasks();
      const search = (...terms: string[]) => ({
        terms,
        fields: ['title', 'description'] as ('title' | 'description')[],
      });
      // t6: title 'Zebra docs', description 'About the LOGIN page'.
      for (const term of ['docsabout', 'docs about', 'sa', 'pagezebra']) {
        assert.deepEqual(ids((await tasks().query({ search: search(term) })).items), [], term);
      }
      assert.deepEqual(ids((await tasks().query({ search: search('the', 'ZEBRA') })).items), ['t6']);
      const inP1 = await tasks().query({ filter: { projectId: 'p1' }, search: search('APPLE'), limit: 1 });
      assert.deepEqual([ids(inP1.items), inP1.total, inP1.next], [['t7'], 1, null]);
      const store = current();
      await store.projects.insert(project('p3', { name: 'Garden shed', description: 'Bricks and mortar' }));
      const projects = async (...terms: string[]) =>
        ids((await store.projects.query({ search: { terms, fields: ['name', 'description'] } })).items);
      assert.deepEqual(await projects('SHED', 'brick'), ['p3']);
      assert.deepEqual(await projects('shedbricks'), []);
    });

    test('search follows updates, deletions and rolled-back transactions', async () => {
      await seedTasks();
      const store = current();
      const found = async (term: string) =>
        ids((await tasks().query({ search: { terms: [term], fields: ['title', 'description'] } })).items);
      const t3 = (await tasks().get('t3'))!;
      await tasks().replace({ ...t3, title: 'Pear tart', description: 'Quince jelly' });
      assert.deepEqual(await found('apple'), ['t7']);
      assert.deepEqual(await found('PEAR'), ['t3']);
      assert.deepEqual(await found('quince'), ['t3']);
      await tasks().updateWhere({ projectId: 'p1', status: 'done' }, { description: 'quince too' }, T(40));
      assert.deepEqual(await found('quince'), ['t1', 't3', 't7']);
      await tasks().delete('t7');
      assert.deepEqual(await found('quince'), ['t1', 't3']);
      assert.deepEqual(await found('crumble'), []);
      await tasks().deleteWhere({ projectId: 'p2' });
      assert.deepEqual(await found('quince'), ['t1']);
      assert.deepEqual(await found('zebra'), []);

      // Everything a transaction changed comes back as it was, searched as before.
      await assert.rejects(
        store.transaction(async (tx) => {
          const t1 = (await tx.tasks.get('t1'))!;
          await tx.tasks.replace({ ...t1, title: 'Renamed', description: '' });
          await tx.tasks.delete('t2');
          await tx.tasks.insert(task('t9', 'p1', { title: 'Quince jam' }));
          await tx.tasks.updateWhere({ projectId: 'p1' }, { title: 'All the same' }, T(50));
          assert.deepEqual(ids((await tx.tasks.query({ search: { terms: ['same'], fields: ['title'] } })).items), [
            't1',
            't4',
            't5',
            't9',
          ]);
          throw new Error('undo');
        }),
      );
      assert.deepEqual(await found('quince'), ['t1']);
      assert.deepEqual(await found('docs'), ['t1']);
      assert.deepEqual(await found('login'), ['t2']);
      assert.deepEqual(await found('same'), []);
      assert.deepEqual(await found('renamed'), []);

      // Many deletions (a store may compact its storage): the rest is still found, in creation order.
      for (let i = 0; i < 200; i++)
        await tasks().insert(task(`bulk${i}`, 'p1', { title: `Bulk ${i % 2 ? 'odd' : 'even'}` }));
      for (let i = 0; i < 200; i++) if (i % 10 !== 0) await tasks().delete(`bulk${i}`);
      const evens = await tasks().query({ search: { terms: ['EVEN'], fields: ['title', 'description'] }, limit: 7 });
      assert.deepEqual([evens.items[0]?.id, evens.items[6]?.id, evens.total], ['bulk0', 'bulk60', 20]);
      assert.deepEqual(await found('odd'), []);
    });

    test('a position the store did not make is refused with PositionError', async () => {
      await seedTasks();
      for (const after of [[], ['x'], [1, 2], [{}]]) {
        await assert.rejects(tasks().query({ after, limit: 1 }), PositionError);
      }
      await assert.rejects(tasks().query({ sort: [PRIORITY], after: [{ a: 1 }, 1], limit: 1 }), PositionError);
    });

    describe('the activity log', () => {
      const log = () => current().activity;
      async function seedLog(): Promise<void> {
        const rows: [string, number, string, string][] = [
          ['a', 1, 'task.created', 'alice'],
          ['b', 2, 'task.updated', 'bob'],
          ['c', 2, 'project.updated', 'alice'],
          ['d', 3, 'task.deleted', 'carol'],
          ['e', 2, 'task.created', 'bob'],
          ['f', 4, 'sprint.started', 'alice'],
        ];
        for (const [id, minute, action, actor] of rows) {
          await log().append(activity(id, T(minute), { action, actor, summary: `Summary ${id.toUpperCase()}x` }));
        }
      }
      const walkLog = async (q: Parameters<Store['activity']['query']>[0]) => {
        const seen: string[] = [];
        let after = q.after;
        for (;;) {
          const page = await log().query({ ...q, after });
          seen.push(...ids(page.items));
          if (page.next === null) return seen;
          after = page.next;
        }
      };

      test('pages newest first; ties newest appended first; the total of every page', async () => {
        await seedLog();
        const first = await log().query({ filter: {}, limit: 2 });
        assert.deepEqual([ids(first.items), first.total], [['f', 'd'], 6]);
        assert.deepEqual(await walkLog({ filter: {}, limit: 2 }), ['f', 'd', 'e', 'c', 'b', 'a']);
        assert.deepEqual(await walkLog({ filter: {}, limit: 4 }), ['f', 'd', 'e', 'c', 'b', 'a']);
        assert.deepEqual(await walkLog({ filter: { actor: 'alice' }, limit: 1 }), ['f', 'c', 'a']);
        assert.deepEqual(await walkLog({ filter: { actor: AnyOf.of(['bob', 'carol']) }, limit: 2 }), ['d', 'e', 'b']);
        await log().append(activity('g', T(9)));
        const second = await log().query({ filter: {}, limit: 2, after: first.next! });
        assert.deepEqual([ids(second.items), second.total], [['e', 'c'], 7]);
      });

      test('sort, ranges on timestamp, search, together', async () => {
        await seedLog();
        const byAction = [{ field: 'action' }];
        assert.deepEqual(ids((await log().query({ filter: {}, sort: byAction })).items), [
          'c',
          'f',
          'e',
          'a',
          'd',
          'b',
        ]);
        assert.deepEqual(await walkLog({ filter: {}, sort: byAction, limit: 2 }), ['c', 'f', 'e', 'a', 'd', 'b']);
        const oldest = [{ field: 'timestamp' }];
        assert.deepEqual(await walkLog({ filter: {}, sort: oldest, limit: 1 }), ['a', 'e', 'c', 'b', 'd', 'f']);
        const window = await log().query({ filter: { timestamp: new Range({ gt: T(1), lt: T(4) }) } });
        assert.deepEqual([ids(window.items), window.total], [['d', 'e', 'c', 'b'], 4]);
        const searched = await log().query({
          filter: { timestamp: new Range({ gte: T(2) }) },
          search: { terms: ['TASK', 'x'], fields: ['action', 'summary'] },
          limit: 1,
        });
        assert.deepEqual([ids(searched.items), searched.total], [['d'], 3]);
        assert.deepEqual(
          await walkLog({ filter: {}, search: { terms: ['task'], fields: ['action', 'summary'] }, limit: 1 }),
          ['d', 'e', 'b', 'a'],
        );
      });
    });
  });
}

const notification = (i: number) => ({
  id: `n${i}`,
  username: 'alice',
  type: 'task_assigned' as const,
  message: `Message ${i}`,
  resourceType: null,
  resourceId: null,
  read: false,
  createdAt: T(1),
});

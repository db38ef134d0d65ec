import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreNotEmptyError, type SnapshotRecords, type Store } from '../../src/store/store.ts';
import { T, activity, comment, milestone, notification, project, task, team, timeEntry, webhook } from './records.ts';

const ids = (records: readonly { id: string }[]) => records.map((r) => r.id);

/** Every record of one kind a snapshot reads, its parts joined. */
async function readAll<K extends keyof SnapshotRecords>(store: Store, kind: K): Promise<SnapshotRecords[K][]> {
  return store.snapshot(async (snapshot) => {
    const all: SnapshotRecords[K][] = [];
    for await (const part of snapshot.read(kind)) all.push(...part);
    return all;
  });
}

/** `Store.snapshot` and `Store.load` (store.ts): an export's consistent read, an import's one transaction. */
export function loadContract(current: () => Store): void {
  describe('snapshot and load', () => {
    test('a snapshot reads every kind in creation order, the activity log oldest first', async () => {
      const store = current();
      await store.teams.insert(team('team_b'));
      await store.teams.insert(team('team_a'));
      await store.projects.insert(project('p1', { teamId: 'team_a' }));
      await store.tasks.insert(task('t2', 'p1'));
      await store.tasks.insert(task('t1', 'p1'));
      await store.comments.insert(comment('c1', 'task', 't1'));
      await store.milestones.insert(milestone('m1', 'p1'));
      await store.timeEntries.insert(timeEntry('te1', 't1'));
      await store.webhooks.insert(webhook('wh_1'));
      await store.notifications.insert(notification('n1'));
      await store.activity.append(activity('e_late', T(3)));
      await store.activity.append(activity('e_early', T(1)));
      await store.activity.append(activity('e_tie_1', T(2)));
      await store.activity.append(activity('e_tie_2', T(2)));
      assert.deepEqual(ids(await readAll(store, 'teams')), ['team_b', 'team_a']);
      assert.deepEqual(ids(await readAll(store, 'tasks')), ['t2', 't1']);
      assert.deepEqual(await readAll(store, 'tasks'), await store.tasks.list(), 'the records as the store reads them');
      assert.deepEqual(await readAll(store, 'webhooks'), await store.webhooks.list());
      assert.deepEqual(ids(await readAll(store, 'activity')), ['e_early', 'e_tie_1', 'e_tie_2', 'e_late']);
      assert.deepEqual(await readAll(store, 'tokens'), []);
    });

    test('a snapshot reads more records than one part holds, each once', async () => {
      const store = current();
      const made = Array.from({ length: 12_345 }, (_, i) => task(`t${i}`, 'p1'));
      await store.load(async (tx) => {
        await tx.projects.insert(project('p1'));
        for (const t of made) await tx.tasks.insert(t);
      });
      assert.deepEqual(ids(await readAll(store, 'tasks')), ids(made));
    });

    test('a snapshot does not see what commits while it reads', async () => {
      const store = current();
      await store.projects.insert(project('p1'));
      await store.tasks.insert(task('t1', 'p1'));
      // The write comes from elsewhere (another request), once the snapshot has read something.
      let take = () => {};
      let wrote = () => {};
      const taken = new Promise<void>((resolve) => (take = resolve));
      const written = new Promise<void>((resolve) => (wrote = resolve));
      const write = taken.then(() => store.transaction(async (tx) => tx.tasks.insert(task('t2', 'p1'))));
      void write.then(wrote);
      const seen = await store.snapshot(async (snapshot) => {
        for await (const part of snapshot.read('projects')) void part;
        take();
        // One connection (embedded) runs the write after the snapshot; any other store, meanwhile.
        await Promise.race([written, sleep(100)]);
        const tasks: string[] = [];
        for await (const part of snapshot.read('tasks')) tasks.push(...ids(part));
        return tasks;
      });
      await write;
      assert.deepEqual(seen, ['t1']);
      assert.deepEqual(ids(await store.tasks.list()), ['t1', 't2']);
    });

    test('load fills an empty store; a store with records is refused unchanged, or replaced with `replace`', async () => {
      const store = current();
      await store.load(async (tx) => {
        await tx.projects.insert(project('p1'));
        await tx.tasks.insert(task('t1', 'p1'));
        await tx.activity.append(activity('e1', T(1)));
      });
      assert.deepEqual(ids(await store.tasks.list()), ['t1']);
      await assert.rejects(
        store.load(async (tx) => tx.projects.insert(project('p2'))),
        (error) => error instanceof StoreNotEmptyError,
      );
      assert.deepEqual(ids(await store.projects.list()), ['p1']);

      await store.load(
        async (tx) => {
          await tx.projects.insert(project('p2'));
          await tx.activity.append(activity('e2', T(2)));
        },
        { replace: true },
      );
      assert.deepEqual(ids(await store.projects.list()), ['p2']);
      assert.deepEqual(await store.tasks.list(), []);
      const log = await store.activity.query({ filter: {} });
      assert.deepEqual([ids(log.items), log.total, await store.activity.count()], [['e2'], 1, 1]);
    });

    test('a load that fails keeps nothing of it, nor of the emptying before it', async () => {
      const store = current();
      await store.projects.insert(project('p1'));
      await store.activity.append(activity('e1', T(1)));
      await assert.rejects(
        store.load(
          async (tx) => {
            await tx.projects.insert(project('p2'));
            await tx.activity.append(activity('e2', T(2)));
            throw new Error('a bad record');
          },
          { replace: true },
        ),
        /a bad record/,
      );
      assert.deepEqual(ids(await store.projects.list()), ['p1']);
      assert.deepEqual(ids((await store.activity.query({ filter: {} })).items), ['e1']);
      assert.equal(await store.activity.count(), 1);
    });
  });
}

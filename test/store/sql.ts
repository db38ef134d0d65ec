import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import pg from 'pg';
import { setTimeout as delay } from 'node:timers/promises';
import { openStore, type StoreOptions } from '../../src/store/index.ts';
import * as data from '../../src/store/seed-data.ts';
import type { SqlClient, SqlDriver } from '../../src/store/sql/driver.ts';
import { SqlDeliveryLog } from '../../src/store/sql/deliveries.ts';
import { migrate, migrations } from '../../src/store/sql/migrate.ts';
import { BACKGROUND_SETTINGS } from '../../src/store/sql/pg.ts';
import { StreamLogReader } from '../../src/store/sql/stream-log.ts';
import { SqlStore } from '../../src/store/sql/store.ts';
import type { Store } from '../../src/store/store.ts';
import { T, comment, delivery, milestone, project, task, team, timeEntry, webhook } from './records.ts';

/** A new, empty database: a driver on it, or how to open it as a store (one or the other). */
export interface Fresh {
  options(): Promise<StoreOptions>;
  driver(): Promise<SqlDriver>;
}

/** A node of a plan as `EXPLAIN (ANALYZE, FORMAT JSON)` shows it. */
interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** The outbox's rows a plan read: those its scans of `webhook_deliveries` returned or filtered out. */
function rowsRead(node: PlanNode): number {
  const own =
    node['Relation Name'] === 'webhook_deliveries'
      ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) *
        node['Actual Loops']
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

export interface SqlTarget {
  fresh(): Promise<Fresh>;
  /** Whether two instances may open one database at once (a server: yes; an embedded folder: one process). */
  readonly shared: boolean;
  cleanUp(): Promise<void>;
}

const SAMPLE = {
  teams: data.teams,
  projects: data.projects,
  tasks: data.tasks,
  comments: data.comments,
  milestones: data.milestones,
  timeEntries: data.timeEntries,
} as const;

async function assertSample(store: Store): Promise<void> {
  for (const [kind, records] of Object.entries(SAMPLE)) {
    assert.deepEqual(await store[kind as keyof typeof SAMPLE].list(), records, kind);
  }
  const hooks = await store.webhooks.list();
  assert.deepEqual(
    hooks.map(({ secret: _, ...rest }) => rest),
    data.webhooks,
  );
  for (const h of hooks) assert.match(h.secret, /^whsec_[A-Za-z0-9]{12}$/);
  assert.deepEqual((await store.activity.query({ filter: {} })).items, [...data.activity].reverse());
  assert.equal(await store.notifications.count(), 0);
}

/** What only the SQL store has to show: its schema, its migrations, its seeding. */
export function sqlSuite(name: string, target: SqlTarget, skip?: string): void {
  describe(`SQL store: ${name}`, { skip: skip ?? false }, () => {
    /** A store on a fresh database, migrated and seeded, closed when the test ends. */
    async function opened(t: { after: (fn: () => Promise<void>) => void }): Promise<SqlStore> {
      const store = await openStore(await (await target.fresh()).options());
      t.after(() => store.close());
      assert.ok(store instanceof SqlStore);
      return store;
    }

    after(() => target.cleanUp());

    describe('migrations', () => {
      test('each applied once, in order, recorded in schema_migrations', async () => {
        const driver = await (await target.fresh()).driver();
        try {
          const all = migrations().map((m) => m.version);
          assert.deepEqual(all.slice(0, 1), [1]);
          assert.deepEqual(await migrate(driver), all);
          assert.deepEqual(await migrate(driver), []);
          const rows = await driver.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY 1');
          assert.deepEqual(
            rows.map((r) => r.version),
            all,
          );
        } finally {
          await driver.close();
        }
      });

      test('two migrations started together on an empty database do not collide', async () => {
        const fresh = await target.fresh();
        const first = await fresh.driver();
        const second = target.shared ? await fresh.driver() : first;
        try {
          const applied = await Promise.all([migrate(first), migrate(second), migrate(first)]);
          assert.deepEqual(
            applied.flat().sort((a, b) => a - b),
            migrations().map((m) => m.version),
          );
          const [row] = await first.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
          assert.equal(row!.n, migrations().length);
        } finally {
          await first.close();
          if (second !== first) await second.close();
        }
      });

      test('a failing migration leaves nothing applied', async () => {
        const driver = await (await target.fresh()).driver();
        try {
          const broken = [...migrations(), { version: 999, name: 'broken', sql: 'CREATE TABLE x (); SELECT nope;' }];
          await assert.rejects(migrate(driver, broken));
          const [row] = await driver.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM information_schema.tables
             WHERE table_schema = current_schema() AND table_name IN ('tasks', 'x')`,
          );
          assert.equal(row!.n, 0);
        } finally {
          await driver.close();
        }
      });
    });

    describe('schema', () => {
      async function withStore(work: (store: SqlStore) => Promise<void>): Promise<void> {
        const driver = await (await target.fresh()).driver();
        try {
          await migrate(driver);
          await work(new SqlStore(driver));
        } finally {
          await driver.close();
        }
      }

      test('columns have real types: timestamptz(3), date, numeric, jsonb, text[], boolean', async () => {
        await withStore(async (store) => {
          const rows = await store.driver.query<{ t: string; c: string; type: string; p: number | null }>(
            `SELECT table_name AS t, column_name AS c, data_type AS type, datetime_precision AS p
             FROM information_schema.columns WHERE table_schema = current_schema()`,
          );
          const type = (t: string, c: string) => rows.find((r) => r.t === t && r.c === c);
          assert.deepEqual(type('tasks', 'created_at'), {
            t: 'tasks',
            c: 'created_at',
            type: 'timestamp with time zone',
            p: 3,
          });
          assert.equal(type('milestones', 'due_date')?.type, 'date');
          assert.equal(type('time_entries', 'hours')?.type, 'numeric');
          assert.equal(type('activity_log', 'metadata')?.type, 'jsonb');
          assert.equal(type('teams', 'members')?.type, 'jsonb');
          assert.equal(type('webhooks', 'events')?.type, 'ARRAY');
          assert.equal(type('notifications', 'read')?.type, 'boolean');
        });
      });

      test('every list filter and the newest-first order of the activity log have an index', async () => {
        await withStore(async (store) => {
          const rows = await store.driver.query<{ t: string; def: string }>(
            `SELECT tablename AS t, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema()`,
          );
          const leads = (t: string, columns: string) =>
            rows.some((r) => r.t === t && r.def.includes(`(${columns}`)) ||
            assert.fail(`no index on ${t} (${columns}…)`);
          for (const [t, columns] of [
            ['projects', 'status'],
            ['projects', 'team_id'],
            ['tasks', 'project_id'],
            ['tasks', 'assignee'],
            ['tasks', 'status'],
            ['comments', 'target_id'],
            ['comments', 'target_type'],
            ['comments', 'author'],
            ['milestones', 'project_id'],
            ['milestones', 'status'],
            ['time_entries', 'task_id'],
            ['time_entries', 'username'],
            ['time_entries', 'date'],
            ['webhooks', 'events'],
            ['webhooks', 'active'],
            ['notifications', 'username'],
            ['notifications', 'type'],
            ['notifications', 'read'],
            ['activity_log', 'occurred_at, seq'],
            ['activity_log', 'action, occurred_at, seq'],
            ['activity_log', 'actor, occurred_at, seq'],
            ['activity_log', 'resource_type, occurred_at, seq'],
            ['activity_log', 'resource_id, occurred_at, seq'],
          ] as const) {
            leads(t, columns);
          }
        });
      });

      test('constraints refuse what the schemas refuse: enumerations, hours, references, NOT NULL', async () => {
        await withStore(async (store) => {
          await store.projects.insert(project('p1'));
          await store.tasks.insert(task('t1', 'p1'));
          const bad = (promise: Promise<unknown>) => assert.rejects(promise);
          await bad(store.projects.insert(project('p2', { status: 'archived' as never })));
          await bad(store.projects.insert(project('p3', { teamId: 'team_missing' })));
          await bad(store.tasks.insert(task('t2', 'p1', { priority: 'urgent' as never })));
          await bad(store.tasks.insert(task('t3', 'p_missing')));
          await bad(store.tasks.insert(task('t4', 'p1', { title: null as never })));
          await bad(store.comments.insert(comment('c1', 'milestone' as never, 'p1')));
          await bad(store.comments.insert(comment('c2', 'task', 't_missing')));
          await bad(store.comments.insert(comment('c3', 'project', 't1')));
          await bad(store.milestones.insert(milestone('m1', 'p1', { status: 'done' as never })));
          await bad(store.timeEntries.insert(timeEntry('e1', 't1', { hours: 0 })));
          await bad(store.timeEntries.insert(timeEntry('e2', 't1', { hours: 24.5 })));
          await bad(store.webhooks.insert(webhook('w1', { events: ['task.created', 'bogus'] })));
          assert.equal(await store.tasks.count(), 1);
          await store.timeEntries.insert(timeEntry('e3', 't1', { hours: 24 }));
          await store.webhooks.insert(webhook('w2', { events: ['*', 'sprint.completed'] }));
        });
      });

      test('foreign keys cascade as the contract does: project, task, team', async () => {
        await withStore(async (store) => {
          await store.teams.insert(team('team_1'));
          await store.projects.insert(project('p1', { teamId: 'team_1' }));
          await store.projects.insert(project('p2', { teamId: 'team_1' }));
          await store.tasks.insert(task('t1', 'p1'));
          await store.tasks.insert(task('t2', 'p1'));
          await store.tasks.insert(task('t3', 'p2'));
          await store.comments.insert(comment('c1', 'task', 't1'));
          await store.comments.insert(comment('c2', 'project', 'p1'));
          await store.comments.insert(comment('c3', 'task', 't3'));
          await store.comments.insert(comment('c4', 'project', 'p2'));
          await store.comments.insert(comment('c5', 'task', 't2'));
          await store.milestones.insert(milestone('m1', 'p1'));
          await store.milestones.insert(milestone('m2', 'p2'));
          await store.timeEntries.insert(timeEntry('e1', 't1'));
          await store.timeEntries.insert(timeEntry('e2', 't3'));
          await store.timeEntries.insert(timeEntry('e3', 't2'));
          const ids = async (c: { list(): Promise<{ id: string }[]> }) => (await c.list()).map((r) => r.id);

          assert.equal(await store.tasks.delete('t2'), true);
          assert.deepEqual(await ids(store.comments), ['c1', 'c2', 'c3', 'c4']);
          assert.deepEqual(await ids(store.timeEntries), ['e1', 'e2']);

          assert.equal(await store.projects.delete('p1'), true);
          assert.deepEqual(await ids(store.tasks), ['t3']);
          assert.deepEqual(await ids(store.comments), ['c3', 'c4']);
          assert.deepEqual(await ids(store.milestones), ['m2']);
          assert.deepEqual(await ids(store.timeEntries), ['e2']);

          const before = (await store.projects.get('p2'))!;
          assert.equal(await store.teams.delete('team_1'), true);
          assert.deepEqual(await store.projects.get('p2'), { ...before, teamId: null });
        });
      });
    });

    describe('concurrent writes', () => {
      test(
        'a transaction left open on one record does not hold up a write to another',
        { skip: !target.shared },
        async (t) => {
          const store = await opened(t);
          let release!: () => void;
          const gate = new Promise<void>((resolve) => (release = resolve));
          const slow = store.transaction(async (tx) => {
            await tx.projects.insert(project('p_slow'));
            await gate;
          });
          try {
            const quick = store.transaction((tx) => tx.projects.insert(project('p_quick')));
            const first = await Promise.race([
              quick.then(() => 'quick'),
              slow.then(() => 'slow'),
              delay(5_000, 'neither within 5 s', { ref: false }),
            ]);
            assert.equal(first, 'quick');
            assert.equal((await store.projects.get('p_quick'))?.id, 'p_quick');
            assert.equal(await store.projects.get('p_slow'), undefined, 'not committed yet');
          } finally {
            release();
            await slow;
          }
          assert.equal((await store.projects.get('p_slow'))?.id, 'p_slow');
        },
      );

      test('ten transactions reading and rewriting one record at once lose no update', async (t) => {
        const store = await opened(t);
        await store.transaction((tx) => tx.projects.insert(project('p_counter', { description: '0' })));
        await Promise.all(
          Array.from({ length: 10 }, () =>
            store.transaction(async (tx) => {
              const current = (await tx.projects.get('p_counter'))!;
              await tx.projects.replace({ ...current, description: String(Number(current.description) + 1) });
            }),
          ),
        );
        assert.equal((await store.projects.get('p_counter'))?.description, '10');
      });

      test('the activity log total stays exact under concurrent appends, kept in parts, never one row', async (t) => {
        const store = await opened(t);
        const before = (await store.activity.query({ filter: {}, limit: 0 })).total;
        const entry = data.activity[0]!;
        await Promise.all(
          Array.from({ length: 300 }, (_, i) =>
            store.transaction((tx) => tx.activity.append({ ...entry, id: `act_c${i}` })),
          ),
        );
        assert.equal((await store.activity.query({ filter: {}, limit: 0 })).total, before + 300);
        assert.equal(await store.activity.count(), before + 300);
        const [row] = await store.driver.query<{ parts: number }>(
          "SELECT count(*)::int AS parts FROM record_totals WHERE table_name = 'activity_log'",
        );
        assert.ok(row!.parts <= 128, `the parts are folded as they grow (${row!.parts})`);
      });
    });

    describe('batched writes', () => {
      test("a transaction's new rows are all stored, in order, past the parameters one statement takes", async (t) => {
        const store = await opened(t);
        const before = (await store.activity.query({ filter: {}, limit: 0 })).total;
        const entry = data.activity[0]!;
        const n = 9_000; // 8 parameters each: more than PostgreSQL takes in one statement (65,535)
        await store.transaction(async (tx) => {
          await tx.projects.insert(project('p_batch'));
          for (let i = 0; i < n; i++) {
            await tx.activity.append({ ...entry, id: `act_b${i}`, summary: `Entry ${i}` });
            if (i % 1000 === 0) await tx.tasks.insert(task(`t_batch${i}`, 'p_batch')); // refers to the new project
          }
        });
        const page = await store.activity.query({ filter: { actor: entry.actor }, limit: 1000 });
        const ours = page.items.filter((e) => e.id.startsWith('act_b'));
        assert.deepEqual(
          ours.slice(0, 3).map((e) => e.id),
          [`act_b${n - 1}`, `act_b${n - 2}`, `act_b${n - 3}`],
          'newest first: the order they were added in',
        );
        assert.equal((await store.activity.query({ filter: {}, limit: 0 })).total, before + n);
        assert.deepEqual(
          (await store.tasks.list({ projectId: 'p_batch' })).map((r) => r.id),
          Array.from({ length: 9 }, (_, i) => `t_batch${i * 1000}`),
        );
      });

      test('a read in the transaction sees the rows added before it', async (t) => {
        const store = await opened(t);
        const seen = await store.transaction(async (tx) => {
          await tx.projects.insert(project('p_seen'));
          await tx.tasks.insert(task('t_seen', 'p_seen'));
          return [(await tx.tasks.get('t_seen'))?.id, (await tx.tasks.list({ projectId: 'p_seen' })).length];
        });
        assert.deepEqual(seen, ['t_seen', 1]);
      });

      test('a row the schema refuses fails its transaction, and none of its rows is stored', async (t) => {
        const store = await opened(t);
        const entry = data.activity[0]!;
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.projects.insert(project('p_lost'));
            await tx.activity.append({ ...entry, id: 'act_lost' });
            await tx.tasks.insert(task('t_orphan', 'p_missing'));
          }),
          (err: Error & { kind?: string; field?: string }) => err.kind === 'reference' && err.field === 'projectId',
        );
        assert.equal(await store.projects.get('p_lost'), undefined);
        assert.equal(await store.activity.get('act_lost'), undefined);
        assert.equal(await store.tasks.get('t_orphan'), undefined);
      });
      test(
        'the delivery log runs work exclusively per webhook, across instances: one at a time for a webhook',
        { skip: target.shared ? false : 'one process opens an embedded database' },
        async () => {
          const fresh = await target.fresh();
          const [a, b] = [await fresh.driver(), await fresh.driver()];
          try {
            await migrate(a);
            // Work for one webhook on each instance at once: whether each ran alone (in, out, in, out) or not.
            const order = async (first: string, second: string) => {
              const spans: string[] = [];
              const work = async () => {
                spans.push('in');
                await delay(100);
                spans.push('out');
              };
              await Promise.all([
                new SqlStore(a).deliveries.exclusively(first, work),
                new SqlStore(b).deliveries.exclusively(second, work),
              ]);
              return spans.join(' ');
            };
            assert.equal(await order('wh_1', 'wh_1'), 'in out in out', 'one webhook: one at a time');
            assert.equal(await order('wh_1', 'wh_2'), 'in in out out', 'two webhooks: side by side');
          } finally {
            await a.close();
            await b.close();
          }
        },
      );
      test('after two conflicts a change waits its turn in the queue; a cascading delete also holds back writes to what it cascades over', async () => {
        const driver = await (await target.fresh()).driver();
        try {
          await migrate(driver);
          // Each transaction's first two runs end in a serialization failure, as if a concurrent one had won.
          const statements: string[][] = [];
          const conflicting: SqlDriver = Object.assign(Object.create(driver) as SqlDriver, {
            transaction: <R>(work: (client: SqlClient) => Promise<R>, options?: object) =>
              driver.transaction(async (client) => {
                const run: string[] = [];
                statements.push(run);
                const seen: SqlClient = {
                  query: (text, params) => (run.push(text), client.query(text, params)),
                  exec: (script) => (run.push(script), client.exec(script)),
                };
                const result = await work(seen);
                if (statements.length % 3 !== 0) throw Object.assign(new Error('conflict'), { code: '40001' });
                return result;
              }, options),
          });
          const store = new SqlStore(conflicting);
          const locks = () => statements.map((run) => run.filter((text) => text.startsWith('LOCK TABLE')).length);
          await store.transaction((tx) => tx.teams.insert(team('team_hot')));
          assert.deepEqual(locks(), [0, 0, 1], 'the third run of a change begins with the queue');
          assert.equal(statements[2]![0], 'LOCK TABLE write_queue IN EXCLUSIVE MODE');
          statements.length = 0;
          await store.transaction(async (tx) => void (await tx.teams.delete('team_hot')), { cascade: true });
          assert.deepEqual(locks(), [0, 0, 2], 'the third run of a cascade begins with the queue, then its tables');
          assert.match(
            statements[2]![1]!,
            /^LOCK TABLE comments, time_entries, tasks, milestones, projects, teams IN SHARE/,
          );
          assert.equal(await store.teams.get('team_hot'), undefined);
        } finally {
          await driver.close();
        }
      });
      test('a statement the work started and did not wait for runs before COMMIT; its failure fails the transaction', async () => {
        const driver = await (await target.fresh()).driver();
        try {
          await driver.exec('CREATE TABLE straggler (n int PRIMARY KEY)');
          await driver.transaction(async (client) => {
            await client.query('INSERT INTO straggler VALUES (1)');
            void client.query('INSERT INTO straggler VALUES (2)').catch(() => {});
          });
          assert.deepEqual(await driver.query('SELECT n FROM straggler ORDER BY n'), [{ n: 1 }, { n: 2 }]);
          await assert.rejects(
            driver.transaction(async (client) => {
              await client.query('INSERT INTO straggler VALUES (3)');
              void client.query('INSERT INTO straggler VALUES (1)').catch(() => {}); // a duplicate key
              return 'committed';
            }),
            (err: Error & { kind?: string }) => err.kind === 'conflict',
          );
          assert.deepEqual(await driver.query('SELECT n FROM straggler ORDER BY n'), [{ n: 1 }, { n: 2 }]);
        } finally {
          await driver.close();
        }
      });
      test(
        'the statements a transaction sends before waiting for an answer leave in one write, and the last with COMMIT',
        { skip: target.shared ? false : 'the embedded database is in the process: no socket' },
        async () => {
          const driver = await (await target.fresh()).driver();
          const writes: unknown[] = [];
          type Write = (this: Socket, ...args: unknown[]) => unknown;
          const proto = Socket.prototype as unknown as { _write: Write; _writev: Write };
          const { _write: write, _writev: writev } = proto;
          try {
            await driver.query('SELECT 1'); // the pool's connection is open: only the transaction's writes follow
            proto._write = function (...args) {
              writes.push(this);
              return write.apply(this, args);
            };
            proto._writev = function (...args) {
              writes.push(this);
              return writev.apply(this, args);
            };
            const answers = await driver.transaction(async (client) => {
              // As a change does: its first reads a few promise steps apart, then rows sent with the COMMIT.
              const first = client.query<{ n: number }>('SELECT 1 AS n');
              await Promise.resolve();
              await Promise.resolve();
              const second = client.query<{ n: number }>('SELECT 2 AS n');
              const rows = await Promise.all([first, second]);
              void client.query('SELECT 3').catch(() => {});
              return rows.map(([row]) => row!.n);
            });
            assert.deepEqual(answers, [1, 2]);
            assert.equal(writes.length, 2, 'BEGIN with both reads, then the last statement with COMMIT');
          } finally {
            proto._write = write;
            proto._writev = writev;
            await driver.close();
          }
        },
      );
    });

    describe('opening and seeding', () => {
      test('an empty database is migrated and seeded; reopened, it keeps its records and is not seeded again', async () => {
        const options = await (await target.fresh()).options();
        const first = await openStore(options);
        try {
          await assertSample(first);
          await first.transaction(async (tx) => {
            await tx.tasks.delete('task_001');
            await tx.projects.insert(project('proj_new'));
          });
        } finally {
          await first.close();
        }
        const second = await openStore(options);
        try {
          assert.equal(await second.tasks.get('task_001'), undefined);
          assert.equal((await second.projects.get('proj_new'))?.name, 'Project proj_new');
          assert.equal(await second.tasks.count(), data.tasks.length - 1);
          // Emptied by hand, it stays empty: it was seeded once.
          await second.transaction(async (tx) => {
            for (const p of await tx.projects.list()) await tx.projects.delete(p.id);
          });
        } finally {
          await second.close();
        }
        const third = await openStore(options);
        try {
          assert.equal(await third.projects.count(), 0);
        } finally {
          await third.close();
        }
      });

      test('resetData empties the store and loads the sample records again, with fresh webhook secrets', async () => {
        const options = await (await target.fresh()).options();
        const first = await openStore(options);
        let secrets: string[];
        try {
          secrets = (await first.webhooks.list()).map((w) => w.secret);
          await first.transaction(async (tx) => {
            await tx.projects.delete('proj_001');
            await tx.teams.insert(team('team_new'));
            await tx.activity.append({ ...data.activity[0]!, id: 'act_new' });
            await tx.streamLog.append([{ type: 'team.created', projectId: null, body: '{}' }]);
          });
          assert.ok(await new StreamLogReader((first as SqlStore).driver).head(), 'the stream holds an event');
          await (first as SqlStore).driver.query(`INSERT INTO store_state (key, value) VALUES ('stream_pruned', 'x')`);
        } finally {
          await first.close();
        }
        const reset = await openStore({ ...options, resetData: true });
        try {
          await assertSample(reset);
          // The event stream starts over too: a client resuming from before the reset is told so.
          const reader = new StreamLogReader((reset as SqlStore).driver);
          assert.equal(await reader.head(), undefined);
          assert.equal(await reader.locate({ xid: 0n, seq: 0n }), 'kept', 'every event from now on is kept');
          const now = (await reset.webhooks.list()).map((w) => w.secret);
          assert.equal(
            now.some((s, i) => s === secrets[i]),
            false,
          );
        } finally {
          await reset.close();
        }
      });

      test('two instances opening one empty database together seed it once', { skip: !target.shared }, async () => {
        const options = await (await target.fresh()).options();
        const stores = await Promise.all([openStore(options), openStore(options)]);
        try {
          for (const store of stores) await assertSample(store);
        } finally {
          for (const store of stores) await store.close();
        }
      });
    });

    describe('webhook outbox', () => {
      /** Claims every due delivery for `worker` (at most 4 per webhook), as of T(1), leased until T(2). */
      const claimDue = ({ deliveries }: Pick<Store, 'deliveries'>) =>
        deliveries.claim({
          now: T(1),
          leaseUntil: T(2),
          owner: 'worker',
          limit: 10,
          perWebhook: 4,
          room: new Map(),
        });

      test("a claim leases due rows and reads each one's webhook as it is now; a deleted one is null", async (t) => {
        const store = await opened(t);
        const hook = (await store.webhooks.get('wh_001'))!;
        await store.deliveries.add([delivery('dlv_a', hook.id), delivery('dlv_b', 'wh_deleted')]);
        await store.webhooks.replace({ ...hook, url: 'https://example.com/now', active: false });
        const claimed = await claimDue(store);
        const byId = new Map(claimed.map((c) => [c.id, c]));
        assert.deepEqual(byId.get('dlv_a')?.webhook, {
          id: hook.id,
          url: 'https://example.com/now',
          secret: hook.secret,
          active: false,
        });
        assert.equal(byId.get('dlv_b')?.webhook, null);
        assert.deepEqual(
          claimed.map((c) => c.leasedBy),
          ['worker', 'worker'],
        );
      });

      test(
        "the workers' claims and settles do not wait for a connection behind the requests' transactions",
        // Without connections of their own the claim would wait for the held one: fail rather than hang.
        { skip: target.shared ? false : 'one connection: every statement waits its turn', timeout: 20_000 },
        async (t) => {
          const store = await openStore({ ...(await (await target.fresh()).options()), poolSize: 1 });
          t.after(() => store.close());
          const hook = (await store.webhooks.get('wh_001'))!;
          await store.deliveries.add([delivery('dlv_q', hook.id)]);
          let release!: () => void;
          const held = new Promise<void>((resolve) => (release = resolve));
          let begun!: () => void;
          const holding = new Promise<void>((resolve) => (begun = resolve));
          // A request's transaction holding the pool's one connection until released.
          const request = store.transaction(async (tx) => {
            await tx.projects.get('proj_001');
            begun();
            await held;
          });
          await holding;
          try {
            const claimed = await claimDue(store);
            assert.deepEqual(
              claimed.map((c) => c.id),
              ['dlv_q'],
            );
            const done = { ...claimed[0]!, status: 'succeeded' as const, completedAt: T(1), responseStatus: 204 };
            assert.deepEqual([...(await store.deliveries.settle([{ done }], 'worker'))], ['dlv_q']);
          } finally {
            release();
            await request;
          }
          assert.equal((await store.deliveries.find(hook.id, 'dlv_q'))?.status, 'succeeded');
        },
      );

      test(
        'claims made at once by two instances never take the same row, and together take every due one',
        { skip: target.shared ? false : 'one instance at a time' },
        async (t) => {
          const options = await (await target.fresh()).options();
          const stores = [await openStore(options), await openStore(options)];
          t.after(() => Promise.all(stores.map((s) => s.close())));
          const due = Array.from({ length: 240 }, (_, i) =>
            delivery(`dlv_${i}`, `wh_${i % 12}`, { dueAt: T(Math.floor(i / 60), i % 60) }),
          );
          await stores[0]!.deliveries.add(due);
          const taken = new Map<string, string>();
          for (let round = 0; round < 10 && taken.size < due.length; round++) {
            // Four workers per instance, claiming at the same moment.
            const claims = await Promise.all(
              Array.from({ length: 8 }, (_, w) =>
                stores[w % 2]!.deliveries.claim({
                  now: T(5),
                  leaseUntil: T(9),
                  owner: `w${w}`,
                  limit: 20,
                  perWebhook: 3,
                  room: new Map(),
                }).then((rows) => rows.map((row) => [row.id, row.leasedBy!] as const)),
              ),
            );
            for (const [id, owner] of claims.flat()) {
              assert.equal(taken.get(id), undefined, `${id} claimed by ${taken.get(id)} and ${owner}`);
              taken.set(id, owner);
            }
          }
          assert.equal(taken.size, due.length);
          // Each row is leased to the worker that was answered it.
          const leased = await stores[1]!.deliveries.list('wh_0');
          for (const row of leased) assert.equal(row.leasedBy, taken.get(row.id));
        },
      );

      test(
        "only the workers' sessions commit without waiting for the disk and keep one plan per statement",
        { skip: target.shared ? false : 'no separate sessions' },
        async () => {
          const driver = await (await target.fresh()).driver();
          try {
            const show = async (db: Pick<SqlDriver, 'query'>) =>
              (
                await db.query<{ sync: string; plans: string; scans: string }>(
                  `SELECT current_setting('synchronous_commit') AS sync, current_setting('plan_cache_mode') AS plans,
                          current_setting('enable_seqscan') AS scans`,
                )
              )[0]!;
            assert.deepEqual(await show(driver.background!), {
              sync: 'off',
              plans: 'force_generic_plan',
              scans: 'off',
            });
            assert.deepEqual(await show(driver), { sync: 'on', plans: 'auto', scans: 'on' });
            assert.deepEqual(await driver.transaction((client) => show(client)), {
              sync: 'on',
              plans: 'auto',
              scans: 'on',
            });
          } finally {
            await driver.close();
          }
        },
      );

      test(
        "the workers' statements, planned on an empty outbox, read only the rows they need from a large one",
        { skip: target.shared ? false : 'no separate sessions', timeout: 60_000 },
        async (t) => {
          const options = await (await target.fresh()).options();
          const store = await openStore(options);
          t.after(() => store.close());
          // A session set up as the workers' are, each statement prepared (planned) once, as the driver's are.
          const session = new pg.Client({ connectionString: options.databaseUrl, options: BACKGROUND_SETTINGS });
          await session.connect();
          t.after(() => session.end());
          const names = new Map<string, string>();
          /** Rows of the outbox each statement read, by the plan it ran, while `measuring`. */
          const read = new Map<string, number>();
          let measuring = false;
          const literal = (value: unknown): string => {
            if (value === null || value === undefined) return 'NULL';
            if (!Array.isArray(value)) return session.escapeLiteral(String(value));
            const item = (v: unknown) => (v === null ? 'NULL' : `"${String(v).replace(/["\\]/g, '\\$&')}"`);
            return session.escapeLiteral(`{${value.map(item).join(',')}}`);
          };
          const client: SqlClient = {
            async query<R extends object>(text: string, params: readonly unknown[] = []) {
              let name = names.get(text);
              if (name === undefined) names.set(text, (name = `worker_${names.size}`));
              if (measuring && !text.startsWith('INSERT')) {
                // The statement as it runs just below, its effects rolled back.
                await session.query('BEGIN');
                const [
                  {
                    'QUERY PLAN': [plan],
                  },
                ] = (
                  await session.query(
                    `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}(${params.map(literal).join(', ')})`,
                  )
                ).rows as [{ 'QUERY PLAN': [{ Plan: PlanNode }] }];
                await session.query('ROLLBACK');
                const statement = text.trim().split(/\s+/).slice(0, 2).join(' ');
                read.set(statement, Math.max(read.get(statement) ?? 0, rowsRead(plan!.Plan)));
              }
              return (await session.query({ name, text, values: params as unknown[] })).rows as R[];
            },
            exec: async (script: string) => void (await session.query(script)),
          };
          const log = new SqlDeliveryLog(client);
          /** What a worker does: claims, settles one attempt as made and one with its retry, gives one back. */
          const work = async (tag: string) => {
            await log.add(['a', 'b', 'c'].map((n) => delivery(`dlv_${tag}_${n}`, 'wh_001')));
            const claimed = await claimDue({ deliveries: log });
            assert.equal(claimed.length, 3, tag);
            const [made, failed, back] = claimed.map(({ webhook: _, ...row }) => row);
            const settled = { completedAt: T(1), leaseUntil: null, leasedBy: null };
            await log.settle([{ done: { ...made!, ...settled, status: 'succeeded', responseStatus: 204 } }], 'worker');
            const next = { ...failed!, id: `${failed!.id}_2`, attempt: 2, dueAt: T(20) };
            await log.settle(
              [{ done: { ...failed!, ...settled, status: 'failed', responseStatus: 500 }, next }],
              'worker',
            );
            await log.release([back!.id], 'worker');
            await session.query('DELETE FROM webhook_deliveries WHERE id = $1', [back!.id]);
            await log.nextDue(T(1));
            await log.prune(T(0));
          };
          await client.exec('DELETE FROM webhook_deliveries');
          for (const tag of ['empty_1', 'empty_2']) await work(tag);
          // Then a large outbox: a receiver that is down with 4,000 attempts waiting, and 4,000 settled.
          for (let batch = 0; batch < 8; batch++) {
            await log.add(
              Array.from({ length: 500 }, (_, i) =>
                delivery(`dlv_down_${batch}_${i}`, 'wh_002', { dueAt: T(30, batch, i) }),
              ),
            );
            await log.add(
              Array.from({ length: 500 }, (_, i) =>
                delivery(`dlv_old_${batch}_${i}`, 'wh_003', { status: 'succeeded', createdAt: T(0, batch, i) }),
              ),
            );
          }
          measuring = true;
          await work('large');
          // Without the workers' session settings, the claim reads both the backlog and the settled rows (8,000+).
          assert.deepEqual([...read.keys()].sort(), [
            'DELETE FROM',
            'SELECT to_char(due_at',
            'UPDATE webhook_deliveries',
            'WITH RECURSIVE',
            'WITH done',
          ]);
          for (const [statement, rows] of read) assert.ok(rows <= 50, `${statement}: ${rows} rows read`);
        },
      );
    });

    describe('between instances', { skip: !target.shared }, () => {
      test("a NOTIFY reaches the other instances' listeners, not the sender's own; those of a few ms go as one", async () => {
        const fresh = await target.fresh();
        const [one, two] = [await fresh.driver(), await fresh.driver()];
        const channel = 'pm_test_channel';
        const heard = { one: [] as string[], two: [] as string[] };
        const waiting: (() => void)[] = [];
        const marked = (who: 'one' | 'two') =>
          new Promise<void>((resolve) => {
            const check = () => (heard[who].includes('marker') ? resolve() : waiting.push(check));
            check();
          });
        const stops: (() => Promise<void>)[] = [];
        try {
          for (const who of ['one', 'two'] as const) {
            const listener = (payload: string) => {
              heard[who].push(payload);
              for (const check of waiting.splice(0)) check();
            };
            stops.push(await (who === 'one' ? one : two).listen!(channel, listener, () => {}));
          }
          await one.notify!(channel);
          // Two asked for in different turns of the event loop, within the few ms the driver gathers them.
          const first = two.notify!(channel);
          await new Promise((resolve) => setImmediate(resolve));
          await Promise.all([first, two.notify!(channel)]);
          // Notifications reach a listener in the order they committed: a plain NOTIFY after them marks the end.
          await one.query(`SELECT pg_notify($1, 'marker')`, [channel]);
          await Promise.all([marked('one'), marked('two')]);
          assert.equal(heard.one.length, 2, `one heard ${heard.one.length - 1} before the marker: two's, once`);
          assert.equal(heard.two.length, 2, `two heard ${heard.two.length - 1} before the marker: one's, once`);
          assert.notEqual(heard.one[0], heard.two[0], 'each heard the other, not itself');
        } finally {
          for (const stop of stops) await stop();
          await one.close();
          await two.close();
        }
      });
    });
  });
}

import type { ActivityEntry } from '../../model/activity.ts';
import type { Comment } from '../../model/comment.ts';
import type { Milestone } from '../../model/milestone.ts';
import type { Notification } from '../../model/notification.ts';
import type { Project } from '../../model/project.ts';
import type { Task } from '../../model/task.ts';
import type { Team } from '../../model/team.ts';
import type { TimeEntry } from '../../model/time-entry.ts';
import type { TokenRecord } from '../../model/token.ts';
import type { WebhookRecord } from '../../model/webhook.ts';
import { setTimeout } from 'node:timers/promises';
import { TransactionScope } from '../scope.ts';
import { seedInto, type Seeder } from '../seed.ts';
import {
  StoreNotEmptyError,
  type ChangeOptions,
  type Collections,
  type LoadOptions,
  type Snapshot,
  type Store,
  type StoreStats,
} from '../store.ts';
import type { ActivityLog, Collection, StreamLog } from '../types.ts';
import { isConflict, type SqlClient, type SqlDriver } from './driver.ts';
import { SqlActivityLog, SqlCollection } from './collection.ts';
import { TableSql } from './table-sql.ts';
import { SqlStreamLog } from './stream-log.ts';
import { SqlDeliveryLog } from './deliveries.ts';
import type { DeliveryLog } from '../outbox.ts';
import { LOCK, TABLES } from './tables.ts';
import { emptyTables, holdsRecords, markSeeded, snapshotOn, withoutPlainIndexes } from './bulk.ts';
import { WriteBatch } from './batch.ts';

const SQL = Object.fromEntries(Object.entries(TABLES).map(([key, table]) => [key, new TableSql(table)])) as Record<
  keyof typeof TABLES,
  TableSql
>;

/** The collections over one database connection, or the pool (`driver`, outside any transaction). */
function collectionsOn(db: SqlClient, driver?: SqlDriver): Collections {
  return {
    projects: new SqlCollection<Project>(db, SQL.projects),
    tasks: new SqlCollection<Task>(db, SQL.tasks),
    teams: new SqlCollection<Team>(db, SQL.teams),
    comments: new SqlCollection<Comment>(db, SQL.comments),
    milestones: new SqlCollection<Milestone>(db, SQL.milestones),
    timeEntries: new SqlCollection<TimeEntry>(db, SQL.timeEntries),
    webhooks: new SqlCollection<WebhookRecord>(db, SQL.webhooks),
    notifications: new SqlCollection<Notification>(db, SQL.notifications),
    activity: new SqlActivityLog<ActivityEntry>(db, SQL.activity),
    tokens: new SqlCollection<TokenRecord>(db, SQL.tokens),
    streamLog: new SqlStreamLog(db),
    deliveries: new SqlDeliveryLog(db, driver),
  };
}

/** How many rows a bulk load holds back before it sends them (a few multi-row INSERTs' worth). */
const BULK_ROWS = 10_000;

/** How many times a transaction is run before a conflict with concurrent ones is reported (503). */
const ATTEMPTS = 20;
/**
 * From this attempt on, a transaction waits for the others that conflicted as often (`QUEUE_LOCK`), and a cascading
 * delete holds back the writes to what it cascades over (`CASCADE_LOCK`).
 */
const ALONE_FROM = 3;
/**
 * Taken first by a transaction that has lost {@link ALONE_FROM} − 1 conflicts in a row, on every instance: such
 * transactions run one after the other, so that many writes to one record at once (a script updating one task from
 * many connections) go through instead of colliding until they give up. Transactions that have not conflicted do not
 * take it. A `LOCK` takes no snapshot (see the migration 009).
 */
const QUEUE_LOCK = 'LOCK TABLE write_queue IN EXCLUSIVE MODE';
/**
 * Taken first by a cascading delete that has lost {@link ALONE_FROM} − 1 conflicts in a row: it waits for the writes
 * under way to the records a cascade reaches and holds off new ones until it commits, so that no child created
 * meanwhile can make it lose again. Readers go on, and so do the writes to anything else. A `LOCK` takes no
 * snapshot, so the transaction's snapshot comes after it, with every write before it in view. Without it, a delete
 * that reads many rows (a project's tasks, comments, time entries) conflicted with any child created meanwhile, and
 * under a steady stream of creates lost every run.
 *
 * The tables in the order a cascade writes them, children first (resources/cascade.ts), which is the order any
 * transaction that writes two of them does: so the lock, taken table by table, never waits in a cycle with one.
 * Only cascades take it: locking every table a write touches, for any write that conflicted (a record many clients
 * update at once), made ordinary creates, which lock the tables of their one statement in another order, deadlock
 * with it.
 */
const CASCADE_LOCK = `LOCK TABLE ${(['comments', 'timeEntries', 'tasks', 'milestones', 'projects', 'teams'] as const)
  .map((kind) => TABLES[kind].name)
  .join(', ')} IN SHARE ROW EXCLUSIVE MODE`;

/**
 * The store in PostgreSQL, a server or the embedded one: the same SQL on both (see driver.ts). The schema is the
 * migrations' (migrate.ts); the store expects it applied.
 *
 * Writes as if one at a time, without waiting for each other: every transaction runs at the SERIALIZABLE level,
 * so PostgreSQL guarantees that the transactions that commit have the effect of some order of them, one after the
 * other, as the memory store's do (a check made in one, a referenced record existing or an `If-Match` version,
 * still holds when it commits). Transactions that touch different records run side by side, across every
 * instance sharing the database. One that conflicts with a concurrent one (SQLSTATE 40001, or a deadlock, 40P01)
 * is rolled back and run again from the start, a few times with a short random pause; its `work` sees a fresh
 * state each time. After two conflicts in a row it waits its turn among the transactions that conflicted as often
 * (so that many writes to one record at once go through one after the other), and a cascading delete holds back
 * the writes to what it cascades over (`CASCADE_LOCK`). Reads outside a transaction see only committed data.
 *
 * The embedded driver has one connection, so its transactions run one at a time anyway.
 *
 * A transaction's new rows are held back and sent together (batch.ts `WriteBatch`): before its next read and with
 * its COMMIT, so a create with its activity entries, notifications, stream events and deliveries is one statement,
 * sent with the COMMIT in one round trip on a server (pg.ts pipelines).
 */
export class SqlStore implements Store {
  readonly projects: Collection<Project>;
  readonly tasks: Collection<Task>;
  readonly teams: Collection<Team>;
  readonly comments: Collection<Comment>;
  readonly milestones: Collection<Milestone>;
  readonly timeEntries: Collection<TimeEntry>;
  readonly webhooks: Collection<WebhookRecord>;
  readonly notifications: Collection<Notification>;
  readonly activity: ActivityLog<ActivityEntry>;
  readonly tokens: Collection<TokenRecord>;
  readonly streamLog: StreamLog;
  readonly deliveries: DeliveryLog;
  private readonly scope: TransactionScope;
  /** Transactions run again after a conflict (`stats`). */
  private conflictRetries = 0;

  /** `checkNesting`: refuse a transaction opened inside another (`TransactionScope`). */
  constructor(
    readonly driver: SqlDriver,
    options: { checkNesting?: boolean } = {},
  ) {
    this.scope = new TransactionScope(options.checkNesting);
    const c = collectionsOn(driver, driver);
    this.projects = c.projects;
    this.tasks = c.tasks;
    this.teams = c.teams;
    this.comments = c.comments;
    this.milestones = c.milestones;
    this.timeEntries = c.timeEntries;
    this.webhooks = c.webhooks;
    this.notifications = c.notifications;
    this.activity = c.activity;
    this.tokens = c.tokens;
    this.streamLog = c.streamLog;
    this.deliveries = c.deliveries;
  }

  /**
   * An unpaged list reads 5,000 records a statement: each part is a keyset page, which costs the same at any depth,
   * and an answer holds at most two parts at a time (a few megabytes of tasks). Lists up to that size are answered
   * whole, from one statement, as before.
   */
  readonly listPart = 5_000;

  get kind(): SqlDriver['kind'] {
    return this.driver.kind;
  }

  stats(): StoreStats {
    const pool = this.driver.poolStats?.();
    return pool ? { conflictRetries: this.conflictRetries, pool } : { conflictRetries: this.conflictRetries };
  }

  /** The database answers, and still holds the service's tables (not dropped and made again under it). */
  async ping(): Promise<void> {
    await this.driver.query('SELECT 1 FROM schema_migrations LIMIT 1');
  }

  async transaction<R>(work: (tx: Collections) => Promise<R>, options: ChangeOptions = {}): Promise<R> {
    this.scope.assertOutside();
    return this.scope.run(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.driver.transaction(
            async (client) => {
              if (attempt >= ALONE_FROM) await client.exec(QUEUE_LOCK);
              if (options.cascade && attempt >= ALONE_FROM) await client.exec(CASCADE_LOCK);
              const batch = new WriteBatch(client);
              const result = await work(collectionsOn(batch));
              batch.send(); // with the COMMIT
              return result;
            },
            { serializable: true },
          );
        } catch (error) {
          if (attempt >= ATTEMPTS || !isConflict(error)) throw error;
          this.conflictRetries++;
          // A random pause, longer after each conflict, so that the transactions that collided do not meet again.
          await setTimeout(Math.random() * Math.min(2 ** attempt, 50));
        }
      }
    });
  }

  /**
   * Loads the sample records (or `seeder`'s) when the store has never been seeded and holds no record; with
   * `reset`, first empties every table (the records come back, the webhooks with fresh secrets). One transaction under
   * an advisory lock: of two instances starting together, one seeds and the other finds it done. Answers whether
   * it loaded them. The rows go out in bulk, as a `load`'s (a seed file may be large).
   */
  async seed(options: { reset?: boolean; seeder?: Seeder } = {}): Promise<boolean> {
    return this.underSeedLock(async (client) => {
      const batch = new WriteBatch(client, BULK_ROWS);
      if (options.reset) {
        await emptyTables(client);
      } else {
        const [state] = await client.query<{ seeded: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM store_state WHERE key = 'seeded') AS seeded`,
        );
        if (state!.seeded || (await holdsRecords(client))) return false;
      }
      await (options.seeder ?? seedInto)(collectionsOn(batch));
      await batch.flush();
      await markSeeded(client);
      return true;
    });
  }

  /** One `REPEATABLE READ, READ ONLY` transaction, its records read through cursors (bulk.ts). */
  snapshot<R>(work: (snapshot: Snapshot) => Promise<R>): Promise<R> {
    this.scope.assertOutside();
    return this.scope.run(() => this.driver.transaction((client) => work(snapshotOn(client)), { snapshot: true }));
  }

  /**
   * Under the seeding lock, so that no instance seeds meanwhile. The rows go out in multi-row INSERTs of a few
   * thousand, each waited for before more are taken (`BULK_ROWS`): memory stays bounded however many are loaded.
   * The plain indexes are made again after the rows are in (`withoutPlainIndexes`: bench/README.md, bench:data).
   */
  load<R>(work: (tx: Collections) => Promise<R>, options: LoadOptions = {}): Promise<R> {
    return this.underSeedLock(async (client) => {
      if (await holdsRecords(client)) {
        if (!options.replace) throw new StoreNotEmptyError();
        await emptyTables(client);
      }
      const batch = new WriteBatch(client, BULK_ROWS);
      const result = await withoutPlainIndexes(client, async () => {
        const loaded = await work(collectionsOn(batch));
        await batch.flush();
        return loaded;
      });
      await markSeeded(client);
      return result;
    });
  }

  private underSeedLock<R>(work: (client: SqlClient) => Promise<R>): Promise<R> {
    this.scope.assertOutside();
    return this.scope.run(() =>
      this.driver.transaction(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK.namespace, LOCK.seed]);
        return work(client);
      }),
    );
  }

  async close(): Promise<void> {
    await this.driver.close();
  }
}

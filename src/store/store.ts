import type { ActivityEntry } from '../model/activity.ts';
import type { Comment } from '../model/comment.ts';
import type { Milestone } from '../model/milestone.ts';
import type { Notification } from '../model/notification.ts';
import type { Project } from '../model/project.ts';
import type { Task } from '../model/task.ts';
import type { Team } from '../model/team.ts';
import type { TimeEntry } from '../model/time-entry.ts';
import type { TokenRecord } from '../model/token.ts';
import type { WebhookRecord } from '../model/webhook.ts';
import type { DeliveryLog } from './outbox.ts';
import type { ActivityLog, Collection, StreamLog } from './types.ts';

/**
 * Every collection of the service: what a transaction sees and works on. Each is a `Collection` (or the
 * `ActivityLog`) with the behaviour written in types.ts, the same on every store (test/store/contract.ts).
 */
export interface Collections {
  readonly projects: Collection<Project>;
  readonly tasks: Collection<Task>;
  readonly teams: Collection<Team>;
  readonly comments: Collection<Comment>;
  readonly milestones: Collection<Milestone>;
  readonly timeEntries: Collection<TimeEntry>;
  readonly webhooks: Collection<WebhookRecord>;
  readonly notifications: Collection<Notification>;
  readonly activity: ActivityLog<ActivityEntry>;
  /** API tokens, each with the hash of its value, never the value. */
  readonly tokens: Collection<TokenRecord>;
  /** The event stream's log of changes (written in transactions only). */
  readonly streamLog: StreamLog;
  /** The webhook outbox and delivery log (outbox.ts): a change adds its deliveries through its `tx`. */
  readonly deliveries: DeliveryLog;
}

/** What a store may want to know of a change before it runs it. */
export interface ChangeOptions {
  /**
   * The change deletes a record and what depends on it (a project's tasks, their comments and time entries, …),
   * reading many rows that concurrent creates add to: a store that runs transactions side by side may, after the
   * change has lost to such writes more than once, hold back the writes to those records while it runs again.
   */
  readonly cascade?: boolean;
}

/**
 * The collections, read outside any transaction, and the one way to change several of them together.
 * Implementations: memory/store.ts (the default) and sql/store.ts (PostgreSQL, server or embedded).
 */
export interface Store extends Collections {
  /** Where the records live: `memory`, `embedded` (PostgreSQL in a folder) or `postgres` (a server). */
  readonly kind: 'memory' | 'embedded' | 'postgres';
  /**
   * How many records a list asked without `limit` reads at a time: its answer is then written as it is read, one
   * part after the other, so that a list of millions of records is never held whole (the SQL stores). Absent: all
   * at once (memory, whose records are in the process already).
   */
  readonly listPart?: number;
  /** Resolves when the store can serve now; rejects (`StoreUnavailableError`) while its database is unreachable. */
  ping(): Promise<void>;
  /**
   * Runs `work` as if no other write ran at the same time: the checks it makes (a referenced record exists, a
   * version matches) still hold when it commits, and a multi-record change (a cascade delete) is never seen half
   * done by another write. A store may run transactions side by side and, when one conflicts with another, roll
   * it back and run `work` again (the SQL store): `work` must change nothing but through `tx`, or redo it.
   *
   * Atomic: when `work` throws (or rejects), none of its writes remain, and the error is passed on; otherwise all
   * of them are kept. Transactions do not nest: calling `transaction` while one is open in the same async context
   * (from inside `work`) rejects with `NestedTransactionError`; `work` uses the `tx` it is given. Writes go through
   * `tx`, never through the store's own collections, while a transaction is open.
   */
  transaction<R>(work: (tx: Collections) => Promise<R>, options?: ChangeOptions): Promise<R>;
  /** Releases what the store holds (connections, files); the store is not used afterwards. */
  close(): Promise<void>;
  /** What the store counts of its own work, read when the metrics are scraped; absent: nothing (memory). */
  stats?(): StoreStats;
  /**
   * Runs `work` over one consistent, read-only view of every record (an export): what it reads is the store as it
   * was at one instant, while writes go on beside it (the SQL stores: one `REPEATABLE READ, READ ONLY` transaction;
   * memory: the records as the last committed change left them). Resolves with `work`'s result once it is done.
   */
  snapshot<R>(work: (snapshot: Snapshot) => Promise<R>): Promise<R>;
  /**
   * Loads records in one transaction (an import): `work` writes them through `tx` (inserts and appends only; a
   * store may send them in bulk, bounded in memory). The store must hold no record: when it holds one, it rejects
   * with `StoreNotEmptyError` and changes nothing, unless `replace`, which empties it first in the same transaction
   * (every record, the webhook deliveries, the event stream's log: a client resuming it is told to start over).
   * All or nothing, as `transaction`; afterwards the store counts as seeded (a start does not load the samples).
   */
  load<R>(work: (tx: Collections) => Promise<R>, options?: LoadOptions): Promise<R>;
}

export interface LoadOptions {
  /** Empty a store that holds records first, rather than refusing it. */
  readonly replace?: boolean;
}

/** The kinds of record a snapshot reads, each with its record's type. */
export interface SnapshotRecords {
  teams: Team;
  projects: Project;
  milestones: Milestone;
  tasks: Task;
  comments: Comment;
  timeEntries: TimeEntry;
  webhooks: WebhookRecord;
  notifications: Notification;
  activity: ActivityEntry;
  tokens: TokenRecord;
}

/** A consistent read-only view of the store (`Store.snapshot`), valid while its `work` runs. */
export interface Snapshot {
  /**
   * Every record of one kind, a part at a time (so that millions are never held at once): in creation order; the
   * activity log oldest first (equal timestamps in the order appended), the order in which appending them again
   * keeps it.
   */
  read<K extends keyof SnapshotRecords>(kind: K): AsyncIterable<readonly SnapshotRecords[K][]>;
}

/** A SQL store's counters and gauges, cheap to read. */
export interface StoreStats {
  /** Transactions run again after a conflict with concurrent ones, since the store opened. */
  readonly conflictRetries: number;
  /** The request pool's connections (a server's pool; absent on the embedded store, which has one connection). */
  readonly pool?: PoolStats;
}

export interface PoolStats {
  readonly inUse: number;
  readonly idle: number;
  /** Requests waiting for a connection. */
  readonly waiting: number;
}

/** `load` found records in a store it was not asked to replace; nothing was changed. */
export class StoreNotEmptyError extends Error {
  constructor() {
    super('the store holds records already: load into an empty store, or replace what it holds');
    this.name = 'StoreNotEmptyError';
  }
}

/** `transaction` called inside a transaction. */
export class NestedTransactionError extends Error {
  constructor() {
    super('transactions do not nest: use the collections the open transaction was given');
    this.name = 'NestedTransactionError';
  }
}

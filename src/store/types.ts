import type { Filter, ListQuery, Page, Position, Search, SortKey } from '../model/list.ts';

/**
 * Storage interfaces. Services talk only to these; the in-memory implementation is the default and the SQL one
 * (PostgreSQL, server or embedded) replaces it without touching routes or services. Every method is async for
 * that reason. test/store/contract.ts holds every store to what is written here.
 */

export interface Entity {
  readonly id: string;
}

/**
 * A keyed set of records of one kind. Records are treated as immutable values: an update stores a new object.
 * A record read back is deep-equal to the one written (timestamps in `toISOString()` form, dates `YYYY-MM-DD`).
 */
export interface Collection<T extends Entity> {
  get(id: string): Promise<T | undefined>;
  /**
   * Records matching every condition, in creation order (the order of `insert`, oldest first). `replace` keeps a
   * record's place; a record deleted and inserted again goes last.
   */
  list(filter?: Filter<T>): Promise<T[]>;
  /** A page of records (`ListQuery`). */
  query(q: ListQuery<T>): Promise<Page<T>>;
  count(): Promise<number>;
  /** Adds a record; rejects when its id is taken. */
  insert(record: T): Promise<void>;
  /** Replaces the record with the same id; rejects when there is none. */
  replace(record: T): Promise<void>;
  /** Removes the record; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** Removes every record matching `filter` (as `list` matches); answers them as they were, in creation order. */
  deleteWhere(filter: Filter<T>): Promise<T[]>;
  /**
   * Writes the fields of `changes` into every record matching `filter`. With `updatedAt`, each one's `updatedAt`
   * becomes that instant, or 1 ms after its own when that is not earlier (always strictly later, as any update).
   * Records keep their place. Answers each record changed, before and after, in creation order.
   */
  updateWhere(filter: Filter<T>, changes: Partial<Omit<T, 'id'>>, updatedAt?: string): Promise<Updated<T>[]>;
}

/** A record before and after an update. */
export interface Updated<T> {
  readonly previous: T;
  readonly record: T;
}

/**
 * A query of the log: as a `ListQuery` (its filter may hold a `Range` on `timestamp`), newest first unless `sort`
 * says otherwise. Ties, in any order, are newest-appended first.
 */
export interface ActivityQuery {
  filter: Filter<ActivityRecord>;
  /** Inclusive bounds on `timestamp`, in epoch milliseconds. */
  since?: number;
  until?: number;
  /** At most this many entries; all when absent. */
  limit?: number;
  search?: Search<Record<string, unknown>>;
  sort?: readonly SortKey[];
  after?: Position;
  /** As `ListQuery.skipTotal`. */
  skipTotal?: boolean;
}

export interface ActivityRecord extends Entity {
  readonly timestamp: string;
  readonly action: string;
  readonly actor: string;
  readonly resourceType: string;
  readonly resourceId: string;
}

/**
 * The append-only activity log: no update, no delete; read newest first. The memory store keeps at most its
 * `ACTIVITY_LOG_MAX` newest entries; the SQL store keeps every entry.
 */
export interface ActivityLog<T extends ActivityRecord> {
  get(id: string): Promise<T | undefined>;
  append(entry: T): Promise<void>;
  /**
   * Matching entries newest first (equal timestamps: last appended first), and how many matched before `after`
   * and `limit`; `next` as a `Page`'s.
   */
  query(q: ActivityQuery): Promise<Page<T>>;
  count(): Promise<number>;
}

/** One event of the change feed as the event stream sends it: its type, the project it concerns, its JSON body. */
export interface StreamEntry {
  readonly type: string;
  readonly projectId: string | null;
  readonly body: string;
}

/**
 * The event stream's durable log (src/stream): written in the change's transaction, so an event is kept exactly
 * when its change commits. The SQL stores keep it in a table (sql/stream-log.ts); the memory store keeps none (the
 * stream's own ring, filled after each commit, is its replay window there).
 */
export interface StreamLog {
  append(entries: readonly StreamEntry[]): Promise<void>;
}

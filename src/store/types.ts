/**
 * Storage interfaces. Services talk only to these; the in-memory implementation is the default and the SQL one
 * (PostgreSQL, server or embedded) replaces it without touching routes or services. Every method is async for
 * that reason. test/store/contract.ts holds every store to what is written here.
 */

export interface Entity {
  readonly id: string;
}

/**
 * Exact-match conditions on a record's fields, all of which must hold:
 * - a value matches records whose field equals it (strings, numbers, booleans);
 * - `null` matches records whose field is null (an unassigned task, a project without a team);
 * - on an array field, a value matches records whose array holds it (a webhook subscribed to `task.created`);
 * - an `AnyOf` matches any one of its values, each as above (`new AnyOf('task.created', '*')`);
 * - a `Range` matches records whose field lies within its bounds (in `query` only; `list` and the set-based
 *   changes take exact conditions);
 * - an `AllOf` matches records that meet every one of its conditions, each as above (`date=…` and `date[gte]=…`);
 * - an undefined condition is ignored (a query parameter that was not sent);
 * - a condition on a field the records do not have matches nothing.
 */
export type Filter<T> = { readonly [K in keyof T]?: unknown };

/** A filter condition satisfied by any one of several values. */
export class AnyOf {
  readonly values: readonly unknown[];
  constructor(...values: unknown[]) {
    this.values = values;
  }

  /** Any one of `values`, however many (a spread of a long list would overflow the call stack). */
  static of(values: readonly unknown[]): AnyOf {
    const any = new AnyOf();
    (any as { values: readonly unknown[] }).values = values;
    return any;
  }
}

/** A filter condition satisfied when every one of several conditions (values, `AnyOf`, `Range`) is. */
export class AllOf {
  constructor(readonly conditions: readonly unknown[]) {}

  /** The conditions as one: the condition itself when there is one, else an `AllOf` of them all. */
  static of(conditions: readonly unknown[]): unknown {
    return conditions.length === 1 ? conditions[0] : new AllOf(conditions);
  }
}

/**
 * A condition on an ordered field (instants, `YYYY-MM-DD` dates, numbers): every bound given must hold. Instants
 * are given in `toISOString()` form, as records hold them, so that every kind of value compares as it is written.
 * A record whose field is null or missing is outside every range.
 */
export class Range {
  constructor(
    readonly bounds: { readonly gt?: Ordered; readonly gte?: Ordered; readonly lt?: Ordered; readonly lte?: Ordered },
  ) {}
}
export type Ordered = string | number;

/**
 * One key of a list's order. `progression`: the values of an enumeration in their order (`low`, `medium`, `high`);
 * other values by code point (strings, as PostgreSQL's `COLLATE "C"`) or as numbers. Records missing the field
 * (null) come after every other, whichever the direction.
 */
export interface SortKey {
  readonly field: string;
  readonly descending?: boolean;
  readonly progression?: readonly string[];
}

/**
 * Where a page ended: the values of the sort keys of its last record, then what each store orders ties by.
 * Opaque outside the store; a store refuses one it did not make with `PositionError`.
 */
export type Position = readonly unknown[];

/** A position a store cannot read (made by another store, or by hand). */
export class PositionError extends Error {
  constructor() {
    super('not a position of this list');
    this.name = 'PositionError';
  }
}

/** Text search: every term must occur, ignoring case, in at least one of the fields. */
export interface Search<T> {
  readonly terms: readonly string[];
  readonly fields: readonly (keyof T & string)[];
}

/**
 * A page of a list: the records matching `filter` (exact conditions, `AnyOf`, `Range`) and `search`, ordered by
 * `sort` then by creation order (ties keep it), after `after` (the `next` of the previous page, asked with the same
 * filter, search and sort), at most `limit` of them.
 */
export interface ListQuery<T> {
  readonly filter?: Filter<T>;
  readonly search?: Search<T>;
  readonly sort?: readonly SortKey[];
  readonly after?: Position;
  readonly limit?: number;
  /**
   * The caller does not need the total (the parts of an unpaged answer, read one after the other): the store may
   * leave it uncounted, and `total` is then the page's own length.
   */
  readonly skipTotal?: boolean;
}

/**
 * `total`: how many records match, whatever `after` and `limit` cut. `next`: where the following page starts, or
 * null when this page holds the last match. Keyset pagination: a record that matched throughout is seen exactly
 * once while its sort values do not change, whatever is added or removed meanwhile.
 */
export interface Page<T> {
  readonly items: T[];
  readonly total: number;
  readonly next: Position | null;
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

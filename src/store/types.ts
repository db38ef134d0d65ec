/**
 * Storage interfaces. Services talk only to these; the in-memory implementation is the default and a
 * database one can replace it without touching routes or services. Every method is async for that reason.
 */

export interface Entity {
  readonly id: string;
}

/**
 * Exact-match conditions on a record's fields. On an array field, a condition matches records whose array
 * holds the value. An `AnyOf` condition matches any of its values. Undefined conditions are ignored.
 */
export type Filter<T> = { readonly [K in keyof T]?: unknown };

/** A filter condition satisfied by any one of several values. */
export class AnyOf {
  readonly values: readonly unknown[];
  constructor(...values: unknown[]) {
    this.values = values;
  }
}

/** A keyed set of records of one kind. Records are treated as immutable values: an update stores a new object. */
export interface Collection<T extends Entity> {
  get(id: string): Promise<T | undefined>;
  /** Records matching every condition, oldest first (insertion order). */
  list(filter?: Filter<T>): Promise<T[]>;
  count(): Promise<number>;
  insert(record: T): Promise<void>;
  /** Replaces the record with the same id; the record must exist. */
  replace(record: T): Promise<void>;
  /** Removes the record; false when there was none. */
  delete(id: string): Promise<boolean>;
}

export interface ActivityQuery {
  filter: Filter<ActivityRecord>;
  /** Inclusive bounds on `timestamp`, in epoch milliseconds. */
  since?: number;
  until?: number;
  /** At most this many entries; all when absent. */
  limit?: number;
}

export interface ActivityRecord extends Entity {
  readonly timestamp: string;
  readonly action: string;
  readonly actor: string;
  readonly resourceType: string;
  readonly resourceId: string;
}

/** The append-only activity log: no update, no delete; read newest first. */
export interface ActivityLog<T extends ActivityRecord> {
  get(id: string): Promise<T | undefined>;
  append(entry: T): Promise<void>;
  /** Matching entries newest first (equal timestamps: last appended first), and how many matched before `limit`. */
  query(q: ActivityQuery): Promise<{ items: T[]; total: number }>;
  count(): Promise<number>;
}

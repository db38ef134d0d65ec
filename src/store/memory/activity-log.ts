import type { ActivityLog, ActivityQuery, ActivityRecord } from '../types.ts';

const INDEXED = ['action', 'actor', 'resourceType', 'resourceId'] as const;

/** The entries under one value of a field, oldest first: the entry itself while it is the only one. */
type Bucket<T> = T | T[];

/**
 * The activity log in memory: one array kept sorted by (timestamp, append order), plus the same order per value
 * of each filterable field. Appends are O(1) when time moves forward (the usual case, since the service sets the
 * timestamp). A query binary-searches the `since`/`until` bounds on the smallest matching array and walks it from
 * the newest end, so `limit=50` costs O(log n + 50) without filters and O(log n + matches) with.
 *
 * The arrays hold the entries themselves, a value with one entry (most resource ids) holds it without an array,
 * and an entry's text is stored flat: the log is the largest thing the memory store keeps.
 *
 * At most `max` entries are kept: past it, the oldest is dropped. A dropped entry leaves `byId` at once and the
 * arrays later, in batches (`trim`), so a drop costs O(1) amortized; until then the dropped entries are the oldest
 * of every array (a prefix), which queries skip.
 */
export class MemoryActivityLog<T extends ActivityRecord> implements ActivityLog<T> {
  private readonly all: T[] = [];
  private readonly byId = new Map<string, T>();
  private readonly indexes = new Map<string, Map<string, Bucket<T>>>(INDEXED.map((f) => [f, new Map()]));
  /** How many entries at the start of `all` are dropped but still in the arrays. */
  private dropped = 0;
  /** While true, dropped entries stay in the arrays, so that a rollback can bring them back (`undrop`). */
  private held = false;
  readonly max: number;

  constructor(options: { max?: number } = {}) {
    this.max = options.max ?? DEFAULT_MAX;
    if (!(this.max >= 1)) throw new Error(`activity log max must be at least 1, not ${this.max}`);
  }

  async get(id: string): Promise<T | undefined> {
    return this.byId.get(id);
  }

  async count(): Promise<number> {
    return this.byId.size;
  }

  async append(entry: T): Promise<void> {
    this.add(entry);
  }

  /**
   * Appends `entry`; answers what was dropped to stay within `max` (`entry` itself when it is older than every
   * entry kept), for a rollback to undo.
   */
  add(entry: T): T | undefined {
    if (this.byId.has(entry.id)) throw new Error(`duplicate id ${entry.id}`);
    if (this.byId.size >= this.max && this.olderThanKept(entry)) return entry;
    flatten(entry);
    this.byId.set(entry.id, entry);
    insertSorted(this.all, entry);
    for (const field of INDEXED) {
      const index = this.indexes.get(field)!;
      const value = entry[field];
      const bucket = index.get(value);
      if (bucket === undefined) index.set(value, entry);
      else if (Array.isArray(bucket)) insertSorted(bucket, entry);
      else index.set(value, insertSorted([bucket], entry));
    }
    if (this.byId.size <= this.max) return undefined;
    const oldest = this.all[this.dropped++]!;
    this.byId.delete(oldest.id);
    if (!this.held && this.dropped >= Math.max(TRIM_BATCH, this.byId.size >> 3)) this.trim();
    return oldest;
  }

  /** Takes back an entry `add` appended (a rollback), and brings back the entry it dropped if it can. */
  remove(entry: T, dropped: T | undefined): void {
    if (dropped === entry) return;
    if (this.byId.get(entry.id) !== entry) throw new Error(`cannot remove ${entry.id}`);
    this.byId.delete(entry.id);
    removeFrom(this.all, entry);
    for (const field of INDEXED) {
      const index = this.indexes.get(field)!;
      const value = entry[field];
      const bucket = index.get(value)!;
      if (!Array.isArray(bucket)) index.delete(value);
      else if (removeFrom(bucket, entry).length === 0) index.delete(value);
    }
    // The dropped entry comes back while it is the last one dropped (an append outside the transaction may have
    // dropped another since: then it stays dropped, the log being full anyway).
    if (dropped && this.all[this.dropped - 1] === dropped) {
      this.dropped--;
      this.byId.set(dropped.id, dropped);
    }
  }

  /** Keeps dropped entries in place while a transaction that may roll back is open, or releases them. */
  hold(held: boolean): void {
    this.held = held;
    if (!held && this.dropped >= Math.max(TRIM_BATCH, this.byId.size >> 3)) this.trim();
  }

  async query(q: ActivityQuery): Promise<{ items: T[]; total: number }> {
    let source = this.all;
    const conditions: [string, unknown, T[]][] = [];
    for (const [field, value] of Object.entries(q.filter)) {
      if (value === undefined) continue;
      const bucket = this.indexes.get(field)?.get(value as string);
      if (bucket === undefined) return { items: [], total: 0 };
      const list = Array.isArray(bucket) ? bucket : [bucket];
      conditions.push([field, value, list]);
      if (list.length < source.length) source = list;
    }
    const kept = this.firstKept(source);
    const lo = Math.max(kept, q.since === undefined ? 0 : lowerBound(source, q.since));
    const hi = q.until === undefined ? source.length : upperBound(source, q.until);
    const limit = q.limit ?? Infinity;
    const items: T[] = [];
    const others = conditions.filter(([, , list]) => list !== source);

    if (others.length === 0) {
      // Every condition is satisfied by the source array itself: the total is the width of the window.
      for (let i = hi - 1; i >= lo && items.length < limit; i--) items.push(source[i]!);
      return { items, total: Math.max(0, hi - lo) };
    }
    let total = 0;
    for (let i = hi - 1; i >= lo; i--) {
      const entry = source[i]! as unknown as Record<string, unknown>;
      if (others.every(([f, v]) => entry[f] === v)) {
        total++;
        if (items.length < limit) items.push(source[i]!);
      }
    }
    return { items, total };
  }

  /** Whether `entry` would sort before the oldest entry kept. */
  private olderThanKept(entry: T): boolean {
    const oldest = this.all[this.dropped];
    return oldest !== undefined && !notLater(oldest, entry);
  }

  /** Index of the first entry of `list` not dropped: dropped entries are the oldest, a prefix of every array. */
  private firstKept(list: readonly T[]): number {
    if (this.dropped === 0) return 0;
    if (list === this.all) return this.dropped;
    return this.firstKeptIn(list);
  }

  /** Removes the dropped entries from the arrays. */
  private trim(): void {
    const gone = this.all.splice(0, this.dropped);
    this.dropped = 0;
    for (const field of INDEXED) {
      const index = this.indexes.get(field)!;
      for (const value of new Set(gone.map((e) => e[field]))) {
        const bucket = index.get(value);
        if (bucket === undefined) continue;
        if (!Array.isArray(bucket)) {
          if (this.byId.get(bucket.id) !== bucket) index.delete(value);
          continue;
        }
        const kept = this.firstKeptIn(bucket);
        if (kept === bucket.length) index.delete(value);
        else if (kept > 0) bucket.splice(0, kept);
      }
    }
  }

  /** Binary search on whether an entry is still kept (in `byId`). */
  private firstKeptIn(list: readonly T[]): number {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.byId.get(list[mid]!.id) === list[mid]) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** The default bound on the entries kept in memory (`ACTIVITY_LOG_MAX`). */
export const DEFAULT_MAX = 1_000_000;
/** Dropped entries leave the arrays once there are this many, or an eighth of those kept if more. */
const TRIM_BATCH = 1024;

/** Removes `entry` from a sorted list: the last one in the usual case. */
function removeFrom<T extends ActivityRecord>(list: T[], entry: T): T[] {
  if (list[list.length - 1] === entry) {
    list.pop();
    return list;
  }
  const at = list.lastIndexOf(entry);
  if (at >= 0) list.splice(at, 1);
  return list;
}

function timeOf(entry: ActivityRecord): number {
  return Date.parse(entry.timestamp);
}

/**
 * Whether `a` is not later than `b`. Timestamps in the service's own form (`toISOString`: same length, UTC)
 * compare as text, without parsing; any other form is parsed.
 */
function notLater(a: ActivityRecord, b: ActivityRecord): boolean {
  const x = a.timestamp;
  const y = b.timestamp;
  if (x.length === 24 && y.length === 24 && x.endsWith('Z') && y.endsWith('Z')) return x <= y;
  return timeOf(a) <= timeOf(b);
}

/** Appends when `entry` is the newest (the common case); otherwise inserts it after the entries of its time. */
function insertSorted<T extends ActivityRecord>(list: T[], entry: T): T[] {
  const last = list[list.length - 1];
  if (!last || notLater(last, entry)) {
    list.push(entry);
    return list;
  }
  list.splice(upperBound(list, timeOf(entry)), 0, entry);
  return list;
}

/** First index whose time is >= t. */
function lowerBound(list: readonly ActivityRecord[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timeOf(list[mid]!) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose time is > t. */
function upperBound(list: readonly ActivityRecord[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timeOf(list[mid]!) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Makes V8 hold each string field of an entry as one piece. Text built by concatenation (a summary such as
 * `Created task '…'`) is a tree of pieces until read; reading a character flattens it in place.
 */
function flatten(entry: object): void {
  for (const value of Object.values(entry)) if (typeof value === 'string') value.charCodeAt(0);
}

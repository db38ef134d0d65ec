import { type ActivityLog, type ActivityQuery, type ActivityRecord } from '../types.ts';
import { AllOf, AnyOf, Range, type Page, type Search } from '../../model/list.ts';
import { isStoredInstant } from '../../model/position.ts';
import { compareKeys, matchesField, readPosition, searchTest, valuesOf } from './order.ts';

const EMPTY_PAGE: Page<never> = Object.freeze({ items: [], total: 0, next: null }) as Page<never>;

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

  /** Every entry kept now, oldest first (equal timestamps in the order appended): a snapshot of the log. */
  entries(): T[] {
    return this.all.slice(this.dropped);
  }

  /** Removes every entry; answers them oldest first, for a rollback to append again. */
  clear(): T[] {
    const gone = this.entries();
    for (let i = gone.length - 1; i >= 0; i--) this.remove(gone[i]!, undefined);
    this.trim();
    return gone;
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

  /**
   * Newest first by default: the window of `since`/`until` (and a `timestamp` range) is binary-searched on the
   * smallest matching array and walked from the newest end, so `limit=50` costs O(log n + 50) without filters, at
   * any depth. With `sort`, `q`, `AnyOf` or other ranges, the window's matches are collected and ordered first.
   * A position is the sort values, then the entry's timestamp and id (its place among entries of its time).
   */
  async query(q: ActivityQuery): Promise<Page<T>> {
    const sort = q.sort ?? [];
    const after = q.after && readPosition(q.after, sort, 2, ([t, id]) => isStoredInstant(t) && typeof id === 'string');
    let since = q.since ?? -Infinity;
    let until = q.until ?? Infinity;
    let source = this.all;
    const checks: [string, unknown][] = [];
    const buckets: [string, T[]][] = [];
    for (const [field, value] of Object.entries(q.filter)) {
      if (value === undefined) continue;
      if (value instanceof Range && field === 'timestamp') {
        const { gt, gte, lt, lte } = value.bounds;
        if (gte !== undefined) since = Math.max(since, Date.parse(String(gte)));
        if (gt !== undefined) since = Math.max(since, Date.parse(String(gt)) + 1);
        if (lte !== undefined) until = Math.min(until, Date.parse(String(lte)));
        if (lt !== undefined) until = Math.min(until, Date.parse(String(lt)) - 1);
        continue;
      }
      const index = this.indexes.get(field);
      if (!index || value instanceof AnyOf || value instanceof AllOf || value instanceof Range) {
        checks.push([field, value]);
        continue;
      }
      const bucket = index.get(value as string);
      if (bucket === undefined) return EMPTY_PAGE;
      const list = Array.isArray(bucket) ? bucket : [bucket];
      buckets.push([field, list]);
      if (list.length < source.length) source = list;
    }
    for (const [field, list] of buckets)
      if (list !== source) checks.push([field, (list[0] as Record<string, unknown>)[field]]);
    const kept = this.firstKept(source);
    const lo = Math.max(kept, since === -Infinity ? 0 : lowerBound(source, since));
    const hi = until === Infinity ? source.length : upperBound(source, until);
    const limit = q.limit ?? Infinity;
    const search = searchTest(q.search as Search<T> | undefined);
    const matches = (entry: T) =>
      checks.every(([f, v]) => matchesField((entry as Record<string, unknown>)[f], v)) && (!search || search(entry));
    // Entries of the page are those below `top` in `source` (older than the position's entry).
    const top = after ? Math.min(hi, Math.ceil(this.placeOf(source, after.tie))) : hi;
    const items: T[] = [];

    if (sort.length === 0 && checks.length === 0 && !search) {
      let i = top - 1;
      for (; i >= lo && items.length < limit; i--) items.push(source[i]!);
      const last = items[items.length - 1];
      return { items, total: Math.max(0, hi - lo), next: last && i >= lo ? [last.timestamp, last.id] : null };
    }
    if (sort.length === 0) {
      let total = 0;
      let more = false;
      for (let i = hi - 1; i >= lo; i--) {
        if (!matches(source[i]!)) continue;
        total++;
        if (i >= top) continue;
        if (items.length < limit) items.push(source[i]!);
        else more = true;
      }
      const last = items[items.length - 1];
      return { items, total, next: last && more ? [last.timestamp, last.id] : null };
    }

    const found: { entry: T; place: number; values: unknown[] }[] = [];
    for (let i = hi - 1; i >= lo; i--) {
      const entry = source[i]!;
      if (matches(entry)) found.push({ entry, place: i, values: valuesOf(entry, sort) });
    }
    found.sort((a, b) => compareKeys(a.values, b.values, sort)); // stable: ties stay newest first
    let start = 0;
    if (after) {
      const place = this.placeOf(source, after.tie);
      let end = found.length;
      while (start < end) {
        const mid = (start + end) >>> 1;
        const c = compareKeys(found[mid]!.values, after.values, sort) || place - found[mid]!.place;
        if (c > 0) end = mid;
        else start = mid + 1;
      }
    }
    const end = Math.min(found.length, start + limit);
    for (let i = start; i < end; i++) items.push(found[i]!.entry);
    const last = found[end - 1];
    const next = last && end < found.length ? [...last.values, last.entry.timestamp, last.entry.id] : null;
    return { items, total: found.length, next };
  }

  /**
   * Where the entry of a position sits in `source`: its index, or, when it is no longer kept, half a place before
   * the entries of its time (it was older than them).
   */
  private placeOf(source: readonly T[], [timestamp, id]: readonly unknown[]): number {
    const t = Date.parse(timestamp as string);
    const start = lowerBound(source, t);
    const entry = this.byId.get(id as string);
    if (entry) {
      for (let i = start; i < source.length && timeOf(source[i]!) === t; i++) if (source[i] === entry) return i;
    }
    return start - 0.5;
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

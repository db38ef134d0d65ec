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
 * Entries are kept for the life of the store: the arrays hold the entries themselves, a value with one entry
 * (most resource ids) holds it without an array, and an entry's text is stored flat.
 */
export class MemoryActivityLog<T extends ActivityRecord> implements ActivityLog<T> {
  private readonly all: T[] = [];
  private readonly byId = new Map<string, T>();
  private readonly indexes = new Map<string, Map<string, Bucket<T>>>(INDEXED.map((f) => [f, new Map()]));

  async get(id: string): Promise<T | undefined> {
    return this.byId.get(id);
  }

  async count(): Promise<number> {
    return this.all.length;
  }

  async append(entry: T): Promise<void> {
    if (this.byId.has(entry.id)) throw new Error(`duplicate id ${entry.id}`);
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
    const lo = q.since === undefined ? 0 : lowerBound(source, q.since);
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

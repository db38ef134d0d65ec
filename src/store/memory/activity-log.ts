import type { ActivityLog, ActivityQuery, ActivityRecord } from '../types.ts';

interface Slot<T> {
  entry: T;
  time: number;
  seq: number;
}

const INDEXED = ['action', 'actor', 'resourceType', 'resourceId'] as const;

/**
 * The activity log in memory: one array kept sorted by (timestamp, append order), plus one sorted array per
 * value of each filterable field. Appends are O(1) when time moves forward (the usual case, since the service
 * sets the timestamp). A query binary-searches the `since`/`until` bounds on the smallest matching array and
 * walks it from the newest end, so `limit=50` costs O(log n + 50) without filters and O(log n + matches) with.
 */
export class MemoryActivityLog<T extends ActivityRecord> implements ActivityLog<T> {
  private readonly all: Slot<T>[] = [];
  private readonly byId = new Map<string, Slot<T>>();
  private readonly indexes = new Map<string, Map<string, Slot<T>[]>>(INDEXED.map((f) => [f, new Map()]));
  private nextSeq = 0;

  async get(id: string): Promise<T | undefined> {
    return this.byId.get(id)?.entry;
  }

  async count(): Promise<number> {
    return this.all.length;
  }

  async append(entry: T): Promise<void> {
    if (this.byId.has(entry.id)) throw new Error(`duplicate id ${entry.id}`);
    const slot: Slot<T> = { entry, time: Date.parse(entry.timestamp), seq: this.nextSeq++ };
    this.byId.set(entry.id, slot);
    insertSorted(this.all, slot);
    for (const field of INDEXED) {
      const index = this.indexes.get(field)!;
      const value = entry[field];
      const list = index.get(value);
      // A new value gets an array of exactly one: most resource ids have one or two entries, and an empty
      // array grown by a push reserves 17 slots (about 150 bytes per record at a million records).
      if (list) insertSorted(list, slot);
      else index.set(value, [slot]);
    }
  }

  async query(q: ActivityQuery): Promise<{ items: T[]; total: number }> {
    let source = this.all;
    const conditions: [string, unknown][] = [];
    for (const [field, value] of Object.entries(q.filter)) {
      if (value === undefined) continue;
      const list = this.indexes.get(field)?.get(value as string);
      if (!list) return { items: [], total: 0 };
      conditions.push([field, value]);
      if (list.length < source.length) source = list;
    }
    const lo = q.since === undefined ? 0 : lowerBound(source, q.since);
    const hi = q.until === undefined ? source.length : upperBound(source, q.until);
    const limit = q.limit ?? Infinity;
    const items: T[] = [];
    const others = conditions.filter(([f, v]) => source !== this.indexes.get(f)?.get(v as string));

    if (others.length === 0) {
      // Every condition is satisfied by the source array itself: the total is the width of the window.
      for (let i = hi - 1; i >= lo && items.length < limit; i--) items.push(source[i]!.entry);
      return { items, total: Math.max(0, hi - lo) };
    }
    let total = 0;
    for (let i = hi - 1; i >= lo; i--) {
      const entry = source[i]!.entry as unknown as Record<string, unknown>;
      if (others.every(([f, v]) => entry[f] === v)) {
        total++;
        if (items.length < limit) items.push(source[i]!.entry);
      }
    }
    return { items, total };
  }
}

function before<T>(a: Slot<T>, b: Slot<T>): boolean {
  return a.time < b.time || (a.time === b.time && a.seq < b.seq);
}

/** Appends when `slot` is the newest (the common case); otherwise inserts at its sorted position. */
function insertSorted<T>(list: Slot<T>[], slot: Slot<T>): void {
  const last = list[list.length - 1];
  if (!last || before(last, slot)) {
    list.push(slot);
    return;
  }
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(list[mid]!, slot)) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, slot);
}

/** First index whose time is >= t. */
function lowerBound<T>(list: Slot<T>[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.time < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose time is > t. */
function upperBound<T>(list: Slot<T>[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.time <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

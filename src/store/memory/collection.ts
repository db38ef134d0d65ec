import type { Collection, Entity, Updated } from '../types.ts';
import { AllOf, AnyOf, Range, type Filter, type ListQuery, type Page, type Search } from '../../model/list.ts';
import { compareKeys, fold, matchesField, readPosition, searchTest, valuesOf } from './order.ts';

/**
 * A collection held in a Map, with a secondary index per filterable field so that a filtered list costs
 * O(matches) rather than a scan: the smallest matching index bucket is read and the other conditions are
 * checked on its members only. Array-valued fields are indexed by each of their elements.
 *
 * A search over the fields the collection was given as `searched` reads, for each record, one text kept beside it:
 * those fields joined by `\n` (which no term holds: terms are split on whitespace) and folded (`fold`), so that a
 * term is one `indexOf` per record rather than a case-insensitive test of each field.
 */
export class MemoryCollection<T extends Entity> implements Collection<T> {
  /**
   * The records by insertion rank (`undefined` where one was deleted), and each id's rank: the rank orders
   * filtered lists as unfiltered ones are (insertion order). One Map and one array, rather than a Map of records
   * and another of ranks, so each record costs one Map entry.
   */
  private readonly slots: (T | undefined)[] = [];
  private readonly ranks = new Map<string, number>();
  /**
   * The creation number of the record in each slot, kept after a delete (for `restore`): increasing along the
   * slots, and unlike a rank never renumbered, so a page's position stays valid however the slots move.
   */
  private readonly seqs: number[] = [];
  private nextSeq = 0;
  private deleted = 0;
  /** While true, deletions leave their gaps (no compaction), so ranks read by `rankOf` stay valid for `restore`. */
  private held = false;
  private readonly indexes = new Map<keyof T, Map<unknown, Set<string>>>();
  /** The searched text of the record in each slot (`undefined` where none is), when the collection keeps them. */
  private readonly texts: (string | undefined)[] | undefined;

  constructor(
    indexed: readonly (keyof T)[] = [],
    private readonly searched: readonly (keyof T & string)[] = [],
  ) {
    for (const field of indexed) this.indexes.set(field, new Map());
    this.texts = searched.length > 0 ? [] : undefined;
  }

  async get(id: string): Promise<T | undefined> {
    return this.record(id);
  }

  async count(): Promise<number> {
    return this.ranks.size;
  }

  /** Every record now, in insertion order: a snapshot, since a write stores a new object rather than change one. */
  records(): T[] {
    return this.slots.filter((r) => r !== undefined);
  }

  async list(filter: Filter<T> = {}): Promise<T[]> {
    const conditions = Object.entries(filter).filter(([, v]) => v !== undefined) as [keyof T, unknown][];
    if (conditions.length === 0) return this.slots.filter((r) => r !== undefined);

    // Start from the smallest index bucket among the indexed conditions.
    let candidates: Iterable<string> | undefined;
    let smallest = Infinity;
    for (const [field, value] of conditions) {
      const index = this.indexes.get(field);
      if (!index || !indexable(value)) continue;
      const bucket = lookup(index, value);
      if (bucket.size === 0) return [];
      if (bucket.size < smallest) {
        smallest = bucket.size;
        candidates = bucket;
      }
    }
    const matches: T[] = [];
    if (candidates) {
      for (const id of candidates) {
        const record = this.record(id)!;
        if (conditions.every(([f, v]) => matchesField(record[f], v))) matches.push(record);
      }
      return this.inInsertionOrder(matches);
    }
    // No indexed condition: a scan, in insertion order.
    for (const record of this.slots) {
      if (record !== undefined && conditions.every(([f, v]) => matchesField(record[f], v))) matches.push(record);
    }
    return matches;
  }

  /**
   * A page. Unsorted and unfiltered: read from the slot after the position, O(log n + limit) at any depth.
   * Otherwise the matches (from the indexes when an exact condition allows) are ordered, and the page cut after
   * the position by a binary search.
   */
  async query(q: ListQuery<T>): Promise<Page<T>> {
    const sort = q.sort ?? [];
    const limit = q.limit ?? Infinity;
    const after =
      q.after && readPosition(q.after, sort, 1, ([seq]) => Number.isSafeInteger(seq) && (seq as number) >= 0);
    const conditions = Object.entries(q.filter ?? {}).filter(([, v]) => v !== undefined);
    const search = this.searchOf(q.search);
    if (!after && q.limit === undefined && !search && sort.length === 0 && conditions.every(([, v]) => isExact(v))) {
      // Every match in creation order: the collection's `list`, whose indexes serve exact conditions.
      const items = await this.list(q.filter);
      return { items, total: items.length, next: null };
    }
    if (conditions.length === 0 && !search && sort.length === 0) {
      const slots = this.slots;
      let i = after ? this.firstSlotAfter(after.tie[0] as number) : 0;
      const items: T[] = [];
      let last = -1;
      for (; i < slots.length && items.length < limit; i++) {
        if (slots[i] !== undefined) {
          items.push(slots[i]!);
          last = i;
        }
      }
      while (i < slots.length && slots[i] === undefined) i++;
      return { items, total: this.ranks.size, next: i < slots.length ? [this.seqs[last]!] : null };
    }

    const exact = Object.fromEntries(conditions.filter(([, v]) => !(v instanceof Range))) as Filter<T>;
    const ranges = conditions.filter(([, v]) => v instanceof Range) as [keyof T, Range][];
    /** Whether the record in slot `rank` meets the ranges and the search. */
    const rest = (r: T, rank: number) =>
      (!search || search(r, rank)) && ranges.every(([f, v]) => matchesField(r[f], v));
    let matches: T[];
    if (Object.keys(exact).length > 0) {
      matches = await this.list(exact);
      if (ranges.length > 0 || search) matches = matches.filter((r) => rest(r, this.ranks.get(r.id)!));
    } else {
      // One pass over the slots: no copy of every record before the conditions.
      matches = [];
      const slots = this.slots;
      for (let i = 0; i < slots.length; i++) if (slots[i] !== undefined && rest(slots[i]!, i)) matches.push(slots[i]!);
    }
    const seqOf = (record: T) => this.seqs[this.ranks.get(record.id)!]!;
    let keys: unknown[][] | undefined;
    if (sort.length > 0) {
      const decorated = matches.map((record) => ({ record, values: valuesOf(record, sort) }));
      decorated.sort((a, b) => compareKeys(a.values, b.values, sort)); // stable: ties keep creation order
      matches = decorated.map((d) => d.record);
      keys = decorated.map((d) => d.values);
    }
    const valuesAt = (i: number) => keys?.[i] ?? [];
    let start = 0;
    if (after) {
      let hi = matches.length;
      while (start < hi) {
        const mid = (start + hi) >>> 1;
        const c = compareKeys(valuesAt(mid), after.values, sort) || seqOf(matches[mid]!) - (after.tie[0] as number);
        if (c > 0) hi = mid;
        else start = mid + 1;
      }
    }
    const end = Math.min(matches.length, start + limit);
    const items = matches.slice(start, end);
    const next = end < matches.length ? [...valuesAt(end - 1), seqOf(matches[end - 1]!)] : null;
    return { items, total: matches.length, next };
  }

  /**
   * The test of a search, given a record and its slot: by the kept texts when the search is over the fields they
   * join (and its terms are neither empty nor hold the separator), else field by field (`searchTest`).
   */
  private searchOf(search: Search<T> | undefined): ((record: T, rank: number) => boolean) | undefined {
    if (!search || search.terms.length === 0) return undefined;
    const texts = this.texts;
    const kept =
      texts !== undefined &&
      search.fields.every((f) => this.searched.includes(f)) &&
      this.searched.every((f) => search.fields.includes(f)) &&
      search.terms.every((t) => t !== '' && !t.includes(SEPARATOR));
    if (!kept) {
      const test = searchTest(search)!;
      return (record) => test(record);
    }
    const terms = search.terms.map(fold);
    return (_record, rank) => {
      const text = texts[rank]!;
      for (const term of terms) if (text.indexOf(term) < 0) return false;
      return true;
    };
  }

  /**
   * The record's searched fields that hold text, joined and folded. Empty ones are left out: no term is empty or
   * holds the separator, so none matches them or the separators around them.
   */
  private textOf(record: T): string {
    let text: string | undefined;
    for (const field of this.searched) {
      const value = record[field];
      if (typeof value === 'string' && value !== '') text = text === undefined ? value : text + SEPARATOR + value;
    }
    return text === undefined ? '' : fold(text);
  }

  /** The first slot whose creation number is above `seq`. */
  private firstSlotAfter(seq: number): number {
    let lo = 0;
    let hi = this.seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.seqs[mid]! <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  async insert(given: T): Promise<void> {
    if (this.ranks.has(given.id)) throw new Error(`duplicate id ${given.id}`);
    const record = compact(given);
    this.ranks.set(record.id, this.slots.length);
    this.slots.push(record);
    this.seqs.push(this.nextSeq++);
    this.texts?.push(this.textOf(record));
    this.indexAdd(record);
  }

  async replace(given: T): Promise<void> {
    const record = compact(given);
    const rank = this.ranks.get(record.id);
    const previous = rank === undefined ? undefined : this.slots[rank];
    if (rank === undefined || !previous) throw new Error(`no record ${record.id}`);
    // Only the fields that changed move between buckets: the others keep their place (and their bucket's order).
    const changed = [...this.indexes.keys()].filter((field) => previous[field] !== record[field]);
    this.indexRemove(previous, changed);
    this.slots[rank] = record;
    if (this.texts && this.searched.some((field) => previous[field] !== record[field])) {
      this.texts[rank] = this.textOf(record);
    }
    this.indexAdd(record, changed);
  }

  async delete(id: string): Promise<boolean> {
    const rank = this.ranks.get(id);
    const previous = rank === undefined ? undefined : this.slots[rank];
    if (rank === undefined || !previous) return false;
    this.indexRemove(previous);
    this.ranks.delete(id);
    this.slots[rank] = undefined;
    if (this.texts) this.texts[rank] = undefined;
    this.deleted++;
    if (!this.held) this.compactIfSparse();
    return true;
  }

  async deleteWhere(filter: Filter<T>): Promise<T[]> {
    const gone = await this.list(filter);
    for (const record of gone) await this.delete(record.id);
    return gone;
  }

  async updateWhere(filter: Filter<T>, changes: Partial<Omit<T, 'id'>>, updatedAt?: string): Promise<Updated<T>[]> {
    const updated: Updated<T>[] = [];
    for (const previous of await this.list(filter)) {
      const record = { ...previous, ...changes } as T;
      if (updatedAt !== undefined) (record as { updatedAt?: string }).updatedAt = later(updatedAt, previous);
      await this.replace(record);
      updated.push({ previous, record: this.record(record.id)! });
    }
    return updated;
  }

  /** The record's place in the insertion order, for `restore`. */
  rankOf(id: string): number | undefined {
    return this.ranks.get(id);
  }

  /** Puts a deleted record back in the place it had (its `rankOf` before the delete), as a rollback does. */
  restore(record: T, rank: number): void {
    if (this.ranks.has(record.id) || this.slots[rank] !== undefined) throw new Error(`cannot restore ${record.id}`);
    this.slots[rank] = record;
    if (this.texts) this.texts[rank] = this.textOf(record);
    this.ranks.set(record.id, rank);
    this.deleted--;
    this.indexAdd(record);
  }

  /** Holds the ranks fixed (a transaction that may roll back is open) or releases them. */
  hold(held: boolean): void {
    this.held = held;
    if (!held) this.compactIfSparse();
  }

  private compactIfSparse(): void {
    if (this.deleted > 64 && this.deleted * 2 > this.slots.length) this.closeGaps();
  }

  private record(id: string): T | undefined {
    const rank = this.ranks.get(id);
    return rank === undefined ? undefined : this.slots[rank];
  }

  /** Closes the gaps deletions left once they are half the slots (amortized O(1)); ranks keep their order. */
  private closeGaps(): void {
    const texts = this.texts;
    const live = this.slots.flatMap((r, i) => (r === undefined ? [] : [[r, this.seqs[i]!, texts?.[i]] as const]));
    this.slots.length = 0;
    this.seqs.length = 0;
    if (texts) texts.length = 0;
    for (const [record, seq, text] of live) {
      this.ranks.set(record.id, this.slots.length);
      this.slots.push(record);
      this.seqs.push(seq);
      texts?.push(text);
    }
    this.deleted = 0;
  }

  /**
   * Matches in insertion order. A bucket holds its ids in the order they entered it, which is insertion order
   * unless a record moved in by an update: sorted only then, on sequence numbers read once per record.
   */
  private inInsertionOrder(matches: T[]): T[] {
    const seqs = matches.map((r) => this.ranks.get(r.id)!);
    for (let i = 1; i < seqs.length; i++) {
      if (seqs[i - 1]! > seqs[i]!) {
        const order = seqs.map((_, j) => j).sort((a, b) => seqs[a]! - seqs[b]!);
        return order.map((j) => matches[j]!);
      }
    }
    return matches;
  }

  private indexAdd(record: T, fields: Iterable<keyof T> = this.indexes.keys()): void {
    for (const field of fields) {
      const index = this.indexes.get(field)!;
      for (const value of keysOf(record[field])) {
        if (value === null || value === undefined) continue;
        let bucket = index.get(value);
        if (!bucket) index.set(value, (bucket = new Set()));
        bucket.add(record.id);
      }
    }
  }

  private indexRemove(record: T, fields: Iterable<keyof T> = this.indexes.keys()): void {
    for (const field of fields) {
      const index = this.indexes.get(field)!;
      for (const value of keysOf(record[field])) {
        if (value === null || value === undefined) continue;
        const bucket = index.get(value);
        if (!bucket) continue;
        bucket.delete(record.id);
        if (bucket.size === 0) index.delete(value); // no empty buckets left behind by churn
      }
    }
  }
}

/** `at`, or 1 ms after the record's own `updatedAt` when that is not earlier. */
function later(at: string, record: object): string {
  const own = Date.parse(String((record as { updatedAt?: unknown }).updatedAt));
  const ms = Date.parse(at);
  return Number.isNaN(own) || ms > own ? at : new Date(own + 1).toISOString();
}

const EMPTY: ReadonlySet<string> = new Set();

/** Between the searched fields of a kept text: whitespace, which `q`'s terms never hold. */
const SEPARATOR = '\n';

/**
 * Null is not indexed: no list asks for it (an unassigned task, a project without a team), and its bucket would
 * hold a large share of the records (every unassigned task). A condition on null is
 * checked on the candidates of the other conditions, or by a scan.
 */
function indexable(value: unknown): boolean {
  if (value instanceof AnyOf) return value.values.every(indexable);
  return value !== null && value !== undefined && !(value instanceof Range) && !(value instanceof AllOf);
}

/** Whether a condition is one `list` takes: a value or an `AnyOf`, not a `Range` or an `AllOf`. */
function isExact(value: unknown): boolean {
  return !(value instanceof Range) && !(value instanceof AllOf);
}

/** The ids indexed under a value, or under any of an `AnyOf`'s values. */
function lookup(index: Map<unknown, Set<string>>, value: unknown): ReadonlySet<string> {
  if (!(value instanceof AnyOf)) return index.get(value) ?? EMPTY;
  const union = new Set<string>();
  for (const v of value.values) for (const id of index.get(v) ?? EMPTY) union.add(id);
  return union;
}

function keysOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [value];
}

/**
 * A shallow copy of a record, so that the collection holds an object of its own, never the caller's. A record with
 * an own `__proto__` key (parsed from JSON) is kept as given: it is never a record the service makes.
 */
export function compact<T extends object>(record: T): T {
  return Object.hasOwn(record, '__proto__') ? record : { ...record };
}

import type { Page, SortKey } from '../../model/list.ts';
import type { Backlog, ClaimRequest, DeliveryLog, DeliveryQuery, Outcome, StoredDelivery } from '../outbox.ts';
import { DELIVERY_NEWEST_FIRST, matches, readDeliveryPosition } from '../outbox.ts';
import { compareKeys, valuesOf } from './order.ts';

/** A row with its sort values and its place in the order rows were added (`seq`). */
interface Keyed {
  readonly row: StoredDelivery;
  readonly values: readonly unknown[];
  readonly seq: number;
}

/** By the sort's keys, then the row added last first whatever the direction (as the activity log's ties). */
function compare(a: Pick<Keyed, 'values' | 'seq'>, b: Pick<Keyed, 'values' | 'seq'>, sort: readonly SortKey[]): number {
  return compareKeys(a.values, b.values, sort) || b.seq - a.seq;
}

/**
 * The outbox and delivery log in memory: the last `limit` attempts of each webhook (older ones dropped, so a dead
 * receiver never grows memory without bound), and the pending rows, which are kept until settled even when their
 * record has dropped out of the log. One process owns it: a leased row is in flight in this process, whatever its
 * lease says. Each row kept has a sequence number, the order it was added in: with its `createdAt`, the position
 * of a page of the log.
 */
export class MemoryDeliveryLog implements DeliveryLog {
  readonly durable = false;
  private readonly byWebhook = new Map<string, StoredDelivery[]>();
  private readonly waiting = new Map<string, StoredDelivery>();
  /**
   * The pending rows of each webhook, in the order they fall due (then added): a claim reads only the first few of
   * each webhook, so a receiver with a long backlog costs no more to pass over than one with none.
   */
  private readonly queues = new Map<string, StoredDelivery[]>();
  /** The order rows were added in, across webhooks. */
  private readonly seqOf = new WeakMap<StoredDelivery, number>();
  private added = 0;
  /** The `exclusively` work under way for each webhook, the next one waits for. */
  private readonly exclusive = new Map<string, Promise<void>>();

  constructor(private limit: number) {}

  /** Changes the bound per webhook (the dispatcher's `historyPerWebhook`). */
  bound(limit: number): void {
    this.limit = limit;
  }

  async add(rows: readonly StoredDelivery[]): Promise<void> {
    for (const row of rows) this.put(row);
  }

  /**
   * Takes rows out again (a transaction that added them rolled back): pending ones, and those recorded final as they
   * were added (an unreachable target, a full queue).
   */
  remove(rows: readonly Pick<StoredDelivery, 'id' | 'webhookId'>[]): void {
    for (const { id, webhookId } of rows) {
      const pending = this.waiting.get(id);
      if (pending) {
        this.waiting.delete(id);
        this.dequeue(pending);
      }
      const kept = this.byWebhook.get(webhookId);
      const i = kept ? kept.findLastIndex((row) => row.id === id) : -1;
      if (i >= 0) kept!.splice(i, 1);
    }
  }

  async claim(r: ClaimRequest): Promise<StoredDelivery[]> {
    const now = Date.parse(r.now);
    const due: StoredDelivery[] = [];
    for (const [webhookId, queue] of this.queues) {
      let room = r.room.get(webhookId) ?? r.perWebhook;
      for (const row of queue) {
        if (room <= 0 || Date.parse(row.dueAt) > now) break;
        if (row.leasedBy !== null) continue;
        due.push(row);
        room--;
      }
    }
    due.sort((a, b) => Date.parse(a.dueAt) - Date.parse(b.dueAt) || this.seqOf.get(a)! - this.seqOf.get(b)!);
    return due.slice(0, r.limit).map((row) => {
      row.leasedBy = r.owner;
      row.leaseUntil = r.leaseUntil;
      return { ...row };
    });
  }

  async settle(outcomes: readonly Outcome[], owner: string): Promise<ReadonlySet<string>> {
    const kept = new Set<string>();
    for (const { done, next } of outcomes) {
      const row = this.waiting.get(done.id);
      if (!row || row.leasedBy !== owner) continue;
      this.dequeue(row);
      Object.assign(row, done, { leasedBy: null, leaseUntil: null });
      if (row.status !== 'pending') this.waiting.delete(row.id);
      else this.enqueue(row);
      if (next) this.put(next);
      kept.add(done.id);
    }
    return kept;
  }

  async release(ids: readonly string[], owner: string): Promise<void> {
    for (const id of ids) {
      const row = this.waiting.get(id);
      if (row?.leasedBy === owner) Object.assign(row, { leasedBy: null, leaseUntil: null });
    }
  }

  async list(webhookId: string, q: DeliveryQuery = {}): Promise<StoredDelivery[]> {
    return (await this.page(webhookId, q)).items;
  }

  /**
   * The kept attempts matching, in the query's order, then those after the position. Newest first by default: rows
   * are added with the clock's time, so the log is nearly always in `createdAt` order already, and it is sorted only
   * when a clock went back. Another sort orders the matches (at most the bound per webhook) on each request.
   */
  async page(webhookId: string, q: DeliveryQuery): Promise<Page<StoredDelivery>> {
    const sort = q.sort ?? DELIVERY_NEWEST_FIRST;
    const after = q.after && readDeliveryPosition(q.after, sort);
    const kept = this.byWebhook.get(webhookId) ?? [];
    const found: Keyed[] = [];
    let ordered = q.sort === undefined;
    for (let i = kept.length - 1; i >= Math.max(0, kept.length - this.limit); i--) {
      const row = kept[i]!;
      if (!matches(row, q)) continue;
      if (found.length > 0 && found[found.length - 1]!.row.createdAt < row.createdAt) ordered = false;
      found.push({ row, values: valuesOf(row, sort), seq: this.seqOf.get(row)! });
    }
    if (!ordered) found.sort((a, b) => compare(a, b, sort));
    let start = 0;
    if (after) {
      const at = { values: after.values, seq: Number(after.seq) };
      let hi = found.length;
      while (start < hi) {
        const mid = (start + hi) >>> 1;
        if (compare(found[mid]!, at, sort) <= 0) start = mid + 1;
        else hi = mid;
      }
    }
    const end = q.limit === undefined ? found.length : Math.min(found.length, start + q.limit);
    const items = found.slice(start, end).map(({ row }) => ({ ...row }));
    const last = found[end - 1];
    const next = end < found.length && last ? [...last.values, last.seq] : null;
    return { items, total: found.length, next };
  }

  async find(webhookId: string, deliveryId: string): Promise<StoredDelivery | undefined> {
    const kept = this.byWebhook.get(webhookId) ?? [];
    for (let i = kept.length - 1; i >= Math.max(0, kept.length - this.limit); i--) {
      if (kept[i]!.id === deliveryId) return { ...kept[i]! };
    }
    return undefined;
  }

  async nextDue(after: string): Promise<string | null> {
    const from = Date.parse(after);
    let next: number | null = null;
    for (const queue of this.queues.values()) {
      for (let i = this.firstDueAfter(queue, from); i < queue.length; i++) {
        const at = Date.parse(queue[i]!.dueAt);
        if (queue[i]!.leasedBy !== null) continue;
        if (next === null || at < next) next = at;
        break;
      }
    }
    return next === null ? null : new Date(next).toISOString();
  }

  async pending(): Promise<number> {
    return this.waiting.size;
  }

  async backlog(now: string): Promise<Backlog> {
    const at = Date.parse(now);
    let due = 0;
    for (const row of this.waiting.values()) if (Date.parse(row.dueAt) <= at) due++;
    return { due, waiting: this.waiting.size - due };
  }

  /** Pending rows, counted now. */
  waitingNow(): number {
    return this.waiting.size;
  }

  async prune(): Promise<number> {
    return 0; // bounded per webhook instead
  }

  exclusively<R>(webhookId: string, work: (log: DeliveryLog) => Promise<R>): Promise<R> {
    const run = (this.exclusive.get(webhookId) ?? Promise.resolve()).then(() => work(this));
    const settled = run.then(
      () => {},
      () => {},
    );
    this.exclusive.set(webhookId, settled);
    void settled.then(() => {
      if (this.exclusive.get(webhookId) === settled) this.exclusive.delete(webhookId);
    });
    return run;
  }

  async forget(webhookId: string): Promise<void> {
    this.queues.delete(webhookId);
    for (const row of this.byWebhook.get(webhookId) ?? []) this.waiting.delete(row.id);
    for (const row of [...this.waiting.values()]) if (row.webhookId === webhookId) this.waiting.delete(row.id);
    this.byWebhook.delete(webhookId);
  }

  private put(row: StoredDelivery): void {
    const stored = { ...row };
    this.seqOf.set(stored, ++this.added);
    let kept = this.byWebhook.get(row.webhookId);
    if (!kept) this.byWebhook.set(row.webhookId, (kept = []));
    kept.push(stored);
    // Trimmed in batches, so that adding costs the same whatever the bound.
    if (kept.length >= 2 * this.limit) kept.splice(0, kept.length - this.limit);
    if (stored.status === 'pending') {
      this.waiting.set(stored.id, stored);
      this.enqueue(stored);
    }
  }

  /** Before `row` in a webhook's queue: due earlier, or as early and added before. */
  private before(a: StoredDelivery, b: StoredDelivery): boolean {
    const d = Date.parse(a.dueAt) - Date.parse(b.dueAt);
    return d < 0 || (d === 0 && this.seqOf.get(a)! < this.seqOf.get(b)!);
  }

  /** Puts a pending row in its webhook's queue, in order (at the end, mostly: new rows are due now). */
  private enqueue(row: StoredDelivery): void {
    let queue = this.queues.get(row.webhookId);
    if (!queue) this.queues.set(row.webhookId, (queue = []));
    let lo = 0;
    let hi = queue.length;
    if (hi > 0 && this.before(queue[hi - 1]!, row)) lo = hi;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.before(queue[mid]!, row)) lo = mid + 1;
      else hi = mid;
    }
    queue.splice(lo, 0, row);
  }

  /** Takes a row out of its webhook's queue. */
  private dequeue(row: StoredDelivery): void {
    const queue = this.queues.get(row.webhookId);
    if (!queue) return;
    const i = queue.indexOf(row, this.firstDueAfter(queue, Date.parse(row.dueAt) - 1));
    if (i >= 0) queue.splice(i, 1);
    if (queue.length === 0) this.queues.delete(row.webhookId);
  }

  /** The index of the first row of a queue due after `at` (epoch ms). */
  private firstDueAfter(queue: readonly StoredDelivery[], at: number): number {
    let lo = 0;
    let hi = queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (Date.parse(queue[mid]!.dueAt) <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

import type { ClaimRequest, DeliveryLog, DeliveryQuery, StoredDelivery } from '../../webhooks/outbox.ts';
import { DELIVERY_NEWEST_FIRST, matches, readDeliveryPosition } from '../../webhooks/outbox.ts';
import type { Page, SortKey } from '../types.ts';
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
  /** The order rows were added in, across webhooks. */
  private readonly seqOf = new WeakMap<StoredDelivery, number>();
  private added = 0;

  constructor(private limit: number) {}

  /** Changes the bound per webhook (the dispatcher's `historyPerWebhook`). */
  bound(limit: number): void {
    this.limit = limit;
  }

  async add(rows: readonly StoredDelivery[]): Promise<void> {
    for (const row of rows) this.put(row);
  }

  /** Takes rows out again (a transaction that added them rolled back). */
  remove(ids: readonly string[]): void {
    for (const id of ids) {
      const row = this.waiting.get(id);
      this.waiting.delete(id);
      const kept = row && this.byWebhook.get(row.webhookId);
      const i = kept ? kept.lastIndexOf(row) : -1;
      if (i >= 0) kept!.splice(i, 1);
    }
  }

  async claim(r: ClaimRequest): Promise<StoredDelivery[]> {
    const now = Date.parse(r.now);
    const due = [...this.waiting.values()]
      .filter((row) => row.leasedBy === null && Date.parse(row.dueAt) <= now)
      .sort((a, b) => Date.parse(a.dueAt) - Date.parse(b.dueAt));
    const used = new Map(r.busy);
    const claimed: StoredDelivery[] = [];
    for (const row of due) {
      if (claimed.length >= r.limit) break;
      const n = used.get(row.webhookId) ?? 0;
      if (n >= r.perWebhook) continue;
      used.set(row.webhookId, n + 1);
      row.leasedBy = r.owner;
      row.leaseUntil = r.leaseUntil;
      claimed.push({ ...row });
    }
    return claimed;
  }

  async settle(done: StoredDelivery, owner: string, next?: StoredDelivery): Promise<boolean> {
    const row = this.waiting.get(done.id);
    if (!row || row.leasedBy !== owner) return false;
    Object.assign(row, done, { leasedBy: null, leaseUntil: null });
    if (row.status !== 'pending') this.waiting.delete(row.id);
    if (next) this.put(next);
    return true;
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
    let next: StoredDelivery | null = null;
    for (const row of this.waiting.values()) {
      const at = Date.parse(row.dueAt);
      if (row.leasedBy === null && at > from && (!next || at < Date.parse(next.dueAt))) next = row;
    }
    return next?.dueAt ?? null;
  }

  async pending(): Promise<number> {
    return this.waiting.size;
  }

  /** Pending rows, counted now. */
  waitingNow(): number {
    return this.waiting.size;
  }

  async prune(): Promise<number> {
    return 0; // bounded per webhook instead
  }

  async forget(webhookId: string): Promise<void> {
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
    if (stored.status === 'pending') this.waiting.set(stored.id, stored);
  }
}

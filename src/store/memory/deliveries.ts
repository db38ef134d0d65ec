import type { ClaimRequest, DeliveryLog, DeliveryQuery, StoredDelivery } from '../../webhooks/outbox.ts';
import { matches } from '../../webhooks/outbox.ts';

/**
 * The outbox and delivery log in memory: the last `limit` attempts of each webhook (older ones dropped, so a dead
 * receiver never grows memory without bound), and the pending rows, which are kept until settled even when their
 * record has dropped out of the log. One process owns it: a leased row is in flight in this process, whatever its
 * lease says.
 */
export class MemoryDeliveryLog implements DeliveryLog {
  readonly durable = false;
  private readonly byWebhook = new Map<string, StoredDelivery[]>();
  private readonly waiting = new Map<string, StoredDelivery>();

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
    const kept = this.byWebhook.get(webhookId) ?? [];
    const out: StoredDelivery[] = [];
    const oldest = Math.max(0, kept.length - this.limit);
    for (let i = kept.length - 1; i >= oldest && out.length < (q.limit ?? Infinity); i--) {
      if (matches(kept[i]!, q)) out.push({ ...kept[i]! });
    }
    return out;
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
    let kept = this.byWebhook.get(row.webhookId);
    if (!kept) this.byWebhook.set(row.webhookId, (kept = []));
    kept.push(stored);
    // Trimmed in batches, so that adding costs the same whatever the bound.
    if (kept.length >= 2 * this.limit) kept.splice(0, kept.length - this.limit);
    if (stored.status === 'pending') this.waiting.set(stored.id, stored);
  }
}

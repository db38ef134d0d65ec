import type { DeliveryRecord } from './types.ts';

interface Entry<C> {
  readonly record: DeliveryRecord;
  /** What made the record, kept so it can be sent again. */
  readonly context: C;
}

/** The last `limit` attempt records of each webhook, newest first; older ones are dropped. */
export class DeliveryHistory<C> {
  private readonly byWebhook = new Map<string, Ring<Entry<C>>>();

  constructor(private readonly limit: number) {}

  add(record: DeliveryRecord, context: C): void {
    let entries = this.byWebhook.get(record.webhookId);
    if (!entries) this.byWebhook.set(record.webhookId, (entries = new Ring(this.limit)));
    entries.push({ record, context });
  }

  /** Copies, so callers never see (or make) later changes. */
  list(webhookId: string): DeliveryRecord[] {
    const entries = this.byWebhook.get(webhookId);
    const out: DeliveryRecord[] = [];
    if (entries) for (let i = 0; i < entries.size; i++) out.push({ ...entries.newest(i).record });
    return out;
  }

  find(webhookId: string, deliveryId: string): Entry<C> | undefined {
    const entries = this.byWebhook.get(webhookId);
    if (!entries) return undefined;
    for (let i = 0; i < entries.size; i++) {
      const entry = entries.newest(i);
      if (entry.record.id === deliveryId) return entry;
    }
    return undefined;
  }

  forget(webhookId: string): void {
    this.byWebhook.delete(webhookId);
  }
}

/**
 * The last `limit` items pushed. Once full, a push overwrites the oldest in place, so adding costs the same
 * whatever the limit (an array kept newest first would move every item on each add).
 */
export class Ring<T> {
  private readonly items: T[] = [];
  /** Once full: the slot of the oldest item, which the next push overwrites. */
  private oldest = 0;

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    if (this.items.length < this.limit) {
      this.items.push(item);
    } else {
      this.items[this.oldest] = item;
      this.oldest = (this.oldest + 1) % this.limit;
    }
  }

  /** The `i`-th newest item (0: the last pushed), for `i` below `size`. */
  newest(i: number): T {
    const n = this.items.length;
    return this.items[(this.oldest - 1 - i + 2 * n) % n]!;
  }
}

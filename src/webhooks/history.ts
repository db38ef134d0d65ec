import type { DeliveryRecord } from './types.ts';

interface Entry<C> {
  readonly record: DeliveryRecord;
  /** What made the record, kept so it can be sent again. */
  readonly context: C;
}

/** The last `limit` attempt records of each webhook, newest first; older ones are dropped. */
export class DeliveryHistory<C> {
  private readonly byWebhook = new Map<string, Entry<C>[]>();

  constructor(private readonly limit: number) {}

  add(record: DeliveryRecord, context: C): void {
    let entries = this.byWebhook.get(record.webhookId);
    if (!entries) this.byWebhook.set(record.webhookId, (entries = []));
    entries.unshift({ record, context });
    if (entries.length > this.limit) entries.length = this.limit;
  }

  /** Copies, so callers never see (or make) later changes. */
  list(webhookId: string): DeliveryRecord[] {
    return (this.byWebhook.get(webhookId) ?? []).map((e) => ({ ...e.record }));
  }

  find(webhookId: string, deliveryId: string): Entry<C> | undefined {
    return this.byWebhook.get(webhookId)?.find((e) => e.record.id === deliveryId);
  }

  forget(webhookId: string): void {
    this.byWebhook.delete(webhookId);
  }
}

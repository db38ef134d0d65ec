import { iso } from '../../model/time.ts';
import type { ServiceDeps } from '../../core/resource-service.ts';
import { notFound } from '../../errors.ts';
import type { DeliveryRecord } from '../../model/delivery.ts';
import { PING_EVENT } from '../../model/event-types.ts';
import type { Page } from '../../model/list.ts';
import type { OutboundEvent } from '../../model/outbound.ts';
import {
  recordOf,
  type DeliveryLog,
  type DeliveryQuery,
  type DeliveryTarget,
  type StoredDelivery,
} from '../../store/outbox.ts';
import type { Store } from '../../store/store.ts';
import type { WebhookService } from './service.ts';

/** The part of the webhook dispatcher redelivery and ping use: it writes first attempts and wakes the workers. */
export interface DeliveryQueue {
  /** Queues `event` for `target` now, and answers its first attempt's record. */
  send(target: DeliveryTarget, event: OutboundEvent, options?: { force?: boolean }): Promise<DeliveryRecord>;
  /**
   * Writes into `log` a new delivery of the event of each of `old` (same `webhook-id`, its own retries), made
   * whether the webhook is active or not; none once the dispatcher is closed. Answers their first attempts.
   */
  restage(log: DeliveryLog, old: readonly StoredDelivery[]): Promise<DeliveryRecord[]>;
  /** Tells the workers that attempts were added (once committed). */
  wake(): void;
}

/**
 * A webhook's deliveries: its log (read from the store's outbox), the redelivery of past ones, and a test event.
 * Unknown webhooks are 404.
 */
export class DeliveryService {
  private readonly log: DeliveryLog;

  constructor(
    private readonly webhooks: Pick<WebhookService, 'get' | 'withSecret'>,
    private readonly queue: DeliveryQueue,
    private readonly deps: Pick<ServiceDeps, 'clock' | 'ids'> & { readonly store: Pick<Store, 'deliveries'> },
  ) {
    this.log = deps.store.deliveries;
  }

  /**
   * A page of the delivery attempts of a webhook, newest first, filtered by `query`, after its position (a
   * position the log did not make is a `PositionError`).
   */
  async page(webhookId: string, query: DeliveryQuery = {}): Promise<Page<DeliveryRecord>> {
    await this.webhooks.get(webhookId);
    const page = await this.log.page(webhookId, query);
    return { ...page, items: page.items.map(recordOf) };
  }

  /**
   * Sends the event of a past delivery again (same `webhook-id`) as a new delivery, with its own retries, to the
   * webhook as it is when the attempt is made (active or not).
   */
  async redeliver(webhookId: string, deliveryId: string): Promise<DeliveryRecord> {
    await this.webhooks.get(webhookId);
    const old = await this.log.find(webhookId, deliveryId);
    const [record] = old ? await this.queue.restage(this.log, [old]) : [];
    if (!record) throw notFound('Delivery', deliveryId);
    this.queue.wake();
    return record;
  }

  /**
   * Sends again every event whose delivery to the webhook ended failed (no later attempt succeeded, no retry
   * pending) among the attempts made since `since`. Answers the new first attempts. One call at a time per webhook,
   * here and on every instance sharing the outbox: a second call made meanwhile finds the first one's new attempts
   * pending, and redelivers nothing twice.
   */
  async redeliverFailed(webhookId: string, since: string): Promise<DeliveryRecord[]> {
    await this.webhooks.get(webhookId);
    const out = await this.log.exclusively(webhookId, async (log) => {
      const latest = new Map<string, StoredDelivery>();
      for (const row of await log.list(webhookId, { since }))
        if (!latest.has(row.eventId)) latest.set(row.eventId, row);
      const failed = [...latest.values()]
        .reverse()
        .filter((old) => old.status === 'failed' || old.status === 'refused');
      return this.queue.restage(log, failed);
    });
    if (out.length > 0) this.queue.wake(); // once committed
    return out;
  }

  /** Queues a `webhook.ping` event now, whether the webhook is active or not; returns its delivery. */
  async ping(webhookId: string): Promise<DeliveryRecord> {
    const hook = await this.webhooks.withSecret(webhookId);
    return this.queue.send(
      { id: hook.id, url: hook.url, secret: hook.secret },
      { id: this.deps.ids('evt'), type: PING_EVENT, timestamp: iso(this.deps.clock.now()), data: { webhookId } },
      { force: true },
    );
  }
}

import { iso } from '../../model/time.ts';
import type { ServiceDeps } from '../../core/resource-service.ts';
import { notFound } from '../../errors.ts';
import type { Page } from '../../model/list.ts';
import type { DeliveryQuery } from '../../webhooks/outbox.ts';
import type { DeliveryRecord, DeliveryTarget, OutboundEvent } from '../../webhooks/types.ts';
import { PING_EVENT } from '../../model/event-types.ts';
import type { WebhookService } from './service.ts';

/** The part of the webhook dispatcher the delivery log, redelivery and ping use. */
export interface DeliveryQueue {
  send(target: DeliveryTarget, event: OutboundEvent, options?: { force?: boolean }): Promise<DeliveryRecord>;
  deliveryPage(webhookId: string, query: DeliveryQuery): Promise<Page<DeliveryRecord>>;
  redeliver(webhookId: string, deliveryId: string): Promise<DeliveryRecord | undefined>;
  redeliverFailed(webhookId: string, since: string): Promise<DeliveryRecord[]>;
}

/** A webhook's deliveries: its log, the redelivery of past ones, and a test event. Unknown webhooks are 404. */
export class DeliveryService {
  constructor(
    private readonly webhooks: WebhookService,
    private readonly queue: DeliveryQueue,
    private readonly deps: Pick<ServiceDeps, 'clock' | 'ids'>,
  ) {}

  /**
   * A page of the delivery attempts of a webhook, newest first, filtered by `query`, after its position (a
   * position the log did not make is a `PositionError`).
   */
  async page(webhookId: string, query: DeliveryQuery = {}): Promise<Page<DeliveryRecord>> {
    await this.webhooks.get(webhookId);
    return this.queue.deliveryPage(webhookId, query);
  }

  /** Sends the event of a past delivery again (same `webhook-id`), to the webhook as it is now. */
  async redeliver(webhookId: string, deliveryId: string): Promise<DeliveryRecord> {
    await this.webhooks.get(webhookId);
    const record = await this.queue.redeliver(webhookId, deliveryId);
    if (!record) throw notFound('Delivery', deliveryId);
    return record;
  }

  /** Sends again every event whose delivery failed for good among the attempts made since `since`. */
  async redeliverFailed(webhookId: string, since: string): Promise<DeliveryRecord[]> {
    await this.webhooks.get(webhookId);
    return this.queue.redeliverFailed(webhookId, since);
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

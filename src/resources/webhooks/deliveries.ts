import { iso } from '../../core/runtime.ts';
import type { ServiceDeps } from '../../core/resource-service.ts';
import { notFound } from '../../errors.ts';
import type { DeliveryRecord, DeliveryTarget, OutboundEvent } from '../../webhooks/types.ts';
import type { WebhookService } from './service.ts';

/** The part of the webhook dispatcher the delivery log, redelivery and ping use. */
export interface DeliveryQueue {
  enqueue(target: DeliveryTarget, event: OutboundEvent): void;
  deliveries(webhookId: string): DeliveryRecord[];
  redeliver(webhookId: string, deliveryId: string, target?: DeliveryTarget): DeliveryRecord | undefined;
}

/** A webhook's deliveries: its log, the redelivery of a past one, and a test event. Unknown webhooks are 404. */
export class DeliveryService {
  constructor(
    private readonly webhooks: WebhookService,
    private readonly queue: DeliveryQueue,
    private readonly deps: Pick<ServiceDeps, 'clock' | 'ids'>,
  ) {}

  /** The delivery attempts of a webhook, newest first. */
  async list(webhookId: string): Promise<DeliveryRecord[]> {
    await this.webhooks.get(webhookId);
    return this.queue.deliveries(webhookId);
  }

  /** Sends the event of a past delivery again (same `webhook-id`), to the webhook as it is now. */
  async redeliver(webhookId: string, deliveryId: string): Promise<DeliveryRecord> {
    const record = this.queue.redeliver(webhookId, deliveryId, await this.target(webhookId));
    if (!record) throw notFound('Delivery', deliveryId);
    return record;
  }

  /** Queues a `webhook.ping` event now, whether the webhook is active or not; returns its delivery. */
  async ping(webhookId: string): Promise<DeliveryRecord> {
    const target = await this.target(webhookId);
    const eventId = this.deps.ids('evt');
    this.queue.enqueue(target, {
      id: eventId,
      type: 'webhook.ping',
      timestamp: iso(this.deps.clock.now()),
      data: { webhookId },
    });
    return this.queue.deliveries(webhookId).find((d) => d.eventId === eventId)!;
  }

  private async target(id: string): Promise<DeliveryTarget> {
    const hook = await this.webhooks.withSecret(id);
    return { id: hook.id, url: hook.url, secret: hook.secret };
  }
}

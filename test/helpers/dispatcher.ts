import { AppError } from '../../src/errors.ts';
import type { OutboundEvent } from '../../src/model/outbound.ts';
import { DeliveryService } from '../../src/resources/webhooks/deliveries.ts';
import type { DeliveryRecord } from '../../src/model/delivery.ts';
import type { WebhookService } from '../../src/resources/webhooks/service.ts';
import { MemoryDeliveryLog } from '../../src/store/memory/deliveries.ts';
import { recordOf, type DeliveryLog, type DeliveryQuery, type DeliveryTarget } from '../../src/store/outbox.ts';
import { WebhookDispatcher, type DispatcherOptions } from '../../src/webhooks/dispatcher.ts';
import type { Logger } from '../../src/webhooks/types.ts';

export type TestDispatcherOptions = Omit<DispatcherOptions, 'outbox' | 'current'> & {
  /** Default: a memory log of its own. */
  outbox?: DispatcherOptions['outbox'];
  /** Default: the target last given to `enqueue` (or `send`), active unless `isActive` says otherwise. */
  current?: DispatcherOptions['current'];
  /** With the default `current`: checked before each attempt; an inactive or deleted webhook gets no more. */
  isActive?: (webhookId: string) => boolean | Promise<boolean>;
};

/** A webhook service that knows every webhook: the dispatcher's tests have targets, not webhooks. */
const anyWebhook = { get: async () => undefined } as unknown as Pick<WebhookService, 'get' | 'withSecret'>;

/**
 * The webhook dispatcher with what only tests use: deliveries to targets it is handed (`enqueue`) rather than to
 * webhooks the store keeps, the delivery log and its counts read back, redelivery and `forget` called directly.
 */
export class TestDispatcher extends WebhookDispatcher {
  readonly deliveryLog: DeliveryLog;
  private readonly known: Map<string, DeliveryTarget>;
  private readonly logger: Logger;
  private readonly redelivery: DeliveryService;
  private readonly queued = new Set<Promise<void>>();
  private shut = false;

  constructor(options: TestDispatcherOptions) {
    const known = new Map<string, DeliveryTarget>();
    const { isActive, log } = options;
    const current = async (webhookId: string) => {
      const target = known.get(webhookId);
      if (!target) return undefined;
      let active = true;
      try {
        if (isActive) active = await isActive(webhookId);
      } catch (err) {
        log.error({ err, webhookId }, 'webhook isActive check failed: sending anyway');
      }
      return { ...target, active };
    };
    // Bound by the dispatcher (`historyPerWebhook`), as the memory store's is.
    const outbox = options.outbox ?? new MemoryDeliveryLog(1);
    super({ ...options, outbox, current: options.current ?? current });
    this.deliveryLog = outbox;
    this.known = known;
    this.logger = log;
    this.redelivery = new DeliveryService(anyWebhook, this, { ...options, store: { deliveries: outbox } });
  }

  override send(target: DeliveryTarget, event: OutboundEvent, options?: { force?: boolean }): Promise<DeliveryRecord> {
    this.known.set(target.id, target);
    return super.send(target, event, options);
  }

  /** Queues `event` for `target` now, outside any change. Never throws, never waits. */
  enqueue(target: DeliveryTarget, event: OutboundEvent, options: { force?: boolean } = {}): void {
    const at = { webhookId: target.id, eventId: event.id };
    if (this.shut) return this.logger.warn(at, 'webhook dispatcher closed: delivery not queued');
    const queued: Promise<void> = this.send(target, event, options)
      .then(
        () => {},
        (err: unknown) => this.logger.error({ err, ...at }, 'webhook delivery could not be queued'),
      )
      .finally(() => this.queued.delete(queued));
    this.queued.add(queued);
  }

  /** Attempt records of a webhook, newest first. */
  async deliveries(webhookId: string, query?: DeliveryQuery): Promise<DeliveryRecord[]> {
    return (await this.deliveryLog.list(webhookId, query)).map(recordOf);
  }

  /** Deliveries waiting (due or not, in flight included), and in flight in this process. */
  async stats(): Promise<{ pending: number; inFlight: number }> {
    return { pending: await this.deliveryLog.pending(), inFlight: this.inFlight };
  }

  /** The webhooks resource's redelivery; `undefined` when there is no such record (or the dispatcher is closed). */
  async redeliver(webhookId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    try {
      return await this.redelivery.redeliver(webhookId, deliveryId);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
      throw err;
    }
  }

  override forget(webhookId: string): void {
    this.known.delete(webhookId);
    super.forget(webhookId);
  }

  override async idle(): Promise<void> {
    while (this.queued.size > 0) await Promise.all(this.queued);
    await super.idle();
  }

  override close(graceMs: number): Promise<{ left: number | undefined }> {
    this.shut = true;
    return super.close(graceMs);
  }
}

import { eventJson, type OutboundEvent } from '../../model/outbound.ts';
import type { DeliveryRecord } from '../../model/delivery.ts';
import {
  pendingAttempt,
  recordOf,
  type DeliveryLog,
  type DeliveryTarget,
  type StoredDelivery,
} from '../../store/outbox.ts';
import { describeError } from '../send.ts';
import type { DeliveryContext, Prechecks } from './context.ts';

const DROP_LOG_INTERVAL_MS = 10_000;

/** Writes first attempts into an outbox: a change's (in its transaction), a ping's, a redelivery's. */
export class Staging {
  private readonly bodies = new WeakMap<OutboundEvent, string>();
  private droppedSinceLog = 0;
  private lastDropLog = -Infinity;

  constructor(
    private readonly c: DeliveryContext,
    private readonly prechecks: Prechecks,
  ) {}

  /**
   * Writes the first attempt of `event` to `target` into `log`: the transaction's own (a change's deliveries commit
   * with it) or the outbox. In memory, a full outbox records the attempt as failed `queue full` instead.
   */
  async stage(
    log: DeliveryLog,
    target: DeliveryTarget,
    event: OutboundEvent,
    options: { force?: boolean } = {},
  ): Promise<DeliveryRecord> {
    const { s } = this.c;
    let payload = '';
    let unusable: string | undefined;
    try {
      payload = this.bodyOf(event);
    } catch (err) {
      // Cannot happen with the service's own records; final, since no retry would fare better.
      s.log.error({ err, webhookId: target.id, eventId: event.id }, 'webhook payload could not be serialized');
      unusable = `could not be signed: ${describeError(err)}`;
    }
    const row: StoredDelivery = pendingAttempt({
      id: s.ids('dlv'),
      webhookId: target.id,
      eventId: event.id,
      eventType: event.type,
      payload,
      attempt: 1,
      at: s.clock.now(),
      force: options.force ?? false,
    });
    const traceParent = this.c.tracing?.traceParent();
    if (traceParent !== undefined) row.traceParent = traceParent;
    if (unusable !== undefined) {
      Object.assign(row, {
        status: 'failed',
        error: unusable,
        completedAt: row.createdAt,
        stopReason: 'undeliverable',
      });
    }
    // A target that no attempt can reach (an unusable URL, a reserved name: the seeded webhooks) gets its one,
    // final attempt recorded now, with the webhook as it is now, instead of waiting for a worker to find so.
    const final = unusable === undefined ? this.prechecks.of(target.url) : null;
    if (final) {
      Object.assign(row, {
        status: 'failed',
        error: final.error,
        durationMs: final.durationMs,
        completedAt: row.createdAt,
        url: target.url,
        queuedMs: 0,
        stopReason: 'undeliverable',
      });
    }
    // In memory the check and the add happen in one turn (the memory log's `add` writes before it yields), so
    // deliveries staged together cannot all see room for one more.
    if (log.waitingNow && log.waitingNow() >= s.maxQueue) {
      Object.assign(row, { status: 'failed', error: 'queue full', completedAt: row.createdAt });
      this.warnDropped(target.id, event.id, event.type);
    }
    await log.add([row]);
    return recordOf(row);
  }

  /**
   * Writes into `log` a new first attempt of the event of each of `old`, with its payload (same `webhook-id`): made
   * whether the webhook is active or not. Answers their records.
   */
  async again(log: DeliveryLog, old: readonly StoredDelivery[]): Promise<DeliveryRecord[]> {
    const { ids, clock } = this.c.s;
    // The request that asks for them again caused them: its trace context, not that of the first delivery.
    const traceParent = this.c.tracing?.traceParent();
    const rows = old.map(({ webhookId, eventId, eventType, payload }) => {
      const row = pendingAttempt({
        id: ids('dlv'),
        webhookId,
        eventId,
        eventType,
        payload,
        attempt: 1,
        at: clock.now(),
        force: true,
      });
      if (traceParent !== undefined) row.traceParent = traceParent;
      return row;
    });
    if (rows.length > 0) await log.add(rows);
    return rows.map(recordOf);
  }

  /** The payload of an event, made when first queued (and shared by its deliveries to several webhooks). */
  private bodyOf(event: OutboundEvent): string {
    let body = this.bodies.get(event);
    if (body === undefined) this.bodies.set(event, (body = eventJson(event)));
    return body;
  }

  /**
   * A full queue stays full while receivers are down, and every change then drops a delivery: the first drop
   * is logged at once, the next ones at most every DROP_LOG_INTERVAL_MS, with how many were dropped meanwhile.
   */
  private warnDropped(webhookId: string, eventId: string, eventType: string): void {
    this.droppedSinceLog++;
    const now = performance.now();
    if (now - this.lastDropLog < DROP_LOG_INTERVAL_MS) return;
    this.c.s.log.warn(
      { webhookId, eventId, eventType, maxQueue: this.c.s.maxQueue, dropped: this.droppedSinceLog },
      'webhook queue full: deliveries dropped',
    );
    this.droppedSinceLog = 0;
    this.lastDropLog = now;
  }
}

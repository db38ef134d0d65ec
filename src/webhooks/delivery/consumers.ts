import type { IdGenerator } from '../../core/runtime.ts';
import type { Consumer, TransactionalConsumer, TransactionStart, Unit } from '../../events/bus.ts';
import { recordOf } from '../../events/derived.ts';
import type { OutboundEvent } from '../../events/outbound.ts';
import type { DomainEvent } from '../../events/types.ts';
import { outboundFor } from '../../events/webhooks.ts';
import { WILDCARD, type DeliveryRecord, type WebhookRecord } from '../../resources/webhooks/schema.ts';
import type { DeliveryLog } from '../../store/outbox.ts';
import type { DeliveryTarget } from '../types.ts';

/**
 * The delivery's consumers on the event bus: in a change's transaction, its deliveries written to the outbox; once
 * it has committed, the workers told (the dispatcher hears of commits through the bus, nothing else calls it).
 */

/** What the consumers call on: the dispatcher (dispatcher.ts). */
export interface Outbox {
  stage(log: DeliveryLog, target: DeliveryTarget, event: OutboundEvent): Promise<DeliveryRecord>;
  /** Attempts recorded as final when staged (a target no attempt can reach), once their change has committed. */
  recorded(records: readonly DeliveryRecord[]): void;
  wake(): void;
  announce(): void;
  forget(webhookId: string): void;
  /** A webhook changed (committed): attempts from now read it again. */
  changed(webhookId: string): void;
}

/** What a change staged (webhookWakeConsumer): attempts still to make, and those already final. */
interface Staged {
  pending: number;
  readonly final: DeliveryRecord[];
}
const staging = new WeakMap<DomainEvent, Staged>();

/**
 * Writes a delivery for every webhook event to each active webhook subscribed to its type or to `*`, into the
 * outbox, in the change's own transaction: a change that rolls back sends nothing, one that commits is delivered
 * even if the process dies the next instant.
 *
 * The active webhooks are read once per transaction, as it begins (`begin`): on a server that read travels with the
 * change's first statement rather than costing a round trip of its own, and a change with many events (a cascade)
 * reads them once, not once per event. Read in the transaction, they are those it would see later in it, except
 * after a change to a webhook in the same transaction; none of the service's changes both writes a webhook and
 * causes a delivered event, and if one did, the webhooks are read again after it.
 */
export function webhookOutboxConsumer(
  outbox: Outbox,
  ids: IdGenerator,
): { consume: TransactionalConsumer; begin: TransactionStart } {
  const active = new WeakMap<Unit, Promise<WebhookRecord[]>>();
  const read = (unit: Unit) => {
    const hooks = unit.tx.webhooks.list({ active: true });
    // Awaited where it is used; a transaction that ends before then must not leave its failure unhandled.
    hooks.catch(() => {});
    active.set(unit, hooks);
    return hooks;
  };
  return {
    begin: (unit) => void read(unit),
    consume: async (event, unit) => {
      if (event.resourceType === 'webhook') active.delete(unit);
      const outbounds = outboundFor(event, ids);
      if (outbounds.length === 0) return;
      const hooks = await (active.get(unit) ?? read(unit));
      for (const outbound of outbounds) {
        for (const hook of hooks) {
          if (!hook.events.includes(outbound.type) && !hook.events.includes(WILDCARD)) continue;
          const record = await outbox.stage(
            unit.tx.deliveries,
            { id: hook.id, url: hook.url, secret: hook.secret },
            outbound,
          );
          let staged = staging.get(event);
          if (!staged) staging.set(event, (staged = { pending: 0, final: [] }));
          if (record.status === 'pending') staged.pending++;
          else staged.final.push(record);
        }
      }
    },
  };
}

/**
 * Once a change has committed: tells the observer of the attempts it recorded as final, and, when it added attempts
 * to make, wakes the delivery workers of this process and announces them to the other instances (NOTIFY). A change
 * that added none wakes nobody: there is nothing new to claim.
 */
export function webhookWakeConsumer(outbox: Outbox): Consumer {
  return (event) => {
    if (event.resourceType === 'webhook') outbox.changed(String(recordOf(event).id));
    if (event.type === 'webhook.deleted') outbox.forget(String(recordOf(event).id));
    const staged = staging.get(event);
    if (!staged) return;
    if (staged.final.length > 0) outbox.recorded(staged.final);
    if (staged.pending === 0) return;
    outbox.wake();
    outbox.announce();
  };
}

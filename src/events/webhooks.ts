import type { DeliveryRecord } from '../model/delivery.ts';
import { EVENT_TYPES, WILDCARD } from '../model/event-types.ts';
import type { IdGenerator } from '../model/ids.ts';
import type { OutboundEvent } from '../model/outbound.ts';
import type { WebhookRecord } from '../model/webhook.ts';
import type { DeliveryLog, DeliveryTarget } from '../store/outbox.ts';
import type { Consumer, EventBus, TransactionalConsumer, TransactionStart, Unit } from './bus.ts';
import { milestoneReached, recordOf } from './derived.ts';
import type { DomainEvent } from './types.ts';

const DELIVERED = new Set<string>(EVENT_TYPES);
const SPRINT_ACTIONS = new Set(['sprint.started', 'sprint.completed']);

/**
 * Every event one change produces: the change itself (`<resource>.<kind>`, for every kind of record), then
 * `milestone.reached` when a milestone becomes reached, and `sprint.started` / `sprint.completed` when such an
 * activity entry is posted. The `data` is the record as the interface shows it (for a delete, the record as it
 * was; a webhook without its secret); an update's also carries `previous`, the old values of the fields it changed.
 * The event stream sends all of them; webhooks receive those of their list.
 */
export function changeEvents(event: DomainEvent, ids: IdGenerator): OutboundEvent[] {
  const { id, type, at: timestamp, record: data, previousValues: previous } = event;
  const out: OutboundEvent[] = [
    event.kind === 'updated' ? { id, type, timestamp, data, previous } : { id, type, timestamp, data },
  ];
  if (milestoneReached(event)) {
    out.push({ id: ids('evt'), type: 'milestone.reached', timestamp: event.at, data: event.record });
  }
  if (event.type === 'activity.created') {
    const action = String(recordOf(event).action);
    if (SPRINT_ACTIONS.has(action)) out.push({ id: event.id, type: action, timestamp: event.at, data: event.record });
  }
  return out;
}

/** The webhook events one change produces: those of {@link changeEvents} in the list webhooks subscribe to. */
export function outboundFor(event: DomainEvent, ids: IdGenerator): OutboundEvent[] {
  return changeEvents(event, ids).filter((outbound) => DELIVERED.has(outbound.type));
}

/**
 * What the webhook consumers need of delivery: a port, implemented by the dispatcher (webhooks/dispatcher.ts) and
 * handed in by the entry, so that the events import nothing of delivery.
 */
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

/**
 * Subscribes webhook delivery to the bus: in each change's transaction, its deliveries are written to the outbox
 * (`ids` for the events it derives); once the change has committed, the workers hear of them.
 */
export function subscribeDelivery(
  bus: Pick<EventBus, 'subscribe' | 'subscribeInTransaction'>,
  outbox: Outbox,
  ids: IdGenerator,
): void {
  const staging = webhookOutboxConsumer(outbox, ids);
  bus.subscribeInTransaction('webhooks', staging.consume, staging.begin);
  bus.subscribe('webhooks', webhookWakeConsumer(outbox));
}

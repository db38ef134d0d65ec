import type { IdGenerator } from '../core/runtime.ts';
import { EVENT_TYPES, WILDCARD } from '../resources/webhooks/schema.ts';
import { AnyOf } from '../store/types.ts';
import type { DeliveryLog } from '../webhooks/outbox.ts';
import type { DeliveryRecord, DeliveryTarget, OutboundEvent } from '../webhooks/types.ts';
import type { Consumer, TransactionalConsumer } from './bus.ts';
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

/** What the webhook consumers need of the dispatcher. */
export interface Outbox {
  stage(log: DeliveryLog, target: DeliveryTarget, event: OutboundEvent): Promise<DeliveryRecord>;
  /** Attempts recorded as final when staged (a target no attempt can reach), once their change has committed. */
  recorded(records: readonly DeliveryRecord[]): void;
  wake(): void;
  announce(): void;
  forget(webhookId: string): void;
}

/** The changes that staged deliveries, with the attempts already final among them (webhookWakeConsumer). */
const staging = new WeakMap<DomainEvent, DeliveryRecord[]>();

/**
 * Writes a delivery for every webhook event to each active webhook subscribed to its type or to `*`, into the
 * outbox, in the change's own transaction: a change that rolls back sends nothing, one that commits is delivered
 * even if the process dies the next instant.
 */
export function webhookOutboxConsumer(outbox: Outbox, ids: IdGenerator): TransactionalConsumer {
  return async (event, unit) => {
    for (const outbound of outboundFor(event, ids)) {
      const hooks = await unit.tx.webhooks.list({ active: true, events: new AnyOf(outbound.type, WILDCARD) });
      for (const hook of hooks) {
        const record = await outbox.stage(
          unit.tx.deliveries,
          { id: hook.id, url: hook.url, secret: hook.secret },
          outbound,
        );
        const final = staging.get(event) ?? [];
        if (record.status !== 'pending') final.push(record);
        staging.set(event, final);
      }
    }
  };
}

/** Once a change has committed, wakes the delivery workers of this process (others hear of it by NOTIFY). */
export function webhookWakeConsumer(outbox: Outbox): Consumer {
  return (event) => {
    if (event.type === 'webhook.deleted') outbox.forget(String(recordOf(event).id));
    const staged = staging.get(event);
    if (staged && staged.length > 0) outbox.recorded(staged);
    outbox.wake();
    if (staged) outbox.announce();
  };
}

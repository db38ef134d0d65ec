import type { IdGenerator } from '../core/runtime.ts';
import { EVENT_TYPES, WILDCARD } from '../resources/webhooks/schema.ts';
import type { Collections } from '../store/store.ts';
import { AnyOf } from '../store/types.ts';
import type { DeliveryTarget, OutboundEvent } from '../webhooks/types.ts';
import type { Consumer } from './bus.ts';
import { milestoneReached, recordOf } from './derived.ts';
import type { DomainEvent } from './types.ts';

const DELIVERED = new Set<string>(EVENT_TYPES);
const SPRINT_ACTIONS = new Set(['sprint.started', 'sprint.completed']);

/**
 * The webhook events one change produces: `project.*`, `task.*`, `comment.*` as they are; `milestone.reached`
 * when a milestone becomes reached; `sprint.started` / `sprint.completed` when such an activity entry is posted.
 * The payload's `data` is the record (for a delete, the record as it was); an update's also carries `previous`, the
 * old values of the fields it changed.
 */
export function outboundFor(event: DomainEvent, ids: IdGenerator): OutboundEvent[] {
  const out: OutboundEvent[] = [];
  if (DELIVERED.has(event.type)) {
    const { id, type, at: timestamp, record: data, previousValues: previous } = event;
    out.push(event.kind === 'updated' ? { id, type, timestamp, data, previous } : { id, type, timestamp, data });
  }
  if (milestoneReached(event)) {
    out.push({ id: ids('evt'), type: 'milestone.reached', timestamp: event.at, data: event.record });
  }
  if (event.type === 'activity.created') {
    const action = String(recordOf(event).action);
    if (SPRINT_ACTIONS.has(action)) out.push({ id: event.id, type: action, timestamp: event.at, data: event.record });
  }
  return out;
}

/**
 * Queues every webhook event for the active webhooks subscribed to its type or to `*`, once its change has
 * committed. Never waits on delivery.
 */
export function webhookConsumer(
  store: Pick<Collections, 'webhooks'>,
  dispatcher: { enqueue(target: DeliveryTarget, event: OutboundEvent): void; forget(webhookId: string): void },
  ids: IdGenerator,
): Consumer {
  return async (event) => {
    if (event.type === 'webhook.deleted') dispatcher.forget(String(recordOf(event).id));
    for (const outbound of outboundFor(event, ids)) {
      const hooks = await store.webhooks.list({ active: true, events: new AnyOf(outbound.type, WILDCARD) });
      for (const hook of hooks) dispatcher.enqueue({ id: hook.id, url: hook.url, secret: hook.secret }, outbound);
    }
  };
}

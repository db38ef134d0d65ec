import type { IdGenerator } from '../core/runtime.ts';
import { EVENT_TYPES } from '../resources/webhooks/schema.ts';
import { milestoneReached, recordOf } from './derived.ts';
import type { OutboundEvent } from './outbound.ts';
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

import type { ActivityCreate } from '../resources/activity-log/schema.ts';
import type { Consumer } from './bus.ts';
import { labelOf, milestoneReached, nounOf, previousOf, recordOf, taskAssignment, taskStatusChange } from './derived.ts';
import type { DomainEvent, ResourceType } from './types.ts';

/**
 * Resources whose changes the activity log records. Not the log itself, and not notifications: those are
 * a per-user inbox written by the service as a consequence of the changes recorded here.
 */
const AUDITED = new Set<ResourceType>(['project', 'task', 'team', 'comment', 'milestone', 'time_entry', 'webhook']);

/** The activity entries one change produces: `<resource>.<kind>`, plus the specific actions it implies. */
export function activityFor(event: DomainEvent): ActivityCreate[] {
  if (!AUDITED.has(event.resourceType)) return [];
  const record = recordOf(event);
  const noun = nounOf(event);
  const base = { actor: event.actor, resourceType: event.resourceType, resourceId: String(record.id) };
  const entries: ActivityCreate[] = [];

  switch (event.kind) {
    case 'created':
      entries.push({
        ...base,
        action: event.type,
        summary: `Created ${noun} ${labelOf(record)}`,
        metadata: event.resourceType === 'webhook' ? { events: record.events } : {},
      });
      break;
    case 'updated':
      entries.push({
        ...base,
        action: event.type,
        summary: `Updated ${noun} ${labelOf(record)}: ${event.changed!.join(', ')}`,
        metadata: { fields: [...event.changed!] },
      });
      break;
    case 'deleted':
      entries.push({ ...base, action: event.type, summary: `Deleted ${noun} ${labelOf(previousOf(event) ?? record)}`, metadata: {} });
      break;
  }

  const status = taskStatusChange(event);
  if (status) {
    entries.push({
      ...base,
      action: 'task.status_changed',
      summary: `Task ${labelOf(record)}: ${String(status.from)} → ${String(status.to)}`,
      metadata: status,
    });
  }
  const assignment = taskAssignment(event);
  if (assignment) {
    entries.push({
      ...base,
      action: 'task.assigned',
      summary: assignment.to === null ? `Task ${labelOf(record)} unassigned` : `Task ${labelOf(record)} assigned to ${String(assignment.to)}`,
      metadata: assignment,
    });
  }
  if (milestoneReached(event)) {
    entries.push({
      ...base,
      action: 'milestone.reached',
      summary: `Milestone ${labelOf(record)} reached`,
      metadata: { projectId: record.projectId },
    });
  }
  return entries;
}

/** Writes the activity entries of every change. */
export function activityConsumer(log: { record(input: ActivityCreate): Promise<unknown> }): Consumer {
  return async (event) => {
    for (const entry of activityFor(event)) await log.record(entry);
  };
}

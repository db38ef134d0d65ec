import type { ActivityEntry } from '../model/activity.ts';
import type { Collections } from '../store/store.ts';
import type { TransactionalConsumer } from './bus.ts';
import {
  labelOf,
  milestoneReached,
  nounOf,
  previousOf,
  recordOf,
  taskAssignment,
  taskStatusChange,
} from './derived.ts';
import type { DomainEvent, ResourceType } from './types.ts';

/** An entry an event makes: the entry but what the log stamps it with (`id`, `timestamp`). */
export type ActivityDraft = Omit<ActivityEntry, 'id' | 'timestamp'>;

/**
 * Resources whose changes the activity log records. Not the log itself, and not notifications: those are
 * a per-user inbox written by the service as a consequence of the changes recorded here.
 */
const AUDITED = new Set<ResourceType>(['project', 'task', 'team', 'comment', 'milestone', 'time_entry', 'webhook']);

/** The activity entries one change produces: `<resource>.<kind>`, plus the specific actions it implies. */
export function activityFor(event: DomainEvent): ActivityDraft[] {
  if (!AUDITED.has(event.resourceType)) return [];
  const record = recordOf(event);
  const noun = nounOf(event);
  const entries: ActivityDraft[] = [];
  // Each entry is built as one object literal, every field named: entries are kept for the life of the log.
  // A change a cascade made says so: in its summary, and in `metadata.cascadeOf`.
  const cascade = event.cascadeOf;
  const add = (action: string, summary: string, metadata: Record<string, unknown>) =>
    entries.push({
      actor: event.actor,
      resourceType: event.resourceType,
      resourceId: String(record.id),
      action,
      summary: cascade === undefined ? summary : `${summary} (cascade: ${cascade} deleted)`,
      metadata: cascade === undefined ? metadata : { ...metadata, cascadeOf: cascade },
    });

  switch (event.kind) {
    case 'created':
      add(
        event.type,
        `Created ${noun} ${labelOf(record)}`,
        event.resourceType === 'webhook' ? { events: record.events } : {},
      );
      break;
    case 'updated':
      add(event.type, `Updated ${noun} ${labelOf(record)}: ${event.changed!.join(', ')}`, {
        fields: [...event.changed!],
      });
      break;
    case 'deleted':
      add(event.type, `Deleted ${noun} ${labelOf(previousOf(event) ?? record)}`, {});
      break;
  }

  const status = taskStatusChange(event);
  if (status) {
    add('task.status_changed', `Task ${labelOf(record)}: ${String(status.from)} → ${String(status.to)}`, status);
  }
  const assignment = taskAssignment(event);
  if (assignment) {
    const summary =
      assignment.to === null
        ? `Task ${labelOf(record)} unassigned`
        : `Task ${labelOf(record)} assigned to ${String(assignment.to)}`;
    add('task.assigned', summary, assignment);
  }
  if (milestoneReached(event)) {
    add('milestone.reached', `Milestone ${labelOf(record)} reached`, { projectId: record.projectId });
  }
  return entries;
}

/** Writes the activity entries of every change, in the change's transaction. */
export function activityConsumer(log: {
  record(tx: Pick<Collections, 'activity'>, input: ActivityDraft): Promise<unknown>;
}): TransactionalConsumer {
  return async (event, { tx }) => {
    for (const entry of activityFor(event)) await log.record(tx, entry);
  };
}

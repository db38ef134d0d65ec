import type { DomainEvent } from './types.ts';

/** Facts read off a change, shared by the consumers so they agree on what happened. */

type Rec = Record<string, unknown>;

export const recordOf = (event: DomainEvent) => event.record as Rec;
export const previousOf = (event: DomainEvent) => event.previous as Rec | undefined;

/** A milestone became `reached`: created as reached, or updated from another status. */
export function milestoneReached(event: DomainEvent): boolean {
  if (event.resourceType !== 'milestone' || event.kind === 'deleted') return false;
  if (recordOf(event).status !== 'reached') return false;
  return event.kind === 'created' || previousOf(event)?.status !== 'reached';
}

/** A task's status moved: `{ from, to }`. */
export function taskStatusChange(event: DomainEvent): { from: unknown; to: unknown } | undefined {
  if (event.resourceType !== 'task' || event.kind !== 'updated' || !event.changed?.includes('status')) return undefined;
  return { from: previousOf(event)?.status, to: recordOf(event).status };
}

/** A task got a new assignee (or lost one): `{ from, to }`. A task created with an assignee counts, from null. */
export function taskAssignment(event: DomainEvent): { from: unknown; to: unknown } | undefined {
  if (event.resourceType !== 'task') return undefined;
  if (event.kind === 'created') {
    const to = recordOf(event).assignee;
    return to === null || to === undefined ? undefined : { from: null, to };
  }
  if (event.kind !== 'updated' || !event.changed?.includes('assignee')) return undefined;
  return { from: previousOf(event)?.assignee ?? null, to: recordOf(event).assignee ?? null };
}

/** What a record is called in a sentence: its title or name, else its id. */
export function labelOf(record: Rec): string {
  const name = record.title ?? record.name;
  return typeof name === 'string' ? `'${name}'` : String(record.id);
}

/** What a change's record is called in a sentence: its kind in words (`time_entry` → `time entry`). */
export const nounOf = (event: DomainEvent) => event.resourceType.replaceAll('_', ' ');

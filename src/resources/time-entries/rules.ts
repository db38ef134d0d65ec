import { kindNames } from '../../core/names.ts';
import { reference, type ResourceDef } from '../../core/rules.ts';
import { TimeEntryCreate, TimeEntryPatch } from './schema.ts';
import { TimeEntry } from '../../model/time-entry.ts';

const names = kindNames('time entry');

export const timeEntryRules: ResourceDef<TimeEntry, TimeEntryCreate, TimeEntryPatch> = {
  names,
  idPrefix: 'te',
  createSchema: TimeEntryCreate,
  build: (input, now) => ({
    taskId: input.taskId,
    username: input.username,
    hours: input.hours,
    description: input.description!,
    date: input.date ?? now.slice(0, 10), // today, UTC
  }),
  apply: 'merge',
  check: reference('taskId', 'task', (tx, id) => tx.tasks.get(id)),
};

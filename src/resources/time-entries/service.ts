import { ResourceService, reference, type ResourceDef } from '../../core/resource-service.ts';
import { TimeEntryCreate, type TimeEntry, type TimeEntryPatch } from './schema.ts';

export const timeEntryDef: ResourceDef<TimeEntry, TimeEntryCreate, TimeEntryPatch> = {
  type: 'time_entry',
  label: 'Time entry',
  idPrefix: 'te',
  updatedAt: true,
  collection: (store) => store.timeEntries,
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

export type TimeEntryService = ResourceService<TimeEntry, TimeEntryCreate, TimeEntryPatch>;

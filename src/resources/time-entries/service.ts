import { ResourceService, type ResourceDef } from '../../core/resource-service.ts';
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
  async check(entry, tx, previous) {
    if (previous && previous.taskId === entry.taskId) return [];
    return (await tx.tasks.get(entry.taskId)) ? [] : [{ field: 'taskId', message: `task '${entry.taskId}' does not exist` }];
  },
};

export type TimeEntryService = ResourceService<TimeEntry, TimeEntryCreate, TimeEntryPatch>;

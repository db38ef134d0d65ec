import { ResourceService, type ResourceDef, type ServiceDeps } from '../../core/resource-service.ts';
import { TimeEntryCreate, type TimeEntry, type TimeEntryPatch, type TimeEntryQuery } from './schema.ts';

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

export class TimeEntryService extends ResourceService<TimeEntry, TimeEntryCreate, TimeEntryPatch> {
  constructor(deps: ServiceDeps) {
    super(timeEntryDef, deps);
  }

  override list(query: TimeEntryQuery = {}): Promise<TimeEntry[]> {
    return super.list({ taskId: query.taskId, username: query.username, date: query.date });
  }
}

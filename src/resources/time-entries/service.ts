import { ResourceService, type ServiceDeps } from '../../core/resource-service.ts';
import { timeEntryRules } from './rules.ts';
import type { TimeEntryCreate, TimeEntryPatch } from './schema.ts';
import type { TimeEntry } from '../../model/time-entry.ts';

export class TimeEntryService extends ResourceService<
  TimeEntry,
  TimeEntryCreate,
  TimeEntryPatch,
  TimeEntry,
  'timeEntries'
> {
  constructor(deps: ServiceDeps<'timeEntries'>) {
    super(timeEntryRules, deps);
  }
}

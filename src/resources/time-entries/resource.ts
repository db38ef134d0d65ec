import * as seed from '../../store/seed-data.ts';
import { crudResource } from '../resource.ts';
import { TimeEntryPatch, TimeEntryQuery } from './schema.ts';
import { TimeEntryList, TimeEntry } from '../../model/time-entry.ts';
import { timeEntryRules } from './rules.ts';

export const timeEntries = crudResource(timeEntryRules, {
  description: 'Hours logged against a task.',
  samples: seed.timeEntries,
  schemas: { record: TimeEntry, query: TimeEntryQuery, update: TimeEntryPatch },
  list: TimeEntryList,
});

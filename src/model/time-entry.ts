import type { ListSpec } from './list.ts';
import { Type, type Static } from 'typebox';
import { DateOnly, Id, Timestamp } from './schema.ts';

export const TimeEntry = Type.Object({
  id: Id('te'),
  taskId: Type.String(),
  username: Type.String(),
  hours: Type.Number(),
  description: Type.String(),
  date: DateOnly,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type TimeEntry = Static<typeof TimeEntry>;

/** What a list of these records offers beyond its exact filters: `sort`, the range operators, `q`. */
export const TimeEntryList: ListSpec = {
  sort: { date: null, hours: null, username: null, createdAt: null, updatedAt: null },
  ranges: { date: 'date', hours: 'number', createdAt: 'instant', updatedAt: 'instant' },
  search: ['description'],
};

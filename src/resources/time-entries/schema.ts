import { Type, type Static } from 'typebox';
import { Body, DateOnly, Description, Id, Query, Username, patchOf } from '../../schemas/common.ts';

const Hours = Type.Number({
  exclusiveMinimum: 0,
  maximum: 24,
  description: 'Hours worked, more than 0 and at most 24; decimals are kept as sent',
  examples: [1.5],
});

export const TimeEntryCreate = Body({
  taskId: Id('task'),
  username: Username,
  hours: Hours,
  description: Type.Optional({ ...Description, default: '' }),
  date: Type.Optional({ ...DateOnly, description: 'Day worked, `YYYY-MM-DD`; defaults to today (UTC)' }),
});
export type TimeEntryCreate = Static<typeof TimeEntryCreate>;

/** `taskId` is immutable: sent on an update, it is ignored. */
export const TimeEntryPatch = patchOf(TimeEntryCreate, ['taskId']);
export type TimeEntryPatch = Static<typeof TimeEntryPatch>;

export const TimeEntryQuery = Query({
  taskId: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  date: Type.Optional(DateOnly),
});
export type TimeEntryQuery = Static<typeof TimeEntryQuery>;

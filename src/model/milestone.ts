import type { ListSpec } from './list.ts';
import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, StringEnum, Timestamp } from './schema.ts';

export const MILESTONE_STATUSES = ['pending', 'in_progress', 'reached'] as const;

export const Milestone = Type.Object({
  id: Id('ms'),
  projectId: Type.String(),
  title: Type.String(),
  description: Type.String(),
  status: StringEnum(MILESTONE_STATUSES),
  dueDate: Nullable(DateOnly),
  reachedAt: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Milestone = Static<typeof Milestone>;

/** What a list of these records offers beyond its exact filters: `sort`, the range operators, `q`. */
export const MilestoneList: ListSpec = {
  sort: { title: null, status: MILESTONE_STATUSES, dueDate: null, createdAt: null, updatedAt: null },
  ranges: { dueDate: 'date', createdAt: 'instant', updatedAt: 'instant' },
  search: ['title', 'description'],
};

import type { ListSpec } from '../../http/list.ts';
import { Type, type Static } from 'typebox';
import {
  Body,
  DateOnly,
  Description,
  Id,
  Name,
  Nullable,
  Query,
  StringEnum,
  Timestamp,
  patchOf,
} from '../../schemas/common.ts';

export const MILESTONE_STATUSES = ['pending', 'in_progress', 'reached'] as const;
const Status = StringEnum(MILESTONE_STATUSES);

export const Milestone = Type.Object({
  id: Id('ms'),
  projectId: Type.String(),
  title: Type.String(),
  description: Type.String(),
  status: Status,
  dueDate: Nullable(DateOnly),
  reachedAt: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Milestone = Static<typeof Milestone>;

export const MilestoneCreate = Body({
  projectId: Id('proj'),
  title: Name,
  description: Type.Optional({ ...Description, default: '' }),
  status: Type.Optional(StringEnum(MILESTONE_STATUSES, { default: 'pending' })),
  dueDate: Type.Optional({ ...Nullable(DateOnly), default: null }),
});
export type MilestoneCreate = Static<typeof MilestoneCreate>;

/** `projectId` is immutable and `reachedAt` is set by the service: both are ignored when sent. */
export const MilestonePatch = patchOf(MilestoneCreate, ['projectId']);
export type MilestonePatch = Static<typeof MilestonePatch>;

export const MilestoneQuery = Query({
  projectId: Type.Optional(Type.String()),
  status: Type.Optional(Status),
});
export type MilestoneQuery = Static<typeof MilestoneQuery>;

/** What the list offers beyond its exact filters: `sort`, the range operators, `q`. */
export const MilestoneList: ListSpec = {
  sort: { title: null, status: MILESTONE_STATUSES, dueDate: null, createdAt: null, updatedAt: null },
  ranges: { dueDate: 'date', createdAt: 'instant', updatedAt: 'instant' },
  search: ['title', 'description'],
};

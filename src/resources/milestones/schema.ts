import { Type, type Static } from 'typebox';
import { Body, DateOnly, Description, Id, Name, Nullable, Query, StringEnum, patchOf } from '../../schemas/common.ts';
import { MILESTONE_STATUSES } from '../../model/milestone.ts';

const Status = StringEnum(MILESTONE_STATUSES);

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

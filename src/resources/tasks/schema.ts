import { Type, type Static } from 'typebox';
import { Body, Description, Id, Name, Nullable, Query, StringEnum, Username, patchOf } from '../../schemas/common.ts';
import { TASK_PRIORITIES, TASK_STATUSES } from '../../model/task.ts';

const Status = StringEnum(TASK_STATUSES);

export const TaskCreate = Body({
  projectId: Id('proj'),
  title: Name,
  description: Type.Optional({ ...Description, default: '' }),
  status: Type.Optional(StringEnum(TASK_STATUSES, { default: 'todo' })),
  priority: Type.Optional(StringEnum(TASK_PRIORITIES, { default: 'medium' })),
  assignee: Type.Optional({ ...Nullable(Username), default: null }),
});
export type TaskCreate = Static<typeof TaskCreate>;

/** `projectId` is immutable: sent on an update, it is ignored. */
export const TaskPatch = patchOf(TaskCreate, ['projectId']);
export type TaskPatch = Static<typeof TaskPatch>;

export const TaskQuery = Query({
  projectId: Type.Optional(Type.String()),
  assignee: Type.Optional(Type.String()),
  status: Type.Optional(Status),
});
export type TaskQuery = Static<typeof TaskQuery>;

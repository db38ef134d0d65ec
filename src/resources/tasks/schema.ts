import type { ListSpec } from '../../http/list.ts';
import { Type, type Static } from 'typebox';
import {
  Body,
  Description,
  Id,
  Name,
  Nullable,
  Query,
  StringEnum,
  Timestamp,
  Username,
  patchOf,
} from '../../schemas/common.ts';

export const TASK_STATUSES = ['todo', 'in_progress', 'done'] as const;
export const TASK_PRIORITIES = ['low', 'medium', 'high'] as const;
const Status = StringEnum(TASK_STATUSES);
const Priority = StringEnum(TASK_PRIORITIES);

export const Task = Type.Object({
  id: Id('task'),
  projectId: Type.String(),
  title: Type.String(),
  description: Type.String(),
  status: Status,
  priority: Priority,
  assignee: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Task = Static<typeof Task>;

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

/** What the list offers beyond its exact filters: `sort`, the range operators, `q`. */
export const TaskList: ListSpec = {
  sort: { title: null, status: TASK_STATUSES, priority: TASK_PRIORITIES, createdAt: null, updatedAt: null },
  ranges: { createdAt: 'instant', updatedAt: 'instant' },
  search: ['title', 'description'],
};

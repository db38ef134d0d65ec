import type { ListSpec } from './list.ts';
import { Type, type Static } from 'typebox';
import { Id, Nullable, StringEnum, Timestamp } from './schema.ts';

export const TASK_STATUSES = ['todo', 'in_progress', 'done'] as const;
export const TASK_PRIORITIES = ['low', 'medium', 'high'] as const;

export const Task = Type.Object({
  id: Id('task'),
  projectId: Type.String(),
  title: Type.String(),
  description: Type.String(),
  status: StringEnum(TASK_STATUSES),
  priority: StringEnum(TASK_PRIORITIES),
  assignee: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Task = Static<typeof Task>;

/** What a list of these records offers beyond its exact filters: `sort`, the range operators, `q`. */
export const TaskList: ListSpec = {
  sort: { title: null, status: TASK_STATUSES, priority: TASK_PRIORITIES, createdAt: null, updatedAt: null },
  ranges: { createdAt: 'instant', updatedAt: 'instant' },
  search: ['title', 'description'],
};

import { ResourceService, type ResourceDef } from '../../core/resource-service.ts';
import { deleteTaskDependents } from '../cascade.ts';
import { TaskCreate, type Task, type TaskPatch } from './schema.ts';

export const taskDef: ResourceDef<Task, TaskCreate, TaskPatch> = {
  type: 'task',
  label: 'Task',
  idPrefix: 'task',
  updatedAt: true,
  collection: (store) => store.tasks,
  createSchema: TaskCreate,
  build: (input) => ({
    projectId: input.projectId,
    title: input.title,
    description: input.description!,
    status: input.status!,
    priority: input.priority!,
    assignee: input.assignee!,
  }),
  apply: 'merge',
  async check(task, tx, previous) {
    if (previous && previous.projectId === task.projectId) return [];
    return (await tx.projects.get(task.projectId))
      ? []
      : [{ field: 'projectId', message: `project '${task.projectId}' does not exist` }];
  },
  cascade: (task, tx) => deleteTaskDependents(tx, task.id),
};

export type TaskService = ResourceService<Task, TaskCreate, TaskPatch>;

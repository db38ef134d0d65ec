import { ResourceService, reference, type ResourceDef } from '../../core/resource-service.ts';
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
  check: reference('projectId', 'project', (tx, id) => tx.projects.get(id)),
  cascade: (task, tx) => deleteTaskDependents(tx, task.id),
};

export type TaskService = ResourceService<Task, TaskCreate, TaskPatch>;

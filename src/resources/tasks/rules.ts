import { kindNames } from '../../core/names.ts';
import { reference, type ResourceDef } from '../../core/rules.ts';
import { deleteTaskDependents } from '../cascade.ts';
import { TaskCreate, TaskPatch } from './schema.ts';
import { Task } from '../../model/task.ts';

const names = kindNames('task');

export const taskRules: ResourceDef<Task, TaskCreate, TaskPatch> = {
  names,
  idPrefix: 'task',
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
  cascade: (task, tx) => deleteTaskDependents(tx, [task.id]),
};

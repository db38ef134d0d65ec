import * as seed from '../../store/seed-data.ts';
import { crudResource } from '../resource.ts';
import { TaskPatch, TaskQuery } from './schema.ts';
import { TaskList, Task } from '../../model/task.ts';
import { taskRules } from './rules.ts';

export const tasks = crudResource(taskRules, {
  description: 'Tasks of a project, with status, priority and an optional assignee.',
  samples: seed.tasks,
  schemas: { record: Task, query: TaskQuery, update: TaskPatch },
  list: TaskList,
});

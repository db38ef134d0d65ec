import { ResourceService, type ServiceDeps } from '../../core/resource-service.ts';
import { taskRules } from './rules.ts';
import type { TaskCreate, TaskPatch } from './schema.ts';
import type { Task } from '../../model/task.ts';

export class TaskService extends ResourceService<Task, TaskCreate, TaskPatch, Task, 'tasks'> {
  constructor(deps: ServiceDeps<'tasks'>) {
    super(taskRules, deps);
  }
}

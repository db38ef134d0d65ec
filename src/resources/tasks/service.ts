import { ResourceService, type ServiceDeps } from '../../core/resource-service.ts';
import { taskRules } from './resource.ts';
import type { Task, TaskCreate, TaskPatch } from './schema.ts';

export class TaskService extends ResourceService<Task, TaskCreate, TaskPatch, Task, 'tasks'> {
  constructor(deps: ServiceDeps<'tasks'>) {
    super(taskRules, deps);
  }
}

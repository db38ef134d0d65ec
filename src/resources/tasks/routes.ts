import type { FastifyInstance } from 'fastify';
import { registerCrudRoutes } from '../../http/crud.ts';
import { Task, TaskCreate, TaskPatch, TaskQuery } from './schema.ts';
import type { TaskService } from './service.ts';

export function taskRoutes(app: FastifyInstance, service: TaskService): void {
  registerCrudRoutes(app, {
    path: '/api/tasks',
    names: { one: 'Task', many: 'Tasks' },
    service,
    record: Task,
    query: TaskQuery,
    create: { body: TaskCreate },
    update: { method: 'PATCH', body: TaskPatch },
    remove: true,
  });
}

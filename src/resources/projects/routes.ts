import type { FastifyInstance } from 'fastify';
import { registerCrudRoutes } from '../../http/crud.ts';
import { Project, ProjectInput, ProjectQuery } from './schema.ts';
import type { ProjectService } from './service.ts';

export function projectRoutes(app: FastifyInstance, service: ProjectService): void {
  registerCrudRoutes(app, {
    path: '/api/projects',
    names: { one: 'Project', many: 'Projects' },
    service,
    record: Project,
    query: ProjectQuery,
    create: { body: ProjectInput },
    // PUT is a full replacement: omitted fields take their defaults, `id` and `createdAt` are kept.
    update: { method: 'PUT', body: ProjectInput },
    remove: true,
  });
}

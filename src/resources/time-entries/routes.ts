import type { FastifyInstance } from 'fastify';
import { registerCrudRoutes } from '../../http/crud.ts';
import { TimeEntry, TimeEntryCreate, TimeEntryPatch, TimeEntryQuery } from './schema.ts';
import type { TimeEntryService } from './service.ts';

export function timeEntryRoutes(app: FastifyInstance, service: TimeEntryService): void {
  registerCrudRoutes(app, {
    path: '/api/time-entries',
    names: { one: 'Time entry', many: 'Time entries' },
    service,
    record: TimeEntry,
    query: TimeEntryQuery,
    create: { body: TimeEntryCreate },
    update: { method: 'PATCH', body: TimeEntryPatch },
    remove: true,
  });
}

import type { FastifyInstance } from 'fastify';
import { registerCrudRoutes } from '../../http/crud.ts';
import { Milestone, MilestoneCreate, MilestonePatch, MilestoneQuery } from './schema.ts';
import type { MilestoneService } from './service.ts';

export function milestoneRoutes(app: FastifyInstance, service: MilestoneService): void {
  registerCrudRoutes(app, {
    path: '/api/milestones',
    names: { one: 'Milestone', many: 'Milestones' },
    service,
    record: Milestone,
    query: MilestoneQuery,
    create: { body: MilestoneCreate },
    update: { method: 'PATCH', body: MilestonePatch },
    remove: true,
  });
}

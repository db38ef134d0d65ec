import type { FastifyInstance } from 'fastify';
import { registerCrudRoutes } from '../../http/crud.ts';
import { Team, TeamCreate, TeamPatch, TeamSummary } from './schema.ts';
import { summarize, type TeamService } from './service.ts';

export function teamRoutes(app: FastifyInstance, service: TeamService): void {
  registerCrudRoutes(app, {
    path: '/api/teams',
    names: { one: 'Team', many: 'Teams' },
    service,
    record: Team,
    // The collection gives each team in summary form: `memberCount` instead of `members`.
    listItem: { schema: TeamSummary, from: summarize },
    create: { body: TeamCreate },
    update: { method: 'PATCH', body: TeamPatch },
    remove: true,
  });
}

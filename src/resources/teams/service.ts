import { nextTimestamp } from '../../core/runtime.ts';
import { ResourceService, type ResourceDef, type ServiceDeps } from '../../core/resource-service.ts';
import type { ErrorDetail } from '../../errors.ts';
import { TeamCreate, type Team, type TeamPatch, type TeamSummary } from './schema.ts';

export const teamDef = (deps: ServiceDeps): ResourceDef<Team, TeamCreate, TeamPatch> => ({
  type: 'team',
  label: 'Team',
  idPrefix: 'team',
  updatedAt: true,
  collection: (store) => store.teams,
  createSchema: TeamCreate,
  build: (input) => ({ name: input.name, description: input.description!, members: input.members! }),
  apply: 'merge',
  async check(team) {
    const problems: ErrorDetail[] = [];
    const seen = new Set<string>();
    team.members.forEach((m, i) => {
      if (seen.has(m.username))
        problems.push({ field: `members[${i}].username`, message: `'${m.username}' is already a member` });
      seen.add(m.username);
    });
    return problems;
  },
  // Projects of a deleted team stay, without a team.
  async cascade(team, tx) {
    for (const project of await tx.projects.list({ teamId: team.id })) {
      await tx.projects.replace({ ...project, teamId: null, updatedAt: nextTimestamp(deps.clock, project.updatedAt) });
    }
  },
});

export const summarize = (team: Team): TeamSummary => ({
  id: team.id,
  name: team.name,
  description: team.description,
  memberCount: team.members.length,
  createdAt: team.createdAt,
  updatedAt: team.updatedAt,
});

export type TeamService = ResourceService<Team, TeamCreate, TeamPatch>;

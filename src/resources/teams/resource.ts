import { kindNames } from '../../core/names.ts';
import type { ResourceDef } from '../../core/rules.ts';
import type { ErrorDetail } from '../../errors.ts';
import * as seed from '../../store/seed-data.ts';
import { detachTeamProjects } from '../cascade.ts';
import { crudResource } from '../resource.ts';
import { TeamCreate, TeamPatch, TeamSummary } from './schema.ts';
import { TeamList, Team } from '../../model/team.ts';

const names = kindNames('team');

export const teamRules: ResourceDef<Team, TeamCreate, TeamPatch> = {
  names,
  idPrefix: 'team',
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
  cascade: (team, tx, now) => detachTeamProjects(tx, team.id, now),
};

/** A team as the collection lists it: `memberCount` instead of `members`. */
export const summarize = (team: Team): TeamSummary => ({
  id: team.id,
  name: team.name,
  description: team.description,
  memberCount: team.members.length,
  createdAt: team.createdAt,
  updatedAt: team.updatedAt,
});

export const teams = crudResource(teamRules, {
  description: 'Teams and their members (`{ username, role }`); the list gives `memberCount` instead of `members`.',
  samples: seed.teams,
  schemas: { record: Team, update: TeamPatch },
  list: TeamList,
  components: [{ name: 'TeamSummary', schema: TeamSummary, samples: seed.teams.map(summarize) }],
  listItem: { schema: TeamSummary, from: summarize },
});

import { kindNames } from '../../core/names.ts';
import type { ResourceDef } from '../../core/rules.ts';
import type { ErrorDetail } from '../../errors.ts';
import { detachTeamProjects } from '../cascade.ts';
import { TeamCreate, TeamPatch } from './schema.ts';
import { Team } from '../../model/team.ts';

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

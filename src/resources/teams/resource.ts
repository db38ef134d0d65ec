import * as seed from '../../store/seed-data.ts';
import { crudResource } from '../resource.ts';
import { TeamPatch, TeamSummary } from './schema.ts';
import { TeamList, Team } from '../../model/team.ts';
import { teamRules } from './rules.ts';

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

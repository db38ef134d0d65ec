import { ResourceService, type ServiceDeps } from '../../core/resource-service.ts';
import { teamRules } from './rules.ts';
import type { TeamCreate, TeamPatch } from './schema.ts';
import type { Team } from '../../model/team.ts';

export class TeamService extends ResourceService<Team, TeamCreate, TeamPatch, Team, 'teams'> {
  constructor(deps: ServiceDeps<'teams'>) {
    super(teamRules, deps);
  }
}

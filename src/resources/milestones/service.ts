import { ResourceService, type ServiceDeps } from '../../core/resource-service.ts';
import { milestoneRules } from './rules.ts';
import type { MilestoneCreate, MilestonePatch } from './schema.ts';
import type { Milestone } from '../../model/milestone.ts';

export class MilestoneService extends ResourceService<
  Milestone,
  MilestoneCreate,
  MilestonePatch,
  Milestone,
  'milestones'
> {
  constructor(deps: ServiceDeps<'milestones'>) {
    super(milestoneRules, deps);
  }
}

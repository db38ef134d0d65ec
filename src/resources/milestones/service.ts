import { ResourceService, type ServiceDeps } from '../../core/resource-service.ts';
import { milestoneRules } from './resource.ts';
import type { Milestone, MilestoneCreate, MilestonePatch } from './schema.ts';

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

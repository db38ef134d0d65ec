import * as seed from '../../store/seed-data.ts';
import { crudResource } from '../resource.ts';
import { MilestonePatch, MilestoneQuery } from './schema.ts';
import { MilestoneList, Milestone } from '../../model/milestone.ts';
import { milestoneRules } from './rules.ts';

export const milestones = crudResource(milestoneRules, {
  description: 'Milestones of a project; `reachedAt` is set when one first becomes `reached`.',
  samples: seed.milestones,
  schemas: { record: Milestone, query: MilestoneQuery, update: MilestonePatch },
  list: MilestoneList,
});

import { kindNames } from '../../core/names.ts';
import { merge, reference, type ResourceDef } from '../../core/rules.ts';
import { MilestoneCreate, MilestonePatch } from './schema.ts';
import { Milestone } from '../../model/milestone.ts';

const names = kindNames('milestone');

/**
 * `reachedAt` follows the status table of the interface: set when a milestone first becomes `reached`
 * (on create or update), kept on a repeat, and kept when the milestone later leaves `reached`.
 */
const stampReached = (milestone: Milestone, now: string): Milestone =>
  milestone.status === 'reached' && milestone.reachedAt === null ? { ...milestone, reachedAt: now } : milestone;

export const milestoneRules: ResourceDef<Milestone, MilestoneCreate, MilestonePatch> = {
  names,
  idPrefix: 'ms',
  createSchema: MilestoneCreate,
  build: (input, now) => ({
    projectId: input.projectId,
    title: input.title,
    description: input.description!,
    status: input.status!,
    dueDate: input.dueDate!,
    reachedAt: input.status === 'reached' ? now : null,
  }),
  apply: (previous, input, now) => stampReached(merge(previous, input), now),
  check: reference('projectId', 'project', (tx, id) => tx.projects.get(id)),
};

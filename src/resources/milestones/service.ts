import { ResourceService, merge, reference, type ResourceDef } from '../../core/resource-service.ts';
import { MilestoneCreate, type Milestone, type MilestonePatch } from './schema.ts';

/**
 * `reachedAt` follows the status table of the interface: set when a milestone first becomes `reached`
 * (on create or update), kept on a repeat, and kept when the milestone later leaves `reached`.
 */
const stampReached = (milestone: Milestone, now: string): Milestone =>
  milestone.status === 'reached' && milestone.reachedAt === null ? { ...milestone, reachedAt: now } : milestone;

export const milestoneDef: ResourceDef<Milestone, MilestoneCreate, MilestonePatch> = {
  type: 'milestone',
  label: 'Milestone',
  idPrefix: 'ms',
  updatedAt: true,
  collection: (store) => store.milestones,
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

export type MilestoneService = ResourceService<Milestone, MilestoneCreate, MilestonePatch>;

import type { Cascaded, Stamped } from '../core/rules.ts';
import type { ResourceType } from '../events/types.ts';
import type { Collections } from '../store/store.ts';
import { AnyOf } from '../model/list.ts';

/**
 * What goes when a record goes. Kept in one place because the chains cross resources: a project takes its tasks,
 * and each task takes its comments and time entries. Each step is one set-based write, whatever the number of
 * records, and children go before their parents, so that the database's own ON DELETE CASCADE finds nothing left
 * (what it deleted would have no event). Every record deleted is answered, in the order deleted.
 */

const deleted =
  (resourceType: ResourceType) =>
  (record: Stamped): Cascaded => ({ resourceType, kind: 'deleted', record, previous: record });

/** The comments on the tasks `taskIds`, then their time entries. */
export async function deleteTaskDependents(tx: Collections, taskIds: readonly string[]): Promise<Cascaded[]> {
  if (taskIds.length === 0) return [];
  const ids = AnyOf.of(taskIds);
  const comments = await tx.comments.deleteWhere({ targetType: 'task', targetId: ids });
  const entries = await tx.timeEntries.deleteWhere({ taskId: ids });
  return [...comments.map(deleted('comment')), ...entries.map(deleted('time_entry'))];
}

/** The project's tasks (after their comments and time entries), its milestones, the comments on it. */
export async function deleteProjectDependents(tx: Collections, projectId: string): Promise<Cascaded[]> {
  const ofTasks = await deleteTaskDependents(
    tx,
    (await tx.tasks.list({ projectId })).map((t) => t.id),
  );
  const tasks = await tx.tasks.deleteWhere({ projectId });
  const milestones = await tx.milestones.deleteWhere({ projectId });
  const comments = await tx.comments.deleteWhere({ targetType: 'project', targetId: projectId });
  return [
    ...ofTasks,
    ...tasks.map(deleted('task')),
    ...milestones.map(deleted('milestone')),
    ...comments.map(deleted('comment')),
  ];
}

/** The team's projects stay, without a team: each updated, `teamId` null. */
export async function detachTeamProjects(tx: Collections, teamId: string, now: string): Promise<Cascaded[]> {
  const detached = await tx.projects.updateWhere({ teamId }, { teamId: null }, now);
  return detached.map(({ previous, record }) => ({
    resourceType: 'project',
    kind: 'updated',
    record,
    previous,
    changed: ['teamId'],
  }));
}

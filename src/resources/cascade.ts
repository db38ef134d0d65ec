import type { Collections } from '../store/store.ts';

/**
 * What goes when a record goes. Kept in one place because the chains cross resources:
 * a project takes its tasks, and each task takes its comments and time entries.
 */

export async function deleteTaskDependents(tx: Collections, taskId: string): Promise<void> {
  for (const c of await tx.comments.list({ targetType: 'task', targetId: taskId })) await tx.comments.delete(c.id);
  for (const e of await tx.timeEntries.list({ taskId })) await tx.timeEntries.delete(e.id);
}

export async function deleteProjectDependents(tx: Collections, projectId: string): Promise<void> {
  for (const task of await tx.tasks.list({ projectId })) {
    await deleteTaskDependents(tx, task.id);
    await tx.tasks.delete(task.id);
  }
  for (const m of await tx.milestones.list({ projectId })) await tx.milestones.delete(m.id);
  for (const c of await tx.comments.list({ targetType: 'project', targetId: projectId }))
    await tx.comments.delete(c.id);
}

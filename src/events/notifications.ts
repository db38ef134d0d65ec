import type { Notification } from '../model/notification.ts';
import type { Collections } from '../store/store.ts';
import type { TransactionalConsumer, Unit } from './bus.ts';
import { labelOf, milestoneReached, recordOf, taskAssignment } from './derived.ts';
import type { DomainEvent } from './types.ts';

/** A notification an event makes: the notification but what it is given when stored (`id`, `read`, `createdAt`). */
export type NotificationDraft = Omit<Notification, 'id' | 'read' | 'createdAt'>;

/** What the rules read: the task commented on, the project, its team. */
type Readers = Pick<Collections, 'tasks' | 'projects' | 'teams'>;

/**
 * Who hears of a change:
 * - `task_assigned`: a task's new assignee;
 * - `comment_added`: the assignee of the task commented on, or the members of the team of the project commented on;
 * - `milestone_reached`, `project_updated`: the members of the project's team (for `project_updated`, also those of
 *   the team it was moved from).
 * Never the actor who caused it.
 */
export async function notificationsFor(event: DomainEvent, store: Readers): Promise<NotificationDraft[]> {
  const record = recordOf(event);
  const by = event.actor === 'system' ? '' : `${event.actor} `;
  const out: NotificationDraft[] = [];
  const to = (usernames: Iterable<string>, n: Omit<NotificationDraft, 'username'>) => {
    for (const username of new Set(usernames)) if (username !== event.actor) out.push({ username, ...n });
  };

  const assignment = taskAssignment(event);
  if (assignment && typeof assignment.to === 'string') {
    to([assignment.to], {
      type: 'task_assigned',
      message: by ? `${by}assigned you to task ${labelOf(record)}` : `You were assigned to task ${labelOf(record)}`,
      resourceType: 'task',
      resourceId: String(record.id),
    });
  }

  if (event.resourceType === 'comment' && event.kind === 'created') {
    const message = (what: string) => `${String(record.author)} commented on ${what}`;
    if (record.targetType === 'task') {
      const task = await store.tasks.get(String(record.targetId));
      if (task?.assignee) {
        to([task.assignee], {
          type: 'comment_added',
          message: message(`task ${labelOf(task)}`),
          resourceType: 'comment',
          resourceId: String(record.id),
        });
      }
    } else {
      const project = await store.projects.get(String(record.targetId));
      if (project) {
        to(await teamOf(store, project.teamId), {
          type: 'comment_added',
          message: message(`project ${labelOf(project)}`),
          resourceType: 'comment',
          resourceId: String(record.id),
        });
      }
    }
  }

  if (milestoneReached(event)) {
    const project = await store.projects.get(String(record.projectId));
    to(await teamOf(store, project?.teamId ?? null), {
      type: 'milestone_reached',
      message: `Milestone ${labelOf(record)}${project ? ` of project ${labelOf(project)}` : ''} was reached`,
      resourceType: 'milestone',
      resourceId: String(record.id),
    });
  }

  if (event.resourceType === 'project' && event.kind === 'updated') {
    // A project moved from a team (to another or to none) is news to that team's members too; not when the move is
    // the cascade of that team's delete: the team is gone.
    const moved = event.changed?.includes('teamId') && event.cascadeOf === undefined;
    const left = moved ? (event.previousValues?.teamId as string | null) : null;
    to([...(await teamOf(store, record.teamId as string | null)), ...(await teamOf(store, left))], {
      type: 'project_updated',
      message: `${by || 'The service '}updated project ${labelOf(record)} (${event.changed!.join(', ')})`,
      resourceType: 'project',
      resourceId: String(record.id),
    });
  }
  return out;
}

async function teamOf(store: Readers, teamId: string | null): Promise<string[]> {
  if (!teamId) return [];
  const team = await store.teams.get(teamId);
  return team ? team.members.map((m) => m.username) : [];
}

/** Writes the notifications each change calls for, in the change's transaction (read through it too). */
export function notificationConsumer(notifications: {
  createIn(unit: Unit, input: NotificationDraft): Promise<unknown>;
}): TransactionalConsumer {
  return async (event, unit) => {
    for (const n of await notificationsFor(event, unit.tx)) await notifications.createIn(unit, n);
  };
}

import type { ActivityEntry } from '../../resources/activity-log/schema.ts';
import type { Comment } from '../../resources/comments/schema.ts';
import type { Milestone } from '../../resources/milestones/schema.ts';
import type { Notification } from '../../resources/notifications/schema.ts';
import type { Project } from '../../resources/projects/schema.ts';
import type { Task } from '../../resources/tasks/schema.ts';
import type { Team } from '../../resources/teams/schema.ts';
import type { TimeEntry } from '../../resources/time-entries/schema.ts';
import type { WebhookRecord } from '../../resources/webhooks/schema.ts';
import type { Store } from '../store.ts';
import { MemoryActivityLog } from './activity-log.ts';
import { MemoryCollection } from './collection.ts';

/**
 * The in-memory store: the default, emptied at every start. Each collection indexes the fields its list
 * filters and its cascades look up. Writers are serialized by a promise chain; readers never wait.
 */
export class MemoryStore implements Store {
  readonly projects = new MemoryCollection<Project>(['status', 'teamId']);
  readonly tasks = new MemoryCollection<Task>(['projectId', 'assignee', 'status']);
  readonly teams = new MemoryCollection<Team>();
  readonly comments = new MemoryCollection<Comment>(['targetId', 'targetType', 'author']);
  readonly milestones = new MemoryCollection<Milestone>(['projectId', 'status']);
  readonly timeEntries = new MemoryCollection<TimeEntry>(['taskId', 'username', 'date']);
  readonly webhooks = new MemoryCollection<WebhookRecord>(['active', 'events']);
  readonly notifications = new MemoryCollection<Notification>(['username', 'type', 'read']);
  readonly activity = new MemoryActivityLog<ActivityEntry>();

  private tail: Promise<unknown> = Promise.resolve();

  transaction<R>(work: (tx: Store) => Promise<R>): Promise<R> {
    const run = this.tail.then(() => work(this));
    this.tail = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {}
}

import type { ActivityEntry } from '../../src/model/activity.ts';
import type { Comment } from '../../src/model/comment.ts';
import type { Milestone } from '../../src/model/milestone.ts';
import type { Notification } from '../../src/model/notification.ts';
import type { Project } from '../../src/model/project.ts';
import type { Task } from '../../src/model/task.ts';
import type { Team } from '../../src/model/team.ts';
import type { TimeEntry } from '../../src/model/time-entry.ts';
import type { WebhookRecord } from '../../src/model/webhook.ts';
import type { StoredDelivery } from '../../src/store/outbox.ts';

/** Records for the store tests, each with every field in its schema's order; `over` replaces some. */

export const T = (minute: number, second = 0, ms = 0) =>
  `2026-11-22T10:${String(minute).padStart(2, '0')}:${String(second).padStart(2, '0')}.${String(ms).padStart(3, '0')}Z`;
export const ms = (minute: number) => Date.parse(T(minute));

export const team = (id: string, over: Partial<Team> = {}): Team => ({
  id,
  name: `Team ${id}`,
  description: '',
  members: [
    { username: 'alice', role: 'lead' },
    { username: 'bob', role: 'engineer' },
  ],
  createdAt: T(0),
  updatedAt: T(0),
  ...over,
});

export const project = (id: string, over: Partial<Project> = {}): Project => ({
  id,
  name: `Project ${id}`,
  description: 'About it',
  status: 'active',
  teamId: null,
  createdAt: T(1),
  updatedAt: T(1, 2, 345),
  ...over,
});

export const task = (id: string, projectId: string, over: Partial<Task> = {}): Task => ({
  id,
  projectId,
  title: `Task ${id}`,
  description: '',
  status: 'todo',
  priority: 'medium',
  assignee: null,
  createdAt: T(2),
  updatedAt: T(2),
  ...over,
});

export const comment = (id: string, targetType: Comment['targetType'], targetId: string, over: Partial<Comment> = {}) =>
  ({
    id,
    targetType,
    targetId,
    author: 'alice',
    body: 'Looks good',
    createdAt: T(3),
    updatedAt: T(3),
    ...over,
  }) satisfies Comment;

export const milestone = (id: string, projectId: string, over: Partial<Milestone> = {}): Milestone => ({
  id,
  projectId,
  title: `Milestone ${id}`,
  description: '',
  status: 'pending',
  dueDate: null,
  reachedAt: null,
  createdAt: T(4),
  updatedAt: T(4),
  ...over,
});

export const timeEntry = (id: string, taskId: string, over: Partial<TimeEntry> = {}): TimeEntry => ({
  id,
  taskId,
  username: 'bob',
  hours: 1.5,
  description: '',
  date: '2026-11-22',
  createdAt: T(5),
  updatedAt: T(5),
  ...over,
});

export const webhook = (id: string, over: Partial<WebhookRecord> = {}): WebhookRecord => ({
  id,
  url: 'https://hooks.example.com/pm',
  events: ['task.created'],
  active: true,
  description: '',
  secret: 'whsec_AbCdEf123456',
  createdAt: T(6),
  updatedAt: T(6),
  ...over,
});

export const notification = (id: string, over: Partial<Notification> = {}): Notification => ({
  id,
  username: 'alice',
  type: 'task_assigned',
  message: 'You were assigned a task',
  resourceType: 'task',
  resourceId: 'task_1',
  read: false,
  createdAt: T(7),
  ...over,
});

export const activity = (id: string, timestamp: string, over: Partial<ActivityEntry> = {}): ActivityEntry => ({
  id,
  action: 'task.created',
  actor: 'alice',
  resourceType: 'task',
  resourceId: 'task_1',
  summary: `Entry ${id}`,
  metadata: {},
  timestamp,
  ...over,
});

/** A first attempt, pending and due at once, as the outbox stores it. */
export const delivery = (id: string, webhookId: string, over: Partial<StoredDelivery> = {}): StoredDelivery => ({
  id,
  webhookId,
  eventId: `evt_${id}`,
  eventType: 'task.created',
  attempt: 1,
  status: 'pending',
  responseStatus: null,
  error: null,
  durationMs: null,
  createdAt: T(0),
  completedAt: null,
  nextAttemptAt: null,
  url: null,
  queuedMs: null,
  stopReason: null,
  payload: '{}',
  dueAt: T(0),
  force: false,
  leaseUntil: null,
  leasedBy: null,
  ...over,
});

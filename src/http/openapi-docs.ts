import type { TObject, TSchema } from 'typebox';
import { ErrorResponse } from '../errors.ts';
import { ActivityEntry } from '../resources/activity-log/schema.ts';
import { Comment } from '../resources/comments/schema.ts';
import { Milestone } from '../resources/milestones/schema.ts';
import { Notification } from '../resources/notifications/schema.ts';
import { Project } from '../resources/projects/schema.ts';
import { Task } from '../resources/tasks/schema.ts';
import { Team, TeamSummary } from '../resources/teams/schema.ts';
import { summarize } from '../resources/teams/service.ts';
import { TimeEntry } from '../resources/time-entries/schema.ts';
import { Webhook, WebhookWithSecret } from '../resources/webhooks/schema.ts';
import * as seed from '../store/seed-data.ts';

/** The document's tags, in the order the docs page lists them. */
export const TAGS = [
  {
    name: 'Projects',
    description:
      'Projects, optionally owned by a team. `PUT` replaces; delete cascades to tasks, milestones and comments.',
  },
  { name: 'Tasks', description: 'Tasks of a project, with status, priority and an optional assignee.' },
  {
    name: 'Teams',
    description: 'Teams and their members (`{ username, role }`); the list gives `memberCount` instead of `members`.',
  },
  { name: 'Comments', description: 'Comments on a task or a project; only `body` can change.' },
  { name: 'Milestones', description: 'Milestones of a project; `reachedAt` is set when one first becomes `reached`.' },
  { name: 'Time entries', description: 'Hours logged against a task.' },
  {
    name: 'Webhooks',
    description:
      'Subscriptions to domain events, delivered signed (Standard Webhooks); the `secret` is shown once, on create.',
  },
  { name: 'Activity log', description: 'The append-only history of every change, newest first.' },
  { name: 'Notifications', description: 'Per-user notifications the service creates as things change.' },
  { name: 'Health', description: 'Liveness.' },
];

// A notification as the service creates one (none is seeded): dana is told of her assignment to task_001.
const NOTIFICATION = {
  id: 'notif_001',
  username: 'dana',
  type: 'task_assigned',
  message: 'You were assigned to task Design the new homepage',
  resourceType: 'task',
  resourceId: 'task_001',
  read: false,
  createdAt: '2026-11-22T10:00:00.000Z',
};

/** Sample records per collection (as the collection lists them) and the name its errors give a record. */
const COLLECTIONS: Record<string, { label: string; records: readonly { id: string }[] }> = {
  projects: { label: 'Project', records: seed.projects },
  tasks: { label: 'Task', records: seed.tasks },
  teams: { label: 'Team', records: seed.teams },
  comments: { label: 'Comment', records: seed.comments },
  milestones: { label: 'Milestone', records: seed.milestones },
  'time-entries': { label: 'Time entry', records: seed.timeEntries },
  webhooks: { label: 'Webhook', records: seed.webhooks },
  'activity-log': { label: 'Activity log entry', records: [...seed.activity].reverse() },
  notifications: { label: 'Notification', records: [NOTIFICATION] },
};

/**
 * The records the responses carry, as named components (`#/components/schemas/Task`), so that a client
 * generated from the document gets one type per record. Each with its sample records, in its shape.
 */
const RECORDS: Record<string, { schema: TSchema; samples: readonly object[] }> = {
  Project: { schema: Project, samples: seed.projects },
  Task: { schema: Task, samples: seed.tasks },
  Team: { schema: Team, samples: seed.teams },
  TeamSummary: { schema: TeamSummary, samples: seed.teams.map(summarize) },
  Comment: { schema: Comment, samples: seed.comments },
  Milestone: { schema: Milestone, samples: seed.milestones },
  TimeEntry: { schema: TimeEntry, samples: seed.timeEntries },
  Webhook: { schema: Webhook, samples: seed.webhooks },
  WebhookWithSecret: {
    schema: WebhookWithSecret,
    samples: seed.webhooks.map((w) => ({ ...w, secret: 'whsec_AbCdEf123456' })),
  },
  ActivityEntry: { schema: ActivityEntry, samples: COLLECTIONS['activity-log']!.records },
  Notification: { schema: Notification, samples: [NOTIFICATION] },
};
const BY_SCHEMA = new Map(Object.entries(RECORDS).map(([name, r]) => [r.schema, { name, ...r }]));

/** The shared schemas the document names: the error body and the records. */
export const components = (): TSchema[] => [
  { ...ErrorResponse, $id: 'ErrorResponse' },
  ...Object.entries(RECORDS).map(([name, r]) => ({ ...r.schema, $id: name })),
];

/**
 * The samples of the collection a path belongs to (`/api/tasks/:id` → the seeded tasks): an id for the path
 * parameter and delete answers, the 404 message for an unknown id, and a request body made of a sample
 * record's fields (at most `max` of them: a PATCH example shows a partial change).
 */
export function sampleFor(url: string) {
  const collection = COLLECTIONS[url.split('/')[2] ?? ''];
  const first = collection?.records[0] as Record<string, unknown> | undefined;
  if (!collection || !first) return undefined;
  const id = first.id as string;
  return {
    id,
    record: first,
    notFound: `${collection.label} '${id.replace(/_.*/, '_999')}' was not found`,
    body(schema: TSchema, max: number): object | undefined {
      const keys = Object.keys((schema as TObject).properties ?? {}).filter((k) => k in first);
      if (keys.length === 0) return undefined;
      return Object.fromEntries(keys.slice(0, max).map((k) => [k, first[k]]));
    },
  };
}

/**
 * A response schema as the document shows it, with its example: `{ data: record }` or `{ data: [records],
 * count }` whose record is a named component gets a reference to it, and sample records as its example.
 */
export function namedRecords(schema: TSchema): { schema: TSchema; example?: unknown } {
  const props = (schema as TObject).properties;
  const data = props?.data as (TSchema & { items?: TSchema }) | undefined;
  const one = data && BY_SCHEMA.get(data);
  if (one)
    return {
      schema: { ...schema, properties: { ...props, data: ref(one.name) } } as TSchema,
      example: { data: one.samples[0] },
    };
  const many = data?.items && BY_SCHEMA.get(data.items);
  if (!many) return { schema };
  const list = many.samples.slice(0, 2);
  return {
    schema: { ...schema, properties: { ...props, data: { ...data, items: ref(many.name) } } } as TSchema,
    example: { data: list, count: list.length, ...(props.total ? { total: list.length } : {}) },
  };
}

/** A reference to a shared schema, which @fastify/swagger turns into `#/components/schemas/<name>`. */
const ref = (name: string) => ({ $ref: `${name}#` });

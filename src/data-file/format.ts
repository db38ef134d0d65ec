import { Type, type TArray, type TOptional, type TSchema } from 'typebox';
import { ActivityEntry } from '../model/activity.ts';
import { Comment } from '../model/comment.ts';
import { Milestone } from '../model/milestone.ts';
import { Notification } from '../model/notification.ts';
import { Project } from '../model/project.ts';
import { Task } from '../model/task.ts';
import { Team } from '../model/team.ts';
import { TimeEntry } from '../model/time-entry.ts';
import { Token } from '../model/token.ts';
import { Webhook, WebhookWithSecret } from '../model/webhook.ts';
import { Timestamp } from '../model/schema.ts';
import type { Collections } from '../store/store.ts';

/**
 * The data file: the whole store as one JSON object (docs/data-files.md).
 *
 *   { "format": "pm-service/1", "exportedAt": "…", "secrets": true?, "teams": […], "projects": […], … }
 *
 * Each collection is an array of records exactly as the API shows them (ids and timestamps kept); every collection
 * may be left out (it is then empty). A file written with secrets says so with `"secrets": true`: only such a file
 * may give a webhook its `secret` or hold `tokens` (each with the SHA-256 `hash` of its value). The keys may come in
 * any order; records are loaded in the order of `COLLECTIONS` whatever the file's.
 */
export const FORMAT = 'pm-service/1';

/** The collections, in the order their records are loaded: what a record refers to comes before it. */
export const COLLECTIONS = [
  'teams',
  'projects',
  'milestones',
  'tasks',
  'comments',
  'timeEntries',
  'webhooks',
  'notifications',
  'activityLog',
  'tokens',
] as const;
export type CollectionName = (typeof COLLECTIONS)[number];

/** The top-level keys that are not collections. */
export const HEADER_KEYS = ['$schema', 'format', 'exportedAt', 'secrets'] as const;

/** A token as a file written with secrets holds it: as the API shows it, with the hash of its value. */
export const TokenWithHash = Type.Object({
  ...Token.properties,
  hash: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the token value, lowercase hex' }),
});

/** A webhook in a file: `secret` only in a file written with secrets; without one, a fresh secret is made. */
const FileWebhook = Type.Object({ ...Webhook.properties, secret: Type.Optional(WebhookWithSecret.properties.secret) });

/** Each collection: its record schema (as the API shows it), its id prefix, its store collection, its record's name. */
export const COLLECTION_DEFS: Readonly<
  Record<
    CollectionName,
    { readonly schema: TSchema; readonly prefix: string; readonly store: keyof Collections; readonly kind: string }
  >
> = {
  teams: { schema: Team, prefix: 'team', store: 'teams', kind: 'team' },
  projects: { schema: Project, prefix: 'proj', store: 'projects', kind: 'project' },
  milestones: { schema: Milestone, prefix: 'ms', store: 'milestones', kind: 'milestone' },
  tasks: { schema: Task, prefix: 'task', store: 'tasks', kind: 'task' },
  comments: { schema: Comment, prefix: 'cmt', store: 'comments', kind: 'comment' },
  timeEntries: { schema: TimeEntry, prefix: 'te', store: 'timeEntries', kind: 'time entry' },
  webhooks: { schema: FileWebhook, prefix: 'wh', store: 'webhooks', kind: 'webhook' },
  notifications: { schema: Notification, prefix: 'notif', store: 'notifications', kind: 'notification' },
  activityLog: { schema: ActivityEntry, prefix: 'act', store: 'activity', kind: 'activity entry' },
  tokens: { schema: TokenWithHash, prefix: 'tok', store: 'tokens', kind: 'token' },
};

export const isCollection = (key: string): key is CollectionName => Object.hasOwn(COLLECTION_DEFS, key);

/**
 * A copy of `schema` in which every object with declared properties admits no other: a field the record does not
 * have is a mistake in a file (a misspelt name), not something to drop. Free-form objects (an activity entry's
 * `metadata`) declare none and stay open.
 */
export function closed<T extends TSchema>(schema: T): T {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) out[key] = walk(value);
    if (out.type === 'object' && out.properties !== undefined) out.additionalProperties = false;
    return out;
  };
  return walk(schema) as T;
}

/** The closed schema of one collection's records. */
export const recordSchema = (collection: CollectionName): TSchema => closed(COLLECTION_DEFS[collection].schema);

/** The whole file, as a JSON Schema (served at `/api/export.schema.json`, kept in docs/export.schema.json). */
export const DataFileSchema = Type.Object(
  {
    $schema: Type.Optional(
      Type.String({
        description: 'Where an editor finds this schema (ignored by the service): `…/api/export.schema.json`',
      }),
    ),
    format: Type.Literal(FORMAT, { description: 'The format of the file and its version' }),
    exportedAt: Type.Optional({
      ...Timestamp,
      description: 'When the file was written (absent in a hand-written one)',
    }),
    secrets: Type.Optional(
      Type.Boolean({
        description:
          'The file holds secrets (webhook secrets, token hashes): written by `npm run export -- --include-secrets`',
      }),
    ),
    ...(Object.fromEntries(
      COLLECTIONS.map((name) => [name, Type.Optional(Type.Array(recordSchema(name)))]),
    ) as unknown as Record<CollectionName, TOptional<TArray<TSchema>>>),
  },
  {
    title: 'pm-service data file',
    description: 'The whole store, or any part of it: every collection may be left out. docs/data-files.md.',
    additionalProperties: false,
  },
);

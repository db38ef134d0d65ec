/**
 * How each kind of record maps to its table: every field, in the order of its schema, with its column and type.
 * The SQL of the store is derived from these: the select list returns rows that are the records themselves
 * (same keys, same order, same values as written).
 */

export type ColumnType = 'text' | 'boolean' | 'timestamptz' | 'date' | 'numeric' | 'jsonb' | 'text[]';

export interface Column {
  readonly field: string;
  readonly column: string;
  readonly type: ColumnType;
  /** How the column is read, when not as it is stored. */
  readonly read?: string;
}

export interface Table {
  readonly name: string;
  readonly columns: readonly Column[];
}

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function table(
  name: string,
  fields: Record<string, ColumnType>,
  columns: Record<string, string> = {},
  reads: Record<string, string> = {},
): Table {
  return {
    name,
    columns: Object.entries(fields).map(([field, type]) => ({
      field,
      column: columns[field] ?? snake(field),
      type,
      ...(reads[field] ? { read: reads[field] } : {}),
    })),
  };
}

const stamps = { createdAt: 'timestamptz', updatedAt: 'timestamptz' } as const;

export const TABLES = {
  teams: table(
    'teams',
    { id: 'text', name: 'text', description: 'text', members: 'jsonb', ...stamps },
    {},
    // jsonb keeps an object's keys in its own order (shortest first): members are rebuilt as `json`, whose
    // objects keep the order written, so that they read back as `{ username, role }`.
    {
      members:
        `(SELECT coalesce(json_agg(json_build_object('username', m->'username', 'role', m->'role') ORDER BY i), ` +
        `'[]') FROM jsonb_array_elements(members) WITH ORDINALITY AS e(m, i))`,
    },
  ),
  projects: table('projects', {
    id: 'text',
    name: 'text',
    description: 'text',
    status: 'text',
    teamId: 'text',
    ...stamps,
  }),
  tasks: table('tasks', {
    id: 'text',
    projectId: 'text',
    title: 'text',
    description: 'text',
    status: 'text',
    priority: 'text',
    assignee: 'text',
    ...stamps,
  }),
  comments: table('comments', {
    id: 'text',
    targetType: 'text',
    targetId: 'text',
    author: 'text',
    body: 'text',
    ...stamps,
  }),
  milestones: table('milestones', {
    id: 'text',
    projectId: 'text',
    title: 'text',
    description: 'text',
    status: 'text',
    dueDate: 'date',
    reachedAt: 'timestamptz',
    ...stamps,
  }),
  timeEntries: table('time_entries', {
    id: 'text',
    taskId: 'text',
    username: 'text',
    hours: 'numeric',
    description: 'text',
    date: 'date',
    ...stamps,
  }),
  webhooks: table('webhooks', {
    id: 'text',
    url: 'text',
    events: 'text[]',
    active: 'boolean',
    description: 'text',
    secret: 'text',
    ...stamps,
  }),
  notifications: table('notifications', {
    id: 'text',
    username: 'text',
    type: 'text',
    message: 'text',
    resourceType: 'text',
    resourceId: 'text',
    read: 'boolean',
    createdAt: 'timestamptz',
  }),
  activity: table(
    'activity_log',
    {
      id: 'text',
      action: 'text',
      actor: 'text',
      resourceType: 'text',
      resourceId: 'text',
      summary: 'text',
      metadata: 'jsonb',
      timestamp: 'timestamptz',
    },
    { timestamp: 'occurred_at' },
  ),
  tokens: table(
    'tokens',
    {
      id: 'text',
      username: 'text',
      scopes: 'text[]',
      description: 'text',
      expiresAt: 'timestamptz',
      createdAt: 'timestamptz',
      lastUsedAt: 'timestamptz',
      hash: 'text',
    },
    { hash: 'token_hash' },
  ),
} as const satisfies Record<string, Table>;

/**
 * The fields whose column may hold NULL, by table: only their order spells out where nulls go (`NULLS LAST`), so
 * that the order of every other column is one an index on it serves in either direction.
 */
export const NULLABLE: Readonly<Record<string, readonly string[]>> = {
  projects: ['teamId'],
  tasks: ['assignee'],
  milestones: ['dueDate', 'reachedAt'],
  notifications: ['resourceType', 'resourceId'],
};

/**
 * The advisory locks of the store (`pg_advisory_xact_lock(namespace, key)`): one for seeding (or emptying and
 * seeding again), one for applying migrations. The namespace keeps them apart from other applications' locks on
 * the database. `webhooks` is a namespace of its own, for a lock per webhook (keyed by a hash of its id).
 */
export const LOCK = { namespace: 0x706d, seed: 1, migrations: 2, webhooks: 0x706e } as const;

/** Every table of the store's records, parents before children (the order to load them in). */
export const RECORD_TABLES: readonly string[] = Object.values(TABLES).map((t) => t.name);

/** A column as the record holds it: instants in `toISOString()` form, dates `YYYY-MM-DD`, hours a number. */
export function selectExpression(c: Column): string {
  const as = `"${c.field}"`;
  if (c.read) return `${c.read} AS ${as}`;
  switch (c.type) {
    case 'timestamptz':
      return `to_char(${c.column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${as}`;
    case 'date':
      return `to_char(${c.column}, 'YYYY-MM-DD') AS ${as}`;
    case 'numeric':
      return `${c.column}::float8 AS ${as}`;
    default:
      return `${c.column} AS ${as}`;
  }
}

/** A parameter for a column, cast so that both drivers send it as text the column's type reads. */
export function parameter(c: Column, n: number): string {
  return c.type === 'jsonb' ? `$${n}::text::jsonb` : `$${n}::${c.type}`;
}

/** A field's value as a parameter. */
export function toParameter(c: Column, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (c.type === 'jsonb') return JSON.stringify(value);
  if (c.type === 'numeric') return String(value);
  return value;
}

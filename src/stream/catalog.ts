import { AppError } from '../errors.ts';
import type { ResourceType } from '../events/types.ts';

/** The kinds of record whose changes the stream sends, and the changes each can have. */
const CHANGES: Readonly<Record<ResourceType, readonly string[]>> = {
  project: ['created', 'updated', 'deleted'],
  task: ['created', 'updated', 'deleted'],
  team: ['created', 'updated', 'deleted'],
  comment: ['created', 'updated', 'deleted'],
  milestone: ['created', 'updated', 'deleted'],
  time_entry: ['created', 'updated', 'deleted'],
  webhook: ['created', 'updated', 'deleted'],
  notification: ['created', 'updated', 'deleted'],
  // Entries posted by clients; the service's own entries are part of the changes they record.
  activity: ['created'],
};

/** Every event type the stream sends: each change of each kind of record, and what some changes mean. */
export const STREAM_EVENT_TYPES: readonly string[] = [
  ...Object.entries(CHANGES).flatMap(([resource, kinds]) => kinds.map((kind) => `${resource}.${kind}`)),
  'milestone.reached',
  'sprint.started',
  'sprint.completed',
];

/** What a client sees first when its `Last-Event-ID` cannot be resumed from. */
export const RESET_EVENT = 'stream.reset';

const KNOWN = new Set(STREAM_EVENT_TYPES);
const PREFIXES = new Set(STREAM_EVENT_TYPES.map((type) => type.slice(0, type.indexOf('.'))));

/** Which events a client asked for. */
export interface StreamFilter {
  /** The exact types and `<prefix>.` of `<prefix>.*`; undefined: every type. */
  readonly types?: { readonly exact: ReadonlySet<string>; readonly prefixes: readonly string[] };
  readonly projectId?: string;
}

/**
 * The `types` and `projectId` parameters as a filter. `types`: a comma-separated list of exact types or
 * `<resource>.*`; anything else is a `VALIDATION_ERROR` naming the values not understood.
 */
export function parseFilter(query: { types?: string; projectId?: string }): StreamFilter {
  const projectId = query.projectId?.trim() || undefined;
  if (query.types === undefined) return { projectId };
  const exact = new Set<string>();
  const prefixes: string[] = [];
  const unknown: string[] = [];
  for (const raw of query.types.split(',')) {
    const value = raw.trim();
    if (value.endsWith('.*') && PREFIXES.has(value.slice(0, -2))) prefixes.push(value.slice(0, -1));
    else if (KNOWN.has(value)) exact.add(value);
    else unknown.push(value);
  }
  if (unknown.length > 0 || (exact.size === 0 && prefixes.length === 0)) {
    const listed = unknown.length > 0 ? unknown.map((v) => JSON.stringify(v)).join(', ') : 'none';
    throw new AppError('VALIDATION_ERROR', undefined, [
      {
        field: 'types',
        message: `unknown event types: ${listed}; use exact types (${STREAM_EVENT_TYPES.join(', ')}) or <resource>.*`,
      },
    ]);
  }
  return { projectId, types: { exact, prefixes } };
}

/** Whether an event of `type`, about `projectId`, passes `filter`. */
export function matches(filter: StreamFilter, type: string, projectId: string | null): boolean {
  if (filter.projectId !== undefined && projectId !== filter.projectId) return false;
  const types = filter.types;
  if (types === undefined || types.exact.has(type)) return true;
  for (const prefix of types.prefixes) if (type.startsWith(prefix)) return true;
  return false;
}

/**
 * The same text for filters that let the same events through (the same types, in any order, and project): clients
 * whose filters share it are sent the same text.
 */
export function filterKey(filter: StreamFilter): string {
  const types = filter.types;
  const typesKey =
    types === undefined ? '*' : `${[...types.exact].sort().join(',')};${[...new Set(types.prefixes)].sort().join(',')}`;
  return filter.projectId === undefined ? `${typesKey}|` : `${typesKey}|=${filter.projectId}`;
}

import { listQuery, nextCursorOf, PAGE_HEADERS } from '../../http/list.ts';
import { type ListSpec } from '../../model/list.ts';
import { Type, type Static } from 'typebox';
import { Body, LIMITS, Query, RequiredText, Text } from '../../schemas/common.ts';
import { ActivityEntry } from '../../model/activity.ts';

export const ActivityCreate = Body({
  action: RequiredText(LIMITS.username, {
    description: '`<resource>.<verb>`, e.g. `task.status_changed`',
    examples: ['sprint.started'],
  }),
  actor: RequiredText(LIMITS.username, { examples: ['alice'] }),
  resourceType: RequiredText(LIMITS.username, { examples: ['project'] }),
  resourceId: RequiredText(LIMITS.name, { examples: ['proj_001'] }),
  summary: Type.Optional(Text(LIMITS.text, { default: '' })),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { default: {} })),
});
export type ActivityCreate = Static<typeof ActivityCreate>;

const Instant = (description: string) =>
  Type.String({ format: 'iso-instant', description: `${description}; ISO 8601 (a date alone is midnight UTC)` });

export const ActivityQuery = Query({
  action: Type.Optional(Type.String()),
  actor: Type.Optional(Type.String()),
  resourceType: Type.Optional(Type.String()),
  resourceId: Type.Optional(Type.String()),
  since: Type.Optional(Instant('Inclusive lower bound on `timestamp`')),
  until: Type.Optional(Instant('Inclusive upper bound on `timestamp`')),
  limit: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1_000_000_000,
      description: 'Maximum number of entries returned (0 gives only `total`)',
    }),
  ),
});
export type ActivityQuery = Static<typeof ActivityQuery>;

/** What the log's list offers beyond its exact filters and window: `sort`, ranges on `timestamp`, `q`. */
export const ActivityListSpec: ListSpec = {
  sort: { timestamp: null, action: null, actor: null, resourceType: null },
  ranges: { timestamp: 'instant' },
  search: ['action', 'summary'],
  documentLimit: true,
};

/** The log's query: its filters, window and `limit` (0 gives only `total`), then those of every list. */
export const ActivityListQuery = listQuery(
  ActivityQuery,
  ActivityListSpec,
  'newest first (`-timestamp`); entries of the same instant, in any order, newest appended first',
);

export const ActivityList = Type.Object(
  {
    data: Type.Array(ActivityEntry),
    count: Type.Integer({ minimum: 0, description: 'Entries returned (after `limit`)' }),
    total: Type.Integer({ minimum: 0, description: 'Matching entries before `limit`' }),
    // The log's `limit` is the document's own: alone it keeps the document's answer (the next page is in `Link`).
    nextCursor: nextCursorOf('`cursor`'),
  },
  { headers: PAGE_HEADERS },
);

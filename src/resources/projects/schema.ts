import type { ListSpec } from '../../http/list.ts';
import { Type, type Static } from 'typebox';
import { Body, Description, Id, Name, Nullable, Query, StringEnum, Timestamp } from '../../schemas/common.ts';

export const PROJECT_STATUSES = ['planned', 'active', 'completed'] as const;
const Status = StringEnum(PROJECT_STATUSES);

export const Project = Type.Object({
  id: Id('proj'),
  name: Type.String(),
  description: Type.String(),
  status: Status,
  teamId: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Project = Static<typeof Project>;

/** Create and replace (PUT) take the same body: omitted fields take their defaults. */
export const ProjectInput = Body({
  name: Name,
  description: Type.Optional({ ...Description, default: '' }),
  status: Type.Optional(StringEnum(PROJECT_STATUSES, { default: 'planned' })),
  teamId: Type.Optional({ ...Nullable(Id('team')), default: null }),
});
export type ProjectInput = Static<typeof ProjectInput>;

export const ProjectQuery = Query({ status: Type.Optional(Status) });
export type ProjectQuery = Static<typeof ProjectQuery>;

/** What the list offers beyond its exact filters: `sort`, the range operators, `q`. */
export const ProjectList: ListSpec = {
  sort: { name: null, status: PROJECT_STATUSES, createdAt: null, updatedAt: null },
  ranges: { createdAt: 'instant', updatedAt: 'instant' },
  search: ['name', 'description'],
};

import type { ListSpec } from './list.ts';
import { Type, type Static } from 'typebox';
import { Id, Nullable, StringEnum, Timestamp } from './schema.ts';

export const PROJECT_STATUSES = ['planned', 'active', 'completed'] as const;

export const Project = Type.Object({
  id: Id('proj'),
  name: Type.String(),
  description: Type.String(),
  status: StringEnum(PROJECT_STATUSES),
  teamId: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Project = Static<typeof Project>;

/** What a list of these records offers beyond its exact filters: `sort`, the range operators, `q`. */
export const ProjectList: ListSpec = {
  sort: { name: null, status: PROJECT_STATUSES, createdAt: null, updatedAt: null },
  ranges: { createdAt: 'instant', updatedAt: 'instant' },
  search: ['name', 'description'],
};

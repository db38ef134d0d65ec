import type { ListSpec } from './list.ts';
import { Type, type Static } from 'typebox';
import { Id, Timestamp } from './schema.ts';

export const Team = Type.Object({
  id: Id('team'),
  name: Type.String(),
  description: Type.String(),
  members: Type.Array(Type.Object({ username: Type.String(), role: Type.String() })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Team = Static<typeof Team>;

/** What a list of these records offers beyond its exact filters: `sort`, the range operators, `q`. */
export const TeamList: ListSpec = {
  sort: { name: null, createdAt: null, updatedAt: null },
  ranges: { createdAt: 'instant', updatedAt: 'instant' },
  search: ['name', 'description'],
};

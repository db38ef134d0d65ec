import type { ListSpec } from '../../http/list.ts';
import { Type, type Static } from 'typebox';
import {
  Body,
  Description,
  Id,
  LIMITS,
  Name,
  Query,
  RequiredText,
  Timestamp,
  Username,
  patchOf,
} from '../../schemas/common.ts';

export const Member = Type.Object({
  username: Username,
  role: RequiredText(LIMITS.username, {
    description: 'Free-form role such as `lead`, `engineer`, `designer`',
    examples: ['lead'],
  }),
});
export type Member = Static<typeof Member>;

export const MAX_MEMBERS = 1_000;

export const Team = Type.Object({
  id: Id('team'),
  name: Type.String(),
  description: Type.String(),
  members: Type.Array(Type.Object({ username: Type.String(), role: Type.String() })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Team = Static<typeof Team>;

/** A team in the collection response: `memberCount` instead of `members`. */
export const TeamSummary = Type.Object({
  id: Id('team'),
  name: Type.String(),
  description: Type.String(),
  memberCount: Type.Integer({ minimum: 0 }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type TeamSummary = Static<typeof TeamSummary>;

export const TeamCreate = Body({
  name: Name,
  description: Type.Optional({ ...Description, default: '' }),
  members: Type.Optional(
    Type.Array(Member, { maxItems: MAX_MEMBERS, default: [], description: 'Each username at most once' }),
  ),
});
export type TeamCreate = Static<typeof TeamCreate>;

/** `members`, when sent, replaces the whole list. */
export const TeamPatch = patchOf(TeamCreate);
export type TeamPatch = Static<typeof TeamPatch>;

export const TeamQuery = Query({});

/** What the list offers beyond its exact filters: `sort`, the range operators, `q`. */
export const TeamList: ListSpec = {
  sort: { name: null, createdAt: null, updatedAt: null },
  ranges: { createdAt: 'instant', updatedAt: 'instant' },
  search: ['name', 'description'],
};

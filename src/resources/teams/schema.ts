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

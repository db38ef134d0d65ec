import type { ListSpec } from '../../http/list.ts';
import { Type, type Static } from 'typebox';
import { Body, Id, LIMITS, Query, StringEnum, Text, Timestamp, Username } from '../../schemas/common.ts';

export const COMMENT_TARGETS = ['task', 'project'] as const;
const TargetType = StringEnum(COMMENT_TARGETS);

export const Comment = Type.Object({
  id: Id('cmt'),
  targetType: TargetType,
  targetId: Type.String(),
  author: Type.String(),
  body: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Comment = Static<typeof Comment>;

export const CommentCreate = Body({
  targetType: TargetType,
  targetId: Type.String({ minLength: 1, maxLength: 100, description: 'ID of an existing task or project' }),
  author: Username,
  body: Type.Optional(Text(LIMITS.text, { default: '' })),
});
export type CommentCreate = Static<typeof CommentCreate>;

/** Only `body` can change; `targetType`, `targetId` and `author` sent on an update are ignored. */
export const CommentPatch = Body({ body: Type.Optional(Text(LIMITS.text)) });
export type CommentPatch = Static<typeof CommentPatch>;

export const CommentQuery = Query({
  targetType: Type.Optional(TargetType),
  targetId: Type.Optional(Type.String()),
  author: Type.Optional(Type.String()),
});
export type CommentQuery = Static<typeof CommentQuery>;

/** What the list offers beyond its exact filters: `sort`, the range operators, `q`. */
export const CommentList: ListSpec = {
  sort: { author: null, createdAt: null, updatedAt: null },
  ranges: { createdAt: 'instant', updatedAt: 'instant' },
  search: ['body'],
};

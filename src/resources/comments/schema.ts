import { Type, type Static } from 'typebox';
import { Body, LIMITS, Query, StringEnum, Text, Username } from '../../schemas/common.ts';
import { COMMENT_TARGETS } from '../../model/comment.ts';

const TargetType = StringEnum(COMMENT_TARGETS);

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

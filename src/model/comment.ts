import type { ListSpec } from './list.ts';
import { Type, type Static } from 'typebox';
import { Id, StringEnum, Timestamp } from './schema.ts';

export const COMMENT_TARGETS = ['task', 'project'] as const;

export const Comment = Type.Object({
  id: Id('cmt'),
  targetType: StringEnum(COMMENT_TARGETS),
  targetId: Type.String(),
  author: Type.String(),
  body: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Comment = Static<typeof Comment>;

/** What a list of these records offers beyond its exact filters: `sort`, the range operators, `q`. */
export const CommentList: ListSpec = {
  sort: { author: null, createdAt: null, updatedAt: null },
  ranges: { createdAt: 'instant', updatedAt: 'instant' },
  search: ['body'],
};

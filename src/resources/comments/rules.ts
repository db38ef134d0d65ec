import { kindNames } from '../../core/names.ts';
import { reference, type ResourceDef } from '../../core/rules.ts';
import { CommentCreate, CommentPatch } from './schema.ts';
import { Comment } from '../../model/comment.ts';

const names = kindNames('comment');

export const commentRules: ResourceDef<Comment, CommentCreate, CommentPatch> = {
  names,
  idPrefix: 'cmt',
  createSchema: CommentCreate,
  build: (input) => ({
    targetType: input.targetType,
    targetId: input.targetId,
    author: input.author,
    body: input.body!,
  }),
  defaultActor: (comment) => comment.author,
  // Only `body` is in the update schema: the target and author cannot change.
  apply: 'merge',
  // The target is immutable: checked on create only (an update leaves `targetId` unchanged).
  check: reference(
    'targetId',
    (comment) => comment.targetType,
    (tx, id, comment) => (comment.targetType === 'task' ? tx.tasks.get(id) : tx.projects.get(id)),
  ),
};

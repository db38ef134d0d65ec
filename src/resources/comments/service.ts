import { ResourceService, reference, type ResourceDef } from '../../core/resource-service.ts';
import { CommentCreate, type Comment, type CommentPatch } from './schema.ts';

export const commentDef: ResourceDef<Comment, CommentCreate, CommentPatch> = {
  type: 'comment',
  label: 'Comment',
  idPrefix: 'cmt',
  updatedAt: true,
  collection: (store) => store.comments,
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

export type CommentService = ResourceService<Comment, CommentCreate, CommentPatch>;

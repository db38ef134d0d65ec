import { ResourceService, type ResourceDef } from '../../core/resource-service.ts';
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
  async check(comment, tx, previous) {
    if (previous) return [];
    const target =
      comment.targetType === 'task' ? await tx.tasks.get(comment.targetId) : await tx.projects.get(comment.targetId);
    return target ? [] : [{ field: 'targetId', message: `${comment.targetType} '${comment.targetId}' does not exist` }];
  },
};

export type CommentService = ResourceService<Comment, CommentCreate, CommentPatch>;

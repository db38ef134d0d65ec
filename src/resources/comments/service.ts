import { ResourceService, type ServiceDeps } from '../../core/resource-service.ts';
import { commentRules } from './rules.ts';
import type { CommentCreate, CommentPatch } from './schema.ts';
import type { Comment } from '../../model/comment.ts';

export class CommentService extends ResourceService<Comment, CommentCreate, CommentPatch, Comment, 'comments'> {
  constructor(deps: ServiceDeps<'comments'>) {
    super(commentRules, deps);
  }
}

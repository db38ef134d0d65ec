import * as seed from '../../store/seed-data.ts';
import { crudResource } from '../resource.ts';
import { CommentPatch, CommentQuery } from './schema.ts';
import { CommentList, Comment } from '../../model/comment.ts';
import { commentRules } from './rules.ts';

export const comments = crudResource(commentRules, {
  description: 'Comments on a task or a project; only `body` can change.',
  samples: seed.comments,
  schemas: { record: Comment, query: CommentQuery, update: CommentPatch },
  list: CommentList,
});

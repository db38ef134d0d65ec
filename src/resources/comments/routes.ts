import type { FastifyInstance } from 'fastify';
import { registerCrudRoutes } from '../../http/crud.ts';
import { Comment, CommentCreate, CommentPatch, CommentQuery } from './schema.ts';
import type { CommentService } from './service.ts';

export function commentRoutes(app: FastifyInstance, service: CommentService): void {
  registerCrudRoutes(app, {
    path: '/api/comments',
    names: { one: 'Comment', many: 'Comments' },
    service,
    record: Comment,
    query: CommentQuery,
    create: { body: CommentCreate },
    update: { method: 'PATCH', body: CommentPatch },
    remove: true,
  });
}

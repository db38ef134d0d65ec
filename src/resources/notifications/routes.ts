import type { KindNames } from '../../core/names.ts';
import { contextOf } from '../../http/context.ts';
import { sendRecord } from '../../http/etag.ts';
import type { TypedApp } from '../../http/typed.ts';
import { IdParams, IfMatchHeaders, One, errorResponses } from '../../schemas/common.ts';
import { MarkedRead, ReadAllQuery } from './schema.ts';
import { Notification } from '../../model/notification.ts';
import type { NotificationService } from './service.ts';

/** Marking read, one or all. Both PATCH routes take no body: an empty one, with or without a JSON type, is accepted. */
export function markRoutes(app: TypedApp, service: NotificationService, { path, tag }: KindNames): void {
  app.patch(`${path}/read-all`, {
    schema: {
      operationId: 'markAllNotificationsRead',
      tags: [tag],
      summary: 'Mark every unread notification read (of one user, with `username`)',
      querystring: ReadAllQuery,
      response: { 200: MarkedRead, ...errorResponses(400) },
    },
    handler: async (request) => ({
      data: { markedRead: await service.markAllRead(request.query.username, contextOf(request)) },
    }),
  });

  app.patch(`${path}/:id/read`, {
    schema: {
      operationId: 'markNotificationRead',
      tags: [tag],
      summary: 'Mark a notification read',
      params: IdParams,
      headers: IfMatchHeaders,
      response: { 200: One(Notification), ...errorResponses(404, 412) },
    },
    handler: async (request, reply) =>
      sendRecord(request, reply, await service.markRead(request.params.id, contextOf(request))),
  });
}

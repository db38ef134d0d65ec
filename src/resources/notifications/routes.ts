import type { FastifyInstance } from 'fastify';
import { contextOf } from '../../http/context.ts';
import { registerCrudRoutes } from '../../http/crud.ts';
import { sendRecord } from '../../http/etag.ts';
import { IdParams, IfMatchHeaders, One, errorResponses } from '../../schemas/common.ts';
import { MarkedRead, Notification, NotificationCreate, NotificationQuery, ReadAllQuery } from './schema.ts';
import type { NotificationService } from './service.ts';

export function notificationRoutes(app: FastifyInstance, service: NotificationService): void {
  registerCrudRoutes(app, {
    path: '/api/notifications',
    names: { one: 'Notification', many: 'Notifications' },
    service,
    record: Notification,
    query: NotificationQuery,
    create: { body: NotificationCreate },
    remove: true,
  });

  // Both PATCH routes take no body: an empty one, with or without a JSON content type, is accepted.
  app.patch('/api/notifications/read-all', {
    schema: {
      operationId: 'markAllNotificationsRead',
      tags: ['Notifications'],
      summary: 'Mark every unread notification read (of one user, with `username`)',
      querystring: ReadAllQuery,
      response: { 200: MarkedRead, ...errorResponses(400) },
    },
    handler: async (request) => {
      const { username } = request.query as ReadAllQuery;
      return { data: { markedRead: await service.markAllRead(username, contextOf(request)) } };
    },
  });

  app.patch('/api/notifications/:id/read', {
    schema: {
      operationId: 'markNotificationRead',
      tags: ['Notifications'],
      summary: 'Mark a notification read',
      params: IdParams,
      headers: IfMatchHeaders,
      response: { 200: One(Notification), ...errorResponses(404, 412) },
    },
    handler: async (request, reply) =>
      sendRecord(request, reply, await service.markRead((request.params as IdParams).id, contextOf(request))),
  });
}

import { Type } from 'typebox';
import type { KindNames } from '../../core/names.ts';
import type { TypedApp } from '../../http/typed.ts';
import { IdParams, Many, One, Query, StringEnum, errorResponses } from '../../schemas/common.ts';
import { DELIVERY_STATUSES, DeliveryRecord } from '../../webhooks/types.ts';
import { parseInstant } from '../../core/runtime.ts';
import type { DeliveryService } from './deliveries.ts';

const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 200 }),
});

const Instant = (description: string) =>
  Type.String({ format: 'iso-instant', description: `${description}; ISO 8601 (a date alone is midnight UTC)` });

const DeliveryQuery = Query({
  status: Type.Optional(StringEnum(DELIVERY_STATUSES)),
  eventType: Type.Optional(Type.String({ maxLength: 100 })),
  since: Type.Optional(Instant('Inclusive lower bound on `createdAt`')),
  until: Type.Optional(Instant('Inclusive upper bound on `createdAt`')),
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Maximum number of attempts' })),
});

const SinceQuery = Query({ since: Instant('Events whose delivery failed among the attempts made since then') });

const asIso = (value: string | undefined) =>
  value === undefined ? undefined : new Date(parseInstant(value)).toISOString();

/** The delivery log of a webhook, redelivery, and a test event. */
export function deliveryRoutes(app: TypedApp, deliveries: DeliveryService, { path, tag }: KindNames): void {
  const tags = [tag];
  app.get(`${path}/:id/deliveries`, {
    schema: {
      operationId: 'listWebhookDeliveries',
      tags,
      summary: 'Delivery attempts of a webhook, newest first',
      description:
        'Filtered by `status`, `eventType` and `createdAt` (`since`, `until`), at most `limit`. The memory store ' +
        'keeps the last `WEBHOOK_HISTORY` attempts per webhook; a durable store keeps `WEBHOOK_HISTORY_DAYS` days.',
      params: IdParams,
      querystring: DeliveryQuery,
      response: { 200: Many(DeliveryRecord), ...errorResponses(400, 404) },
    },
    handler: async (request) => {
      const q = request.query;
      const data = await deliveries.list(request.params.id, {
        status: q.status,
        eventType: q.eventType,
        since: asIso(q.since),
        until: asIso(q.until),
        limit: q.limit,
      });
      return { data, count: data.length };
    },
  });

  app.post(`${path}/:id/redeliver-failed`, {
    schema: {
      operationId: 'redeliverFailedWebhookDeliveries',
      tags,
      summary: 'Send again every event whose delivery failed since a time (each as a new delivery)',
      params: IdParams,
      querystring: SinceQuery,
      response: { 202: Many(DeliveryRecord), ...errorResponses(400, 404) },
    },
    handler: async (request, reply) => {
      const data = await deliveries.redeliverFailed(request.params.id, asIso(request.query.since)!);
      return reply.code(202).send({ data, count: data.length });
    },
  });

  app.post(`${path}/:id/deliveries/:deliveryId/redeliver`, {
    schema: {
      operationId: 'redeliverWebhookDelivery',
      tags,
      summary: 'Send the event of a past delivery again (same `webhook-id`)',
      params: DeliveryParams,
      response: { 202: One(DeliveryRecord), ...errorResponses(404) },
    },
    handler: async (request, reply) =>
      reply.code(202).send({ data: await deliveries.redeliver(request.params.id, request.params.deliveryId) }),
  });

  app.post(`${path}/:id/ping`, {
    schema: {
      operationId: 'pingWebhook',
      tags,
      summary: 'Send a `webhook.ping` test event now, whether the webhook is active or not',
      params: IdParams,
      response: { 202: One(DeliveryRecord), ...errorResponses(404) },
    },
    handler: async (request, reply) => reply.code(202).send({ data: await deliveries.ping(request.params.id) }),
  });
}

import { Type } from 'typebox';
import type { KindNames } from '../../core/names.ts';
import type { TypedApp } from '../../http/typed.ts';
import { IdParams, Many, One, errorResponses } from '../../schemas/common.ts';
import { DeliveryRecord } from '../../webhooks/types.ts';
import type { DeliveryService } from './deliveries.ts';

const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 200 }),
});

/** The delivery log of a webhook, redelivery, and a test event. */
export function deliveryRoutes(app: TypedApp, deliveries: DeliveryService, { path, tag }: KindNames): void {
  const tags = [tag];
  app.get(`${path}/:id/deliveries`, {
    schema: {
      operationId: 'listWebhookDeliveries',
      tags,
      summary: 'Delivery attempts of a webhook, newest first',
      params: IdParams,
      response: { 200: Many(DeliveryRecord), ...errorResponses(404) },
    },
    handler: async (request) => {
      const data = await deliveries.list(request.params.id);
      return { data, count: data.length };
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

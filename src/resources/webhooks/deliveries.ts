import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { iso, type Clock, type IdGenerator } from '../../core/runtime.ts';
import { notFound } from '../../errors.ts';
import { IdParams, Many, One, errorResponses } from '../../schemas/common.ts';
import type { WebhookDispatcher } from '../../webhooks/dispatcher.ts';
import { DeliveryRecord } from '../../webhooks/types.ts';
import type { WebhookService } from './service.ts';

const tags = ['Webhooks'];
const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 200 }),
});

/** The delivery log of a webhook, redelivery, and a test event. */
export function deliveryRoutes(
  app: FastifyInstance,
  webhooks: WebhookService,
  dispatcher: WebhookDispatcher,
  clock: Clock,
  ids: IdGenerator,
): void {
  const target = async (id: string) => {
    const hook = await webhooks.withSecret(id);
    return { id: hook.id, url: hook.url, secret: hook.secret };
  };

  app.get('/api/webhooks/:id/deliveries', {
    schema: {
      operationId: 'listWebhookDeliveries',
      tags,
      summary: 'Delivery attempts of a webhook, newest first',
      params: IdParams,
      response: { 200: Many(DeliveryRecord), ...errorResponses(404) },
    },
    handler: async (request) => {
      const { id } = request.params as IdParams;
      await webhooks.get(id);
      const data = dispatcher.deliveries(id);
      return { data, count: data.length };
    },
  });

  app.post('/api/webhooks/:id/deliveries/:deliveryId/redeliver', {
    schema: {
      operationId: 'redeliverWebhookDelivery',
      tags,
      summary: 'Send the event of a past delivery again (same `webhook-id`)',
      params: DeliveryParams,
      response: { 202: One(DeliveryRecord), ...errorResponses(404) },
    },
    handler: async (request, reply) => {
      const { id, deliveryId } = request.params as { id: string; deliveryId: string };
      const record = dispatcher.redeliver(id, deliveryId, await target(id));
      if (!record) throw notFound('Delivery', deliveryId);
      return reply.code(202).send({ data: record });
    },
  });

  app.post('/api/webhooks/:id/ping', {
    schema: {
      operationId: 'pingWebhook',
      tags,
      summary: 'Send a `webhook.ping` test event now, whether the webhook is active or not',
      params: IdParams,
      response: { 202: One(DeliveryRecord), ...errorResponses(404) },
    },
    handler: async (request, reply) => {
      const { id } = request.params as IdParams;
      const to = await target(id);
      const eventId = ids('evt');
      dispatcher.enqueue(to, {
        id: eventId,
        type: 'webhook.ping',
        timestamp: iso(clock.now()),
        data: { webhookId: id },
      });
      const record = dispatcher.deliveries(id).find((d) => d.eventId === eventId)!;
      return reply.code(202).send({ data: record });
    },
  });
}

import { Type } from 'typebox';
import type { KindNames } from '../../core/names.ts';
import type { TypedApp } from '../../http/typed.ts';
import { IdParams, Many, One, Query, StringEnum, errorResponses } from '../../schemas/common.ts';
import { DELIVERY_STATUSES, DeliveryRecord } from '../../webhooks/types.ts';
import { parseInstant } from '../../core/runtime.ts';
import {
  NextCursor,
  PAGE_HEADERS,
  PageCursor,
  PageLimit,
  pageOf,
  readPaging,
  refuseUndeclaredOperators,
  sendPage,
} from '../../http/list.ts';
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
  limit: Type.Optional(PageLimit),
  cursor: Type.Optional(PageCursor()),
});

/** Attempts: the envelope of the log's pages (with `X-Total-Count` and `Link`), and of the attempts a request made. */
const Deliveries = { ...Many(DeliveryRecord).properties, nextCursor: NextCursor };
const DeliveryList = Type.Object(Deliveries, { headers: PAGE_HEADERS });

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
        'Filtered by `status`, `eventType` and `createdAt` (`since`, `until`). Always newest first: `createdAt` ' +
        'descending, then the order the attempts were recorded, last first (no `sort`). Pages like every list: ' +
        'with `limit` or `cursor` the answer gains `nextCursor`, and `Link` names the next page; `X-Total-Count` ' +
        'counts the attempts matching the filters. Attempts recorded while a client pages come before its first ' +
        'page, never within the pages it walks. The memory store keeps the last `WEBHOOK_HISTORY` attempts per ' +
        'webhook; a durable store keeps `WEBHOOK_HISTORY_DAYS` days.',
      params: IdParams,
      querystring: DeliveryQuery,
      response: { 200: DeliveryList, ...errorResponses(400, 404) },
    },
    preValidation: refuseUndeclaredOperators(DeliveryQuery),
    handler: async (request, reply) => {
      const q = request.query;
      const id = request.params.id;
      const paging = readPaging(q, `${path}/${id}/deliveries`);
      const page = await pageOf(() =>
        deliveries.page(id, {
          status: q.status,
          eventType: q.eventType,
          since: asIso(q.since),
          until: asIso(q.until),
          limit: paging.limit,
          after: paging.after,
        }),
      );
      return sendPage(request, reply, paging, page, { data: page.items, count: page.items.length });
    },
  });

  app.post(`${path}/:id/redeliver-failed`, {
    schema: {
      operationId: 'redeliverFailedWebhookDeliveries',
      tags,
      summary: 'Send again every event whose delivery failed since a time (each as a new delivery)',
      params: IdParams,
      querystring: SinceQuery,
      // One shape with the log's (the document names it `DeliveryRecordList`); never a `nextCursor` here.
      response: { 202: Type.Object(Deliveries), ...errorResponses(400, 404) },
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

import { Type } from 'typebox';
import type { KindNames } from '../../core/names.ts';
import type { TypedApp } from '../../http/typed.ts';
import { IdParams, Many, One, Query, StringEnum, errorResponses } from '../../schemas/common.ts';
import { DELIVERY_STATUSES, DeliveryRecord, type DeliveryStatus } from '../../model/delivery.ts';
import { DELIVERY_EVENT_TYPES } from '../../model/event-types.ts';
import { type Range, type ListSpec, valuesMeetingAll } from '../../model/list.ts';
import { parseInstant, parseInstantFrom } from '../../model/time.ts';
import { DELIVERY_STATUS_ORDER } from '../../store/outbox.ts';
import { listQuery, NextCursor, PAGE_HEADERS, PageCursor, PageLimit, readList, sendList } from '../../http/list.ts';
import type { DeliveryService } from './deliveries.ts';

const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 200 }),
});

const Instant = (description: string) =>
  Type.String({ format: 'iso-instant', description: `${description}; ISO 8601 (a date alone is midnight UTC)` });

const DeliveryQuery = Query({
  status: Type.Optional(StringEnum(DELIVERY_STATUSES)),
  eventType: Type.Optional(StringEnum(DELIVERY_EVENT_TYPES)),
  since: Type.Optional(Instant('Inclusive lower bound on `createdAt`')),
  until: Type.Optional(Instant('Inclusive upper bound on `createdAt`')),
  limit: Type.Optional(PageLimit),
  cursor: Type.Optional(PageCursor()),
});

/**
 * What the log offers beyond its exact filters (each also `field[in]`) and window: `sort` over `createdAt` and
 * `status` (by `DELIVERY_STATUS_ORDER`: pending, succeeded, refused, failed), ranges on `createdAt`; no `q`.
 */
const DeliveryListSpec: ListSpec = {
  sort: { createdAt: null, status: DELIVERY_STATUS_ORDER },
  ranges: { createdAt: 'instant' },
  search: [],
};

const DeliveryListQuery = listQuery(
  DeliveryQuery,
  DeliveryListSpec,
  'newest first (`-createdAt`); attempts of the same instant, in any order, last recorded first. `status` ' +
    'follows `pending < succeeded < refused < failed` (under way, then outcomes best to worst: `-status` puts ' +
    'failures first)',
);

/** Attempts: the envelope of the log's pages (with `X-Total-Count` and `Link`), and of the attempts a request made. */
const Deliveries = { ...Many(DeliveryRecord).properties, nextCursor: NextCursor };
const DeliveryList = Type.Object(Deliveries, { headers: PAGE_HEADERS });

const SinceQuery = Query({ since: Instant('Events whose delivery failed among the attempts made since then') });

/** An instant as stored (`toISOString()`); `from`: a lower bound, so one within a millisecond is the next one. */
const asIso = (value: string | undefined, from = false) =>
  value === undefined ? undefined : new Date(from ? parseInstantFrom(value) : parseInstant(value)).toISOString();

/** The delivery log of a webhook, redelivery, and a test event. */
/** What a webhook's sends need of a token: as every change of a webhook, `admin`. */
const ADMIN = { scope: 'admin' } as const;

export function deliveryRoutes(app: TypedApp, deliveries: DeliveryService, { path, tag }: KindNames): void {
  const tags = [tag];
  app.get(`${path}/:id/deliveries`, {
    schema: {
      operationId: 'listWebhookDeliveries',
      tags,
      summary: 'Delivery attempts of a webhook, newest first',
      description:
        'Filtered by `status` and `eventType` (each also `[in]`, any of several) and `createdAt` (`since`, ' +
        '`until`, `createdAt[gte|gt|lte|lt]`). Newest first unless `sort` says otherwise (`createdAt`, `status`): ' +
        '`createdAt` descending, then the order the attempts were recorded, last first; attempts that tie on ' +
        'the sort come last recorded first, whatever its direction. Pages like every list: ' +
        'with `limit` or `cursor` the answer gains `nextCursor`, and `Link` names the next page; `X-Total-Count` ' +
        'counts the attempts matching the filters. Attempts recorded while a client pages come before its first ' +
        'page, never within the pages it walks. The memory store keeps the last `WEBHOOK_HISTORY` attempts per ' +
        'webhook; a durable store keeps `WEBHOOK_HISTORY_DAYS` days.',
      params: IdParams,
      querystring: DeliveryListQuery,
      response: { 200: DeliveryList, ...errorResponses(400, 404) },
    },
    handler: async (request, reply) => {
      const q = request.query as { since?: string; until?: string };
      const id = request.params.id;
      const list = readList(request.query, DeliveryQuery, DeliveryListSpec, `${path}/${id}/deliveries`);
      const { conditions, query } = list;
      return sendList(
        request,
        reply,
        list,
        (cut) =>
          deliveries.page(id, {
            status: valuesMeetingAll(conditions, 'status') as DeliveryStatus[] | undefined,
            eventType: valuesMeetingAll(conditions, 'eventType') as string[] | undefined,
            since: asIso(q.since, true),
            until: asIso(q.until),
            createdAt: (query.filter as { createdAt?: Range } | undefined)?.createdAt,
            sort: query.sort,
            ...cut,
          }),
        (data, count) => ({ data, count }),
      );
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
    config: ADMIN,
    handler: async (request, reply) => {
      const data = await deliveries.redeliverFailed(request.params.id, asIso(request.query.since, true)!);
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
    config: ADMIN,
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
    config: ADMIN,
    handler: async (request, reply) => reply.code(202).send({ data: await deliveries.ping(request.params.id) }),
  });
}

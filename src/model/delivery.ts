import { Type, type Static } from 'typebox';
import { Id, Nullable, StringEnum, Timestamp } from './schema.ts';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'refused'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One HTTP attempt to deliver one event to one webhook (a retry is a new record). */
export const DeliveryRecord = Type.Object({
  id: Id('dlv'),
  webhookId: Id('wh'),
  eventId: Id('evt'),
  eventType: Type.String(),
  attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt of a delivery, 2 for its first retry, …' }),
  status: StringEnum(DELIVERY_STATUSES, {
    description: '`refused`: the target resolved to a loopback, private, link-local or metadata address',
  }),
  responseStatus: Nullable(Type.Integer({ description: "The receiver's HTTP status, when it answered" })),
  error: Nullable(Type.String({ description: 'Why the attempt failed or was refused' })),
  durationMs: Nullable(
    Type.Integer({ minimum: 0, description: 'Time on the wire: the request and its answer, in ms' }),
  ),
  createdAt: Timestamp,
  completedAt: Nullable(Timestamp),
  nextAttemptAt: Nullable({ ...Timestamp, description: 'When the next retry is due, if one is scheduled' }),
  url: Nullable(
    Type.String({ description: "The URL this attempt went to (the webhook's URL when it was made); null until sent" }),
  ),
  queuedMs: Nullable(
    Type.Integer({ minimum: 0, description: 'How long the attempt waited for a free slot after it was due, in ms' }),
  ),
  stopReason: Nullable(
    Type.String({
      description:
        'On the last attempt of a delivery that did not succeed, why no more follow: `exhausted`, `gone (410)`, ' +
        '`cancelled: webhook inactive`, `cancelled: webhook deleted`, `refused` (a private address not allowed), ' +
        '`undeliverable` (a URL no attempt can reach, such as a reserved name); null on every other attempt',
    }),
  ),
});
export type DeliveryRecord = Static<typeof DeliveryRecord>;

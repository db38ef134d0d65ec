import { Type, type Static } from 'typebox';
import { Id, Nullable, StringEnum, Timestamp } from '../model/schema.ts';

/** Where a delivery goes: a webhook as the dispatcher needs it (a snapshot, taken when the event is queued). */
export interface DeliveryTarget {
  readonly id: string;
  readonly url: string;
  /** `whsec_` + base64; the part after the prefix is the HMAC key, base64-decoded. */
  readonly secret: string;
}

/**
 * What is delivered: the body is `{ type, timestamp, data }`, plus `previous` for an update; the `id` is the
 * `webhook-id` header.
 */
export interface OutboundEvent {
  /** `evt_…`: the same on every attempt and redelivery, so receivers can deduplicate. */
  readonly id: string;
  readonly type: string;
  /** ISO 8601. */
  readonly timestamp: string;
  readonly data: unknown;
  /** For a `*.updated` event: the old values of exactly the fields that changed. */
  readonly previous?: Readonly<Record<string, unknown>>;
}

/**
 * The body of an event as a webhook receives it, `{ type, timestamp, data }` and an update's `previous`: built here
 * only, for the webhook deliveries and the event stream alike.
 */
export function eventBody(event: OutboundEvent): {
  type: string;
  timestamp: string;
  data: unknown;
  previous?: Readonly<Record<string, unknown>>;
} {
  const { type, timestamp, data, previous } = event;
  return previous === undefined ? { type, timestamp, data } : { type, timestamp, data, previous };
}

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

type LogFn = (obj: object, msg?: string) => void;

/** The part of a pino / Fastify logger the dispatcher uses. */
export interface Logger {
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  debug: LogFn;
}

/**
 * The timers the dispatcher runs on: retry waits, attempt timeouts, the grace period at close. Real ones by default;
 * tests pass a fake they advance by hand. A durable queue keeps this seam: its workers wake on these timers to claim
 * the rows that are due.
 */
export interface Scheduler {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

/** Node's timers, unref'd: a pending retry or timeout never keeps the process alive by itself. */
export const realTimers: Scheduler = {
  setTimeout(run, ms) {
    const timer = setTimeout(run, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/** Told of every attempt once the dispatcher is done with it (status final, retry scheduled or not). */
export interface DeliveryObserver {
  settled(record: DeliveryRecord): void;
}

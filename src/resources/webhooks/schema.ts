import type { ListSpec } from '../../http/list.ts';
import { Type, type Static } from 'typebox';
import {
  Body,
  CheckedEnum,
  Description,
  Id,
  LIMITS,
  Nullable,
  Query,
  StringEnum,
  Timestamp,
  patchOf,
} from '../../schemas/common.ts';

/**
 * The event types a webhook can subscribe to, exactly the interface's twelve, each with what it means, and `*` for
 * all of them. The one list: the validation of `events`, the list filter, delivery and `GET /api/event-types` read it.
 */
export const EVENT_CATALOGUE = [
  { type: 'project.created', description: 'Project created' },
  { type: 'project.updated', description: 'Project modified (also when its team is deleted); carries `previous`' },
  { type: 'project.deleted', description: 'Project deleted' },
  { type: 'task.created', description: 'Task created' },
  { type: 'task.updated', description: 'Task modified; carries `previous`' },
  { type: 'task.deleted', description: 'Task deleted (also when its project is deleted)' },
  { type: 'comment.created', description: 'Comment posted' },
  { type: 'comment.updated', description: 'Comment modified; carries `previous`' },
  { type: 'comment.deleted', description: 'Comment deleted (also when the task or project it is on is deleted)' },
  { type: 'milestone.reached', description: 'Milestone achieved: its status became `reached`' },
  {
    type: 'sprint.started',
    description: 'Sprint initiated: an activity entry with action `sprint.started` was posted',
  },
  {
    type: 'sprint.completed',
    description: 'Sprint finished: an activity entry with action `sprint.completed` was posted',
  },
] as const;
export type EventType = (typeof EVENT_CATALOGUE)[number]['type'];
export const EVENT_TYPES: readonly EventType[] = EVENT_CATALOGUE.map((e) => e.type);
/** The test event `POST /api/webhooks/:id/ping` sends: in the delivery log beside the catalogue's types. */
export const PING_EVENT = 'webhook.ping';
/** What a delivery's `eventType` can be, and so the values its filter takes. */
export const DELIVERY_EVENT_TYPES: readonly string[] = [...EVENT_TYPES, PING_EVENT];
export const WILDCARD = '*';
export const SUBSCRIBABLE: readonly string[] = [...EVENT_TYPES, WILDCARD];
/** What `GET /api/event-types` lists: the catalogue, then the wildcard. */
export const SUBSCRIBABLE_TYPES: readonly { type: string; description: string }[] = [
  ...EVENT_CATALOGUE,
  { type: WILDCARD, description: 'Wildcard: all event types' },
];

const publicFields = {
  id: Id('wh'),
  url: Type.String(),
  events: Type.Array(StringEnum(SUBSCRIBABLE)),
  active: Type.Boolean(),
  description: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

/** A webhook as every read and update shows it: never with its secret. */
export const Webhook = Type.Object(publicFields);
export type Webhook = Static<typeof Webhook>;

/** The answer to a create, the one place the secret appears. */
export const WebhookWithSecret = Type.Object({
  ...publicFields,
  secret: Type.String({
    description: 'Signing secret, `whsec_` + 12 alphanumerics; shown only here',
    examples: ['whsec_AbCdEf123456'],
  }),
});
/** A webhook as stored. */
export type WebhookRecord = Static<typeof WebhookWithSecret>;

// Checked by the service (checkEvents), which answers INVALID_EVENTS naming each value outside the list.
const Events = Type.Array(CheckedEnum(SUBSCRIBABLE, 'INVALID_EVENTS', { maxLength: 100 }), {
  maxItems: 100,
  description: `Event types to receive: ${SUBSCRIBABLE.map((e) => `\`${e}\``).join(', ')}. Any other value is refused with \`INVALID_EVENTS\`; duplicates are removed.`,
});

export const WebhookCreate = Body({
  url: Type.String({
    minLength: 1,
    maxLength: LIMITS.url,
    format: 'uri',
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
    description: 'Absolute http or https URL',
    examples: ['https://hooks.example.com/pm'],
  }),
  events: Type.Optional({ ...Events, default: [] }),
  description: Type.Optional({ ...Description, default: '' }),
  active: Type.Optional(Type.Boolean({ default: true })),
});
export type WebhookCreate = Static<typeof WebhookCreate>;

/** `secret` cannot be changed: sent on an update, it is ignored. */
export const WebhookPatch = patchOf(WebhookCreate);
export type WebhookPatch = Static<typeof WebhookPatch>;

export const WebhookQuery = Query({
  active: Type.Optional(Type.Boolean({ description: '`true` or `false`' })),
  event: Type.Optional(
    StringEnum(SUBSCRIBABLE as readonly string[], { description: 'Webhooks subscribed to this type or to `*`' }),
  ),
});
export type WebhookQuery = Static<typeof WebhookQuery>;

/** What the list offers beyond its exact filters: `sort`, the range operators, `q`. */
export const WebhookList: ListSpec = {
  sort: { url: null, createdAt: null, updatedAt: null },
  ranges: { createdAt: 'instant', updatedAt: 'instant' },
  search: ['url', 'description'],
};

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

import type { ListSpec } from '../../http/list.ts';
import { Type, type Static } from 'typebox';
import {
  Body,
  CheckedEnum,
  Description,
  Id,
  LIMITS,
  Query,
  StringEnum,
  Timestamp,
  patchOf,
} from '../../schemas/common.ts';

/** The event types a webhook can subscribe to (the interface's list), and `*` for all of them. */
export const EVENT_TYPES = [
  'project.created',
  'project.updated',
  'project.deleted',
  'task.created',
  'task.updated',
  'task.deleted',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'milestone.reached',
  'sprint.started',
  'sprint.completed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const WILDCARD = '*';
export const SUBSCRIBABLE: readonly string[] = [...EVENT_TYPES, WILDCARD];

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

import { Type, type Static } from 'typebox';
import { Body, CheckedEnum, Description, LIMITS, Query, StringEnum, patchOf } from '../../schemas/common.ts';
import { SUBSCRIBABLE } from '../../model/event-types.ts';

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

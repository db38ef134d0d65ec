import type { ListSpec } from './list.ts';
import { Type, type Static } from 'typebox';
import { SUBSCRIBABLE } from './event-types.ts';
import { Id, StringEnum, Timestamp } from './schema.ts';

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

/** What a list of these records offers beyond its exact filters: `sort`, the range operators, `q`. */
export const WebhookList: ListSpec = {
  sort: { url: null, createdAt: null, updatedAt: null },
  ranges: { createdAt: 'instant', updatedAt: 'instant' },
  search: ['url', 'description'],
};

import { Type } from 'typebox';
import type { TypedApp } from '../../http/typed.ts';
import { Many, StringEnum } from '../../schemas/common.ts';
import { SUBSCRIBABLE, SUBSCRIBABLE_TYPES } from '../../model/event-types.ts';

/** One type a webhook may subscribe to. */
export const EventType = Type.Object({
  type: StringEnum(SUBSCRIBABLE, { description: "A value for a webhook's `events`" }),
  description: Type.String({ description: 'What it means, in one line' }),
});

const LIST = { data: [...SUBSCRIBABLE_TYPES], count: SUBSCRIBABLE_TYPES.length };

export function eventTypeRoutes(app: TypedApp, tag: string): void {
  app.get('/api/event-types', {
    schema: {
      operationId: 'listEventTypes',
      tags: [tag],
      summary: 'The event types a webhook may subscribe to, and `*`',
      description:
        "Exactly the values a webhook's `events` accepts (any other is refused with `INVALID_EVENTS`), in a fixed " +
        'order. Each delivery is a `POST` whose body is `{ type, timestamp, data }`: `data` is the record after the ' +
        'change (for a delete, as it was); a `*.updated` event adds `previous`, the old values of exactly the ' +
        'fields that changed.',
      response: { 200: Many(EventType) },
    },
    handler: async () => LIST,
  });
}

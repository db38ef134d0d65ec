import type { Resource } from '../resource.ts';
import { SUBSCRIBABLE_TYPES } from '../../model/event-types.ts';
import { EventType, eventTypeRoutes } from './routes.ts';

const tag = 'Event types';

export const eventTypes: Resource = {
  tag: { name: tag, description: 'What a webhook may subscribe to, and what each delivery carries.' },
  components: [{ name: 'EventType', schema: EventType, samples: SUBSCRIBABLE_TYPES }],
  routes: (app) => eventTypeRoutes(app, tag),
};
